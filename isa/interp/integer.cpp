// Interpreter group: integer arithmetic, compare and multiply (opcodes 0x10,
// 0x13). /V overflow gives up with Stop::kArithmetic: the trap is the
// hardware's to take (seed 001 §2.1.2).
#include "isa/interp/execute.h"

namespace dcpi::isa::interp {
namespace {

inline bool overflow32(uint64_t wide) { return sext32(wide) != wide; }

// The high quadword of the unsigned 128-bit product.
inline uint64_t umulh(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

}  // namespace

DCPI_INTERP_GROUP Stop execute_integer(Execution& x) {
  const uint64_t ra = x.ra, rb = x.rb;
  switch (x.in.operation) {
    case Operation::kAddl:
      x.set_int(sext32(ra + rb));
      break;
    case Operation::kS4addl:
      x.set_int(sext32((ra << 2) + rb));
      break;
    case Operation::kS8addl:
      x.set_int(sext32((ra << 3) + rb));
      break;
    case Operation::kSubl:
      x.set_int(sext32(ra - rb));
      break;
    case Operation::kS4subl:
      x.set_int(sext32((ra << 2) - rb));
      break;
    case Operation::kS8subl:
      x.set_int(sext32((ra << 3) - rb));
      break;
    case Operation::kAddq:
      x.set_int(ra + rb);
      break;
    case Operation::kS4addq:
      x.set_int((ra << 2) + rb);
      break;
    case Operation::kS8addq:
      x.set_int((ra << 3) + rb);
      break;
    case Operation::kSubq:
      x.set_int(ra - rb);
      break;
    case Operation::kS4subq:
      x.set_int((ra << 2) - rb);
      break;
    case Operation::kS8subq:
      x.set_int((ra << 3) - rb);
      break;
    case Operation::kAddlV: {
      const uint64_t wide = sext32(ra) + sext32(rb);
      if (overflow32(wide)) return Stop::kArithmetic;
      x.set_int(wide);
      break;
    }
    case Operation::kSublV: {
      const uint64_t wide = sext32(ra) - sext32(rb);
      if (overflow32(wide)) return Stop::kArithmetic;
      x.set_int(wide);
      break;
    }
    case Operation::kAddqV: {
      const uint64_t r = ra + rb;
      if (((ra ^ r) & (rb ^ r)) >> 63) return Stop::kArithmetic;
      x.set_int(r);
      break;
    }
    case Operation::kSubqV: {
      const uint64_t r = ra - rb;
      if (((ra ^ rb) & (ra ^ r)) >> 63) return Stop::kArithmetic;
      x.set_int(r);
      break;
    }
    case Operation::kCmpbge: {
      uint64_t r = 0;
      for (int i = 0; i < 8; ++i) {
        const uint64_t a = (ra >> (i * 8)) & 0xff, b = (rb >> (i * 8)) & 0xff;
        r |= uint64_t{a >= b} << i;
      }
      x.set_int(r);
      break;
    }
    case Operation::kCmpult:
      x.set_int(ra < rb);
      break;
    case Operation::kCmpule:
      x.set_int(ra <= rb);
      break;
    case Operation::kCmpeq:
      x.set_int(ra == rb);
      break;
    case Operation::kCmplt:
      x.set_int(static_cast<int64_t>(ra) < static_cast<int64_t>(rb));
      break;
    case Operation::kCmple:
      x.set_int(static_cast<int64_t>(ra) <= static_cast<int64_t>(rb));
      break;
    case Operation::kMull:
      x.set_int(sext32(ra * rb));
      break;
    case Operation::kMulq:
      x.set_int(ra * rb);
      break;
    case Operation::kUmulh:
      x.set_int(umulh(ra, rb));
      break;
    case Operation::kMullV: {
      const uint64_t wide = static_cast<uint64_t>(static_cast<int64_t>(sext32(ra)) *
                                                  static_cast<int64_t>(sext32(rb)));
      if (overflow32(wide)) return Stop::kArithmetic;
      x.set_int(wide);
      break;
    }
    case Operation::kMulqV: {
      // Signed high half from umulh, without a 128-bit signed multiply libcall.
      const uint64_t low = ra * rb;
      uint64_t high = umulh(ra, rb);
      if (ra >> 63) high -= rb;
      if (rb >> 63) high -= ra;
      if (high != static_cast<uint64_t>(static_cast<int64_t>(low) >> 63)) return Stop::kArithmetic;
      x.set_int(low);
      break;
    }
    default:
      return Stop::kUnimplemented;
  }
  return Stop::kNone;
}

}  // namespace dcpi::isa::interp
