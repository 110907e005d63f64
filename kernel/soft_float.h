// IEEE double (Alpha T format) addition, subtraction, multiplication and
// division in integers, for the software completion of an operation QEMU
// trapped on before computing it: a denormal operand (kernel/fp_completion.h;
// Linux/Alpha does the same with its math-emu). Exactly rounded in the four
// modes, with the IEEE exception flags in the positions of the Alpha
// software control word's trap-enable bits. No dependence on the kernel:
// tests/unit builds it on the host and checks it against the host's FPU.
#pragma once
#include <cstdint>

namespace kernel::soft_float {

enum class Rounding { kChopped, kMinus, kNearest, kPlus };  // the FPCR's DYN order
enum class Op { kAdd, kSub, kMul, kDiv, kSqrt };            // kSqrt: of b, as SQRTT
inline constexpr uint64_t kInvalid = 1 << 1, kDivZero = 1 << 2, kOverflow = 1 << 3,
                          kUnderflow = 1 << 4, kInexact = 1 << 5;

struct Result {
  uint64_t bits;
  uint64_t exceptions;
};

namespace detail {

using u128 = unsigned __int128;
inline constexpr uint64_t kFracMask = (1ull << 52) - 1, kSign = 1ull << 63;
inline constexpr uint64_t kQuietBit = 1ull << 51, kDefaultNan = 0x7ff8000000000000ull;

inline unsigned exponent_field(uint64_t v) { return static_cast<unsigned>(v >> 52) & 0x7ff; }
inline bool is_nan(uint64_t v) { return exponent_field(v) == 0x7ff && (v & kFracMask) != 0; }
inline bool is_inf(uint64_t v) { return exponent_field(v) == 0x7ff && (v & kFracMask) == 0; }
inline bool is_zero(uint64_t v) { return (v & ~kSign) == 0; }

// A finite nonzero value as m * 2^e with m's leading one at bit 52.
struct Unpacked {
  uint64_t m;
  int e;
};
inline Unpacked unpack(uint64_t v) {
  const unsigned field = exponent_field(v);
  Unpacked u{v & kFracMask, field == 0 ? -1074 : static_cast<int>(field) - 1075};
  if (field != 0) u.m |= 1ull << 52;
  while ((u.m & (1ull << 52)) == 0) {
    u.m <<= 1;
    --u.e;
  }
  return u;
}

inline int bit_length(u128 x) {
  int n = 0;
  while (x != 0) {
    x >>= 1;
    ++n;
  }
  return n;
}

// The double nearest (in `mode`) to (-1)^negative * m * 2^e, m != 0; a set
// `sticky` says the exact value is a little more than that (below m's last
// bit).
inline Result round_pack(bool negative, u128 m, int e, bool sticky, Rounding mode) {
  const uint64_t sign = negative ? kSign : 0;
  const int length = bit_length(m);
  const int top = e + length - 1;  // the leading bit's exponent
  int shift = length - 53;
  if (e + shift < -1074) shift = -1074 - e;  // denormal: the last bit weighs 2^-1074
  uint64_t q;
  bool half = false, below = sticky;
  if (shift <= 0) {
    q = static_cast<uint64_t>(m << -shift);
  } else if (shift > 127) {
    q = 0;
    below = true;
  } else {
    q = static_cast<uint64_t>(m >> shift);
    const u128 rest = m & ((static_cast<u128>(1) << shift) - 1);
    const u128 halfway = static_cast<u128>(1) << (shift - 1);
    half = rest >= halfway;
    below = below || (rest & (halfway - 1)) != 0;
  }
  const bool inexact = half || below;
  bool up = false;
  switch (mode) {
    case Rounding::kChopped:
      break;
    case Rounding::kNearest:
      up = half && (below || (q & 1));
      break;
    case Rounding::kPlus:
      up = inexact && !negative;
      break;
    case Rounding::kMinus:
      up = inexact && negative;
      break;
  }
  int exp = e + shift;  // the value is q * 2^exp
  if (up && ++q == (1ull << 53)) {
    q >>= 1;
    ++exp;
  }
  uint64_t exceptions = inexact ? kInexact : 0;
  if (top < -1022 && inexact) exceptions |= kUnderflow;  // tiny before rounding
  if (q == 0) return {sign, exceptions};
  if (q < (1ull << 52)) return {sign | q, exceptions};  // denormal (exp is -1074)
  const int biased = exp + 52 + 1023;
  if (biased >= 0x7ff) {
    const bool to_inf = mode == Rounding::kNearest || (mode == Rounding::kPlus && !negative) ||
                        (mode == Rounding::kMinus && negative);
    return {sign | (to_inf ? 0x7ff0000000000000ull : 0x7fefffffffffffffull), kOverflow | kInexact};
  }
  return {sign | static_cast<uint64_t>(biased) << 52 | (q & kFracMask), exceptions};
}

inline Result nan_result(uint64_t a, uint64_t b) {
  const bool signaling = (is_nan(a) && !(a & kQuietBit)) || (is_nan(b) && !(b & kQuietBit));
  return {(is_nan(a) ? a : b) | kQuietBit, signaling ? kInvalid : 0};
}

inline Result add(uint64_t a, uint64_t b, Rounding mode) {
  if (is_nan(a) || is_nan(b)) return nan_result(a, b);
  if (is_inf(a) || is_inf(b)) {
    if (is_inf(a) && is_inf(b) && (a ^ b) & kSign) return {kDefaultNan, kInvalid};
    return {is_inf(a) ? a : b, 0};
  }
  if (is_zero(a) && is_zero(b)) {
    const bool negative = (a & b & kSign) || ((a ^ b) & kSign && mode == Rounding::kMinus);
    return {negative ? kSign : 0, 0};
  }
  if (is_zero(a)) return {b, 0};
  if (is_zero(b)) return {a, 0};
  Unpacked x = unpack(a), y = unpack(b);
  bool sx = a >> 63, sy = b >> 63;
  if (x.e < y.e || (x.e == y.e && x.m < y.m)) {
    const Unpacked t = x;
    x = y;
    y = t;
    const bool s = sx;
    sx = sy;
    sy = s;
  }
  // x's 53 bits at the top of a 117-bit frame; y aligned below, what falls
  // off jammed into the last bit (64 guard bits make that exact for rounding).
  const u128 big = static_cast<u128>(x.m) << 64;
  const int e = x.e - 64;
  const int down = e - y.e;  // y.e <= x.e, so down <= 64
  u128 small;
  if (down <= 0) {
    small = static_cast<u128>(y.m) << -down;
  } else if (down >= 120) {
    small = 1;
  } else {
    small = static_cast<u128>(y.m) >> down;
    if ((static_cast<u128>(y.m) & ((static_cast<u128>(1) << down) - 1)) != 0) small |= 1;
  }
  if (sx == sy) return round_pack(sx, big + small, e, false, mode);
  const u128 difference = big - small;
  if (difference == 0) return {mode == Rounding::kMinus ? kSign : 0, 0};
  return round_pack(sx, difference, e, false, mode);
}

inline Result multiply(uint64_t a, uint64_t b, Rounding mode) {
  if (is_nan(a) || is_nan(b)) return nan_result(a, b);
  const uint64_t sign = (a ^ b) & kSign;
  if (is_inf(a) || is_inf(b)) {
    if (is_zero(a) || is_zero(b)) return {kDefaultNan, kInvalid};
    return {sign | 0x7ff0000000000000ull, 0};
  }
  if (is_zero(a) || is_zero(b)) return {sign, 0};
  const Unpacked x = unpack(a), y = unpack(b);
  return round_pack(sign != 0, static_cast<u128>(x.m) * y.m, x.e + y.e, false, mode);
}

inline Result divide(uint64_t a, uint64_t b, Rounding mode) {
  if (is_nan(a) || is_nan(b)) return nan_result(a, b);
  const uint64_t sign = (a ^ b) & kSign;
  if (is_inf(a))
    return is_inf(b) ? Result{kDefaultNan, kInvalid} : Result{sign | 0x7ff0000000000000ull, 0};
  if (is_inf(b)) return {sign, 0};
  if (is_zero(b))
    return is_zero(a) ? Result{kDefaultNan, kInvalid}
                      : Result{sign | 0x7ff0000000000000ull, kDivZero};
  if (is_zero(a)) return {sign, 0};
  const Unpacked x = unpack(a), y = unpack(b);
  // (x.m << 64) / y.m by shifting and subtracting: 65 quotient bits at
  // most, the remainder's being nonzero is the sticky bit.
  u128 remainder = static_cast<u128>(x.m) << 64, quotient = 0;
  const u128 divisor = y.m;
  for (int bit = 117 - 52; bit >= 0; --bit) {
    const u128 d = divisor << bit;
    if (remainder >= d) {
      remainder -= d;
      quotient |= static_cast<u128>(1) << bit;
    }
  }
  return round_pack(sign != 0, quotient, x.e - y.e - 64, remainder != 0, mode);
}

inline Result square_root(uint64_t b, Rounding mode) {
  if (is_nan(b)) return nan_result(b, b);
  if (is_zero(b)) return {b, 0};  // sqrt(-0) is -0
  if (b & kSign) return {kDefaultNan, kInvalid};
  if (is_inf(b)) return {b, 0};
  Unpacked x = unpack(b);
  if (x.e & 1) {
    x.m <<= 1;
    --x.e;
  }
  // The integer square root of m * 2^64 digit by digit (59 bits), the
  // remainder's being nonzero is the sticky bit.
  const u128 value = static_cast<u128>(x.m) << 64;
  u128 root = 0, remainder = 0;
  for (int shift = 126; shift >= 0; shift -= 2) {
    remainder = remainder << 2 | (value >> shift & 3);
    const u128 trial = root << 2 | 1;
    root <<= 1;
    if (remainder >= trial) {
      remainder -= trial;
      root |= 1;
    }
  }
  return round_pack(false, root, (x.e - 64) / 2, remainder != 0, mode);
}

// CVTTS and CVTTQ of a denormal, which is below every S-format value and
// every nonzero integer: zero, or the smallest magnitude when the rounding
// goes away from zero. S results are in the register's T layout.
inline Result denormal_to_single(uint64_t a, Rounding mode) {
  const bool negative = a >> 63;
  const bool away =
      (mode == Rounding::kPlus && !negative) || (mode == Rounding::kMinus && negative);
  constexpr uint64_t kSmallestSingle = static_cast<uint64_t>(1023 - 149) << 52;  // 2^-149
  return {(a & kSign) | (away ? kSmallestSingle : 0), kUnderflow | kInexact};
}
inline Result denormal_to_quad(uint64_t a, Rounding mode) {
  const bool negative = a >> 63;
  const bool away =
      (mode == Rounding::kPlus && !negative) || (mode == Rounding::kMinus && negative);
  return {away ? (negative ? ~0ull : 1ull) : 0, kInexact};
}

}  // namespace detail

inline Result compute(Op op, uint64_t a, uint64_t b, Rounding mode) {
  switch (op) {
    case Op::kAdd:
      return detail::add(a, b, mode);
    case Op::kSub:
      return detail::add(a, b ^ detail::kSign, mode);
    case Op::kMul:
      return detail::multiply(a, b, mode);
    case Op::kDiv:
      return detail::divide(a, b, mode);
    case Op::kSqrt:
      return detail::square_root(b, mode);
  }
  return {detail::kDefaultNan, kInvalid};
}

}  // namespace kernel::soft_float
