// Interpreter group: byte manipulation (zap, extract, insert, mask; opcode
// 0x12) and the BWX/CIX/MVI extensions (integer opcode 0x1c). Nothing here
// can trap.
#include "isa/interp/execute.h"

namespace dcpi::isa::interp {
namespace {

inline uint64_t byte_mask(uint64_t bits) {
  uint64_t m = 0;
  for (int i = 0; i < 8; ++i)
    if ((bits >> i) & 1) m |= uint64_t{0xff} << (i * 8);
  return m;
}
inline uint64_t zapnot(uint64_t v, uint64_t bits) { return v & byte_mask(bits & 0xff); }
inline uint64_t zap(uint64_t v, uint64_t bits) { return v & ~byte_mask(bits & 0xff); }

inline uint64_t ext_low(uint64_t a, uint64_t b, uint64_t mask) {
  return zapnot(a >> ((b & 7) * 8), mask);
}
inline uint64_t ext_high(uint64_t a, uint64_t b, uint64_t mask) {
  return zapnot(a << ((64 - (b & 7) * 8) & 63), mask);
}
inline uint64_t ins_low(uint64_t a, uint64_t b, uint64_t mask) {
  const uint64_t bm = mask << (b & 7);
  return zapnot(a << ((b & 7) * 8), bm & 0xff);
}
inline uint64_t ins_high(uint64_t a, uint64_t b, uint64_t mask) {
  const uint64_t bm = mask << (b & 7);
  if ((bm >> 8) == 0) return 0;
  return zapnot(a >> ((64 - (b & 7) * 8) & 63), bm >> 8);
}
inline uint64_t msk_low(uint64_t a, uint64_t b, uint64_t mask) {
  return zap(a, (mask << (b & 7)) & 0xff);
}
inline uint64_t msk_high(uint64_t a, uint64_t b, uint64_t mask) {
  return zap(a, (mask << (b & 7)) >> 8);
}

inline uint64_t byte_of(uint64_t v, int i) { return (v >> (i * 8)) & 0xff; }

template <bool kMax, bool kSigned, int kBits>
inline uint64_t minmax(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  const uint64_t lane = (uint64_t{1} << kBits) - 1;
  for (int i = 0; i < 64; i += kBits) {
    const uint64_t x = (a >> i) & lane, y = (b >> i) & lane;
    bool x_less;
    if (kSigned) {
      const uint64_t flip = uint64_t{1} << (kBits - 1);
      x_less = (x ^ flip) < (y ^ flip);
    } else {
      x_less = x < y;
    }
    r |= ((kMax ? !x_less : x_less) ? x : y) << i;
  }
  return r;
}

// Bit counts in plain integer code: the guest kernel is built for the base
// ISA (no CIX), and __builtin_popcount & co. would become libgcc calls.
inline int popcount(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<int>((v * 0x0101010101010101ull) >> 56);
}
inline int clz(uint64_t v) {
  int n = 0;
  for (int shift = 32; shift > 0; shift >>= 1)
    if ((v >> (64 - shift)) == 0) {
      n += shift;
      v <<= shift;
    }
  return v ? n : 64;
}
inline int ctz(uint64_t v) { return v ? 63 - clz(v & (0 - v)) : 64; }

}  // namespace

DCPI_INTERP_GROUP Stop execute_byte(Execution& x) {
  const uint64_t ra = x.ra, rb = x.rb;
  switch (x.in.operation) {
    case Operation::kZap:
      x.set_int(zap(ra, rb));
      break;
    case Operation::kZapnot:
      x.set_int(zapnot(ra, rb));
      break;
    case Operation::kExtbl:
      x.set_int(ext_low(ra, rb, 0x01));
      break;
    case Operation::kExtwl:
      x.set_int(ext_low(ra, rb, 0x03));
      break;
    case Operation::kExtll:
      x.set_int(ext_low(ra, rb, 0x0f));
      break;
    case Operation::kExtql:
      x.set_int(ext_low(ra, rb, 0xff));
      break;
    case Operation::kExtwh:
      x.set_int(ext_high(ra, rb, 0x03));
      break;
    case Operation::kExtlh:
      x.set_int(ext_high(ra, rb, 0x0f));
      break;
    case Operation::kExtqh:
      x.set_int(ext_high(ra, rb, 0xff));
      break;
    case Operation::kInsbl:
      x.set_int(ins_low(ra, rb, 0x01));
      break;
    case Operation::kInswl:
      x.set_int(ins_low(ra, rb, 0x03));
      break;
    case Operation::kInsll:
      x.set_int(ins_low(ra, rb, 0x0f));
      break;
    case Operation::kInsql:
      x.set_int(ins_low(ra, rb, 0xff));
      break;
    case Operation::kInswh:
      x.set_int(ins_high(ra, rb, 0x03));
      break;
    case Operation::kInslh:
      x.set_int(ins_high(ra, rb, 0x0f));
      break;
    case Operation::kInsqh:
      x.set_int(ins_high(ra, rb, 0xff));
      break;
    case Operation::kMskbl:
      x.set_int(msk_low(ra, rb, 0x01));
      break;
    case Operation::kMskwl:
      x.set_int(msk_low(ra, rb, 0x03));
      break;
    case Operation::kMskll:
      x.set_int(msk_low(ra, rb, 0x0f));
      break;
    case Operation::kMskql:
      x.set_int(msk_low(ra, rb, 0xff));
      break;
    case Operation::kMskwh:
      x.set_int(msk_high(ra, rb, 0x03));
      break;
    case Operation::kMsklh:
      x.set_int(msk_high(ra, rb, 0x0f));
      break;
    case Operation::kMskqh:
      x.set_int(msk_high(ra, rb, 0xff));
      break;
    default:
      return Stop::kUnimplemented;
  }
  return Stop::kNone;
}

DCPI_INTERP_GROUP Stop execute_extension(Execution& x) {
  const uint64_t ra = x.ra, rb = x.rb;
  switch (x.in.operation) {
    case Operation::kSextb:
      x.set_int(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(rb))));
      break;
    case Operation::kSextw:
      x.set_int(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(rb))));
      break;
    case Operation::kCtpop:
      x.set_int(static_cast<uint64_t>(popcount(rb)));
      break;
    case Operation::kCtlz:
      x.set_int(static_cast<uint64_t>(clz(rb)));
      break;
    case Operation::kCttz:
      x.set_int(static_cast<uint64_t>(ctz(rb)));
      break;
    case Operation::kPerr: {
      uint64_t sum = 0;
      for (int i = 0; i < 8; ++i) {
        const uint64_t a = byte_of(ra, i), b = byte_of(rb, i);
        sum += a > b ? a - b : b - a;
      }
      x.set_int(sum);
      break;
    }
    case Operation::kPklb:
      x.set_int(byte_of(rb, 0) | byte_of(rb, 4) << 8);
      break;
    case Operation::kPkwb:
      x.set_int(byte_of(rb, 0) | byte_of(rb, 2) << 8 | byte_of(rb, 4) << 16 | byte_of(rb, 6) << 24);
      break;
    case Operation::kUnpkbl:
      x.set_int(byte_of(rb, 0) | byte_of(rb, 1) << 32);
      break;
    case Operation::kUnpkbw:
      x.set_int(byte_of(rb, 0) | byte_of(rb, 1) << 16 | byte_of(rb, 2) << 32 |
                byte_of(rb, 3) << 48);
      break;
    case Operation::kMinsb8:
      x.set_int(minmax<false, true, 8>(ra, rb));
      break;
    case Operation::kMinsw4:
      x.set_int(minmax<false, true, 16>(ra, rb));
      break;
    case Operation::kMinub8:
      x.set_int(minmax<false, false, 8>(ra, rb));
      break;
    case Operation::kMinuw4:
      x.set_int(minmax<false, false, 16>(ra, rb));
      break;
    case Operation::kMaxsb8:
      x.set_int(minmax<true, true, 8>(ra, rb));
      break;
    case Operation::kMaxsw4:
      x.set_int(minmax<true, true, 16>(ra, rb));
      break;
    case Operation::kMaxub8:
      x.set_int(minmax<true, false, 8>(ra, rb));
      break;
    case Operation::kMaxuw4:
      x.set_int(minmax<true, false, 16>(ra, rb));
      break;
    default:
      return Stop::kUnimplemented;
  }
  return Stop::kNone;
}

}  // namespace dcpi::isa::interp
