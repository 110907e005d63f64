// Interpreter group: logical, conditional move and shift operations, AMASK
// and IMPLVER (opcodes 0x11, 0x12). Nothing here can trap.
#include "isa/interp/execute.h"

namespace dcpi::isa::interp {
namespace {

// The CMOVxx condition on Ra.
DCPI_INTERP_INLINE bool cmov_condition(Operation op, uint64_t ra) {
  const int64_t s = static_cast<int64_t>(ra);
  switch (op) {
    case Operation::kCmovlbs:
      return ra & 1;
    case Operation::kCmovlbc:
      return !(ra & 1);
    case Operation::kCmoveq:
      return s == 0;
    case Operation::kCmovne:
      return s != 0;
    case Operation::kCmovlt:
      return s < 0;
    case Operation::kCmovge:
      return s >= 0;
    case Operation::kCmovle:
      return s <= 0;
    default:
      return s > 0;
  }
}

}  // namespace

DCPI_INTERP_GROUP Stop execute_logical(Execution& x) {
  const uint64_t ra = x.ra, rb = x.rb;
  switch (x.in.operation) {
    case Operation::kAnd:
      x.set_int(ra & rb);
      break;
    case Operation::kBic:
      x.set_int(ra & ~rb);
      break;
    case Operation::kBis:
      x.set_int(ra | rb);
      break;
    case Operation::kOrnot:
      x.set_int(ra | ~rb);
      break;
    case Operation::kXor:
      x.set_int(ra ^ rb);
      break;
    case Operation::kEqv:
      x.set_int(ra ^ ~rb);
      break;
    case Operation::kAmask:
      x.set_int(rb & ~kAmaskImplemented);
      break;
    case Operation::kImplver:
      x.set_int(kImplver);
      break;
    case Operation::kCmovlbs:
    case Operation::kCmovlbc:
    case Operation::kCmoveq:
    case Operation::kCmovne:
    case Operation::kCmovlt:
    case Operation::kCmovge:
    case Operation::kCmovle:
    case Operation::kCmovgt:
      x.set_int(cmov_condition(x.in.operation, ra) ? rb : x.c.r[x.in.rc]);
      break;
    case Operation::kSll:
      x.set_int(ra << (rb & 63));
      break;
    case Operation::kSrl:
      x.set_int(ra >> (rb & 63));
      break;
    case Operation::kSra:
      x.set_int(static_cast<uint64_t>(static_cast<int64_t>(ra) >> (rb & 63)));
      break;
    default:
      return Stop::kUnimplemented;
  }
  return Stop::kNone;
}

}  // namespace dcpi::isa::interp
