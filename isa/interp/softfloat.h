// IEEE S and T floating point in integer arithmetic for the value-sampling
// interpreter (seed 001 §2.1.2: "a complete interpreter for the Alpha
// instruction set"). Freestanding: the guest kernel is built -mno-fp-regs,
// so the interpreter may not touch the FPU; the host builds the very same
// code, which is what the differential test (tests/interp/interp_diff.cpp)
// checks against QEMU. No division, no libcalls: 64x64->128 products use
// unsigned __int128 (mulq/umulh on Alpha), quotients and square roots are
// computed bit by bit.
//
// Semantics follow QEMU's target/alpha (fpu_helper.c, translate.c) on top of
// softfloat, because QEMU is the machine we run on: round-to-nearest-even,
// chopped, minus and plus infinity; flush-to-zero of tiny results when /U
// is absent or FPCR.UNFD and UNDZ are both set (translate.c
// gen_qual_flushzero), decided before rounding and without flags (QEMU 10
// keeps float_ftz_before_rounding for Alpha, target/alpha/cpu.c, although
// AARM 4.7.7.11 would flush after rounding; softfloat's "output denormal
// flushed" flag has no FPCR bit); otherwise tininess after rounding (AARM
// 4.7.5, softfloat's default); x87-style NaN selection (larger significand,
// then the positive one); default NaN never needed (every invalid operation
// traps, see fp.cpp). Overflow never produces a result here: OVF is
// never ignored, so the interpreter gives up before writing it.
#pragma once
#include <cstdint>

namespace dcpi::isa::interp::fp {

// Exception flags, bit i = FPCR bit 52 + i.
enum Flag : uint32_t {
  kInv = 1u << 0,
  kDze = 1u << 1,
  kOvf = 1u << 2,
  kUnf = 1u << 3,
  kIne = 1u << 4,
  kIov = 1u << 5,
};

enum class Round : uint8_t { kNearest, kToZero, kDown, kUp };

struct Format {
  int frac_bits;  // 52 (T) or 23 (S)
  int bias;       // 1023 or 127
  int exp_max;    // all-ones exponent: 2047 or 255
};
inline constexpr Format kT{52, 1023, 2047};
inline constexpr Format kS{23, 127, 255};

enum class Class : uint8_t { kZero, kNormal, kDenormal, kInf, kQnan, kSnan };

// A number as sign * m * 2^(e - 62), m normalized with its leading one at
// bit 62 (for kNormal; denormals are rejected by the interpreter before any
// arithmetic, see ieee_input_ok in fp.cpp).
struct Unpacked {
  Class cls;
  bool sign;
  int32_t e;
  uint64_t m;
  uint64_t frac;  // raw fraction field (NaN selection and propagation)
};

inline Unpacked unpack(uint64_t bits, const Format& f) {
  const int width = f.frac_bits + (f.frac_bits == 52 ? 12 : 9);
  Unpacked u{};
  u.sign = (bits >> (width - 1)) & 1;
  const int32_t exp =
      static_cast<int32_t>((bits >> f.frac_bits) & static_cast<uint64_t>(f.exp_max));
  const uint64_t frac = bits & ((uint64_t{1} << f.frac_bits) - 1);
  u.frac = frac;
  if (exp == 0) {
    u.cls = frac == 0 ? Class::kZero : Class::kDenormal;
  } else if (exp == f.exp_max) {
    if (frac == 0)
      u.cls = Class::kInf;
    else
      u.cls = (frac >> (f.frac_bits - 1)) & 1 ? Class::kQnan : Class::kSnan;
  } else {
    u.cls = Class::kNormal;
    u.e = exp - f.bias;
    u.m = (frac | uint64_t{1} << f.frac_bits) << (62 - f.frac_bits);
  }
  return u;
}

inline uint64_t pack_raw(const Format& f, bool sign, uint64_t exp, uint64_t frac) {
  const int width = f.frac_bits + (f.frac_bits == 52 ? 12 : 9);
  return uint64_t{sign} << (width - 1) | exp << f.frac_bits | frac;
}

inline uint64_t shift_right_sticky(uint64_t m, int n) {
  if (n <= 0) return m;
  if (n >= 64) return m != 0;
  return (m >> n) | ((m & ((uint64_t{1} << n) - 1)) != 0);
}

// Rounds and packs sign * m * 2^(e - 62) (m != 0, any position, low bits
// sticky) into format f. ftz: flush tiny results (exponent below the normal
// range before rounding) to a signed zero without flags, as softfloat does.
inline uint64_t round_pack(const Format& f, Round rm, bool ftz, bool sign, int32_t e, uint64_t m,
                           uint32_t& flags) {
  while ((m >> 62) == 0) {  // normalize: leading one at bit 62
    m <<= 1;
    --e;
  }
  if (m >> 63) {
    m = (m >> 1) | (m & 1);
    ++e;
  }
  const int extra = 62 - f.frac_bits;
  const uint64_t extra_mask = (uint64_t{1} << extra) - 1;
  const uint64_t half = uint64_t{1} << (extra - 1);
  auto increment = [&](uint64_t value, uint64_t rest) -> uint64_t {
    if (rest == 0) return 0;
    switch (rm) {
      case Round::kNearest:
        return rest > half || (rest == half && (value & 1));
      case Round::kToZero:
        return 0;
      case Round::kDown:
        return sign;
      case Round::kUp:
        return !sign;
    }
    return 0;
  };
  int32_t biased = e + f.bias;
  if (biased > 0) {
    const uint64_t rest = m & extra_mask;
    uint64_t sig = (m >> extra) + increment(m >> extra, rest);
    if (sig >> (f.frac_bits + 1)) {
      sig >>= 1;
      ++biased;
    }
    if (rest) flags |= kIne;
    if (biased >= f.exp_max) {
      flags |= kOvf | kIne;
      return 0;  // never stored: OVF always traps (interpreter gives up)
    }
    return pack_raw(f, sign, static_cast<uint64_t>(biased),
                    sig & ((uint64_t{1} << f.frac_bits) - 1));
  }
  if (ftz) return pack_raw(f, sign, 0, 0);
  // Tininess after rounding (softfloat's default): tiny unless rounding the
  // normalized significand at exponent 0 carries into the normal range.
  bool tiny = biased < 0;
  if (!tiny) {
    const uint64_t rest = m & extra_mask;
    tiny = (((m >> extra) + increment(m >> extra, rest)) >> (f.frac_bits + 1)) == 0;
  }
  m = shift_right_sticky(m, 1 - biased);
  const uint64_t rest = m & extra_mask;
  const uint64_t sig = (m >> extra) + increment(m >> extra, rest);
  if (rest) {
    flags |= kIne;
    if (tiny) flags |= kUnf;
  }
  // sig may have carried into bit frac_bits: that is exponent field 1.
  return pack_raw(f, sign, 0, 0) + sig;
}

// x87-style choice between two NaNs (QEMU float_2nan_prop_x87); callers
// have already refused signaling NaNs (invalid traps).
inline const Unpacked& pick_nan(const Unpacked& a, const Unpacked& b) {
  const bool a_nan = a.cls == Class::kQnan, b_nan = b.cls == Class::kQnan;
  if (a_nan && !b_nan) return a;
  if (b_nan && !a_nan) return b;
  if (a.frac != b.frac) return a.frac > b.frac ? a : b;
  return (!a.sign && b.sign) ? a : b;
}

inline uint64_t pack_nan(const Format& f, const Unpacked& n) {
  return pack_raw(f, n.sign, static_cast<uint64_t>(f.exp_max), n.frac);
}

inline bool is_nan(const Unpacked& u) { return u.cls == Class::kQnan || u.cls == Class::kSnan; }

// A NaN operand of add, mul or div: a signalling NaN raises invalid (with
// result 0), a quiet one propagates (pick_nan chooses which).
inline uint64_t nan_result(const Format& f, const Unpacked& a, const Unpacked& b, uint32_t& flags) {
  if (a.cls == Class::kSnan || b.cls == Class::kSnan) {
    flags |= kInv;
    return 0;
  }
  return pack_nan(f, pick_nan(a, b));
}

inline uint64_t zero_of_sum(const Format& f, Round rm, bool sa, bool sb) {
  if (sa == sb) return pack_raw(f, sa, 0, 0);
  return pack_raw(f, rm == Round::kDown, 0, 0);
}

// a + b (subtract: a - b). Inputs are zero, normal, infinite or NaN.
inline uint64_t add(const Format& f, Round rm, bool ftz, uint64_t abits, uint64_t bbits,
                    bool subtract, uint32_t& flags) {
  Unpacked a = unpack(abits, f), b = unpack(bbits, f);
  if (is_nan(a) || is_nan(b)) return nan_result(f, a, b, flags);
  if (subtract) b.sign = !b.sign;
  if (a.cls == Class::kInf || b.cls == Class::kInf) {
    if (a.cls == Class::kInf && b.cls == Class::kInf && a.sign != b.sign) {
      flags |= kInv;
      return 0;
    }
    const bool s = a.cls == Class::kInf ? a.sign : b.sign;
    return pack_raw(f, s, static_cast<uint64_t>(f.exp_max), 0);
  }
  if (a.cls == Class::kZero && b.cls == Class::kZero) return zero_of_sum(f, rm, a.sign, b.sign);
  if (a.cls == Class::kZero) return round_pack(f, rm, ftz, b.sign, b.e, b.m, flags);
  if (b.cls == Class::kZero) return round_pack(f, rm, ftz, a.sign, a.e, a.m, flags);
  if (a.e < b.e || (a.e == b.e && a.m < b.m)) {
    const Unpacked t = a;
    a = b;
    b = t;
  }
  const uint64_t bm = shift_right_sticky(b.m, a.e - b.e);
  if (a.sign == b.sign) return round_pack(f, rm, ftz, a.sign, a.e, a.m + bm, flags);
  const uint64_t diff = a.m - bm;
  if (diff == 0) return zero_of_sum(f, rm, a.sign, b.sign);
  return round_pack(f, rm, ftz, a.sign, a.e, diff, flags);
}

inline uint64_t mul(const Format& f, Round rm, bool ftz, uint64_t abits, uint64_t bbits,
                    uint32_t& flags) {
  const Unpacked a = unpack(abits, f), b = unpack(bbits, f);
  if (is_nan(a) || is_nan(b)) return nan_result(f, a, b, flags);
  const bool s = a.sign != b.sign;
  if (a.cls == Class::kInf || b.cls == Class::kInf) {
    if (a.cls == Class::kZero || b.cls == Class::kZero) {
      flags |= kInv;
      return 0;
    }
    return pack_raw(f, s, static_cast<uint64_t>(f.exp_max), 0);
  }
  if (a.cls == Class::kZero || b.cls == Class::kZero) return pack_raw(f, s, 0, 0);
  const unsigned __int128 p = static_cast<unsigned __int128>(a.m) * b.m;
  const uint64_t hi = static_cast<uint64_t>(p >> 62);
  const uint64_t sticky = (static_cast<uint64_t>(p) & ((uint64_t{1} << 62) - 1)) != 0;
  return round_pack(f, rm, ftz, s, a.e + b.e, hi | sticky, flags);
}

inline uint64_t div(const Format& f, Round rm, bool ftz, uint64_t abits, uint64_t bbits,
                    uint32_t& flags) {
  const Unpacked a = unpack(abits, f), b = unpack(bbits, f);
  if (is_nan(a) || is_nan(b)) return nan_result(f, a, b, flags);
  const bool s = a.sign != b.sign;
  if (a.cls == Class::kInf) {
    if (b.cls == Class::kInf) {
      flags |= kInv;
      return 0;
    }
    return pack_raw(f, s, static_cast<uint64_t>(f.exp_max), 0);
  }
  if (b.cls == Class::kInf) return pack_raw(f, s, 0, 0);
  if (b.cls == Class::kZero) {
    flags |= a.cls == Class::kZero ? kInv : kDze;
    return 0;
  }
  if (a.cls == Class::kZero) return pack_raw(f, s, 0, 0);
  uint64_t r = a.m, q = 0;
  for (int i = 62; i >= 0; --i) {
    if (r >= b.m) {
      r -= b.m;
      q |= uint64_t{1} << i;
    }
    r <<= 1;
  }
  return round_pack(f, rm, ftz, s, a.e - b.e, q | (r != 0), flags);
}

inline uint64_t sqrt(const Format& f, Round rm, bool ftz, uint64_t bits, uint32_t& flags) {
  const Unpacked a = unpack(bits, f);
  if (a.cls == Class::kSnan) {
    flags |= kInv;
    return 0;
  }
  if (a.cls == Class::kQnan) return pack_nan(f, a);
  if (a.cls == Class::kZero) return bits;
  if (a.sign) {
    flags |= kInv;
    return 0;
  }
  if (a.cls == Class::kInf) return bits;
  // value = m * 2^(e-62); take s so that e - 62 - s is even.
  const int s = (a.e & 1) ? 63 : 62;
  const unsigned __int128 x = static_cast<unsigned __int128>(a.m) << s;
  unsigned __int128 rem = x, root = 0;
  unsigned __int128 bit = static_cast<unsigned __int128>(1) << 126;
  while (bit > rem) bit >>= 2;
  while (bit != 0) {
    if (rem >= root + bit) {
      rem -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  const int32_t e = ((a.e - 62 - s) >> 1) + 62;
  return round_pack(f, rm, ftz, false, e, static_cast<uint64_t>(root) | (rem != 0), flags);
}

// Integer (two's complement quadword) to S or T.
inline uint64_t from_int(const Format& f, Round rm, uint64_t value, uint32_t& flags) {
  if (value == 0) return 0;
  const bool sign = value >> 63;
  const uint64_t mag = sign ? 0 - value : value;
  return round_pack(f, rm, false, sign, 62, mag, flags);
}

// T to S (cvtts).
inline uint64_t t_to_s(Round rm, bool ftz, uint64_t bits, uint32_t& flags) {
  const Unpacked a = unpack(bits, kT);
  switch (a.cls) {
    case Class::kSnan:
      flags |= kInv;
      return 0;
    case Class::kQnan:
      return pack_raw(kS, a.sign, 255, a.frac >> 29);
    case Class::kInf:
      return pack_raw(kS, a.sign, 255, 0);
    case Class::kZero:
      return pack_raw(kS, a.sign, 0, 0);
    default:
      return round_pack(kS, rm, ftz, a.sign, a.e, a.m, flags);
  }
}

// S to T (cvtst): exact for everything but signaling NaNs.
inline uint64_t s_to_t(uint64_t bits, uint32_t& flags) {
  const Unpacked a = unpack(bits, kS);
  switch (a.cls) {
    case Class::kSnan:
      flags |= kInv;
      return 0;
    case Class::kQnan:
      return pack_raw(kT, a.sign, 2047, a.frac << 29);
    case Class::kInf:
      return pack_raw(kT, a.sign, 2047, 0);
    case Class::kZero:
      return pack_raw(kT, a.sign, 0, 0);
    default:
      return pack_raw(kT, a.sign, static_cast<uint64_t>(a.e + 1023), a.frac << 29);
  }
}

// T to quadword (cvttq), QEMU's do_cvttq: the truncated two's complement
// result even on overflow (IOV|INE).
inline uint64_t t_to_int(Round rm, uint64_t bits, uint32_t& flags) {
  const bool sign = bits >> 63;
  const uint32_t exp = static_cast<uint32_t>(bits >> 52) & 0x7ff;
  uint64_t frac = bits & 0xfffffffffffffull;
  uint64_t ret = 0;
  if (exp == 0) {
    if (frac == 0) return 0;
    flags |= kIne;  // a denormal: never reached (inputs are checked first)
    return 0;
  }
  if (exp == 0x7ff) {
    flags |= kInv;
    return 0;
  }
  frac |= 0x10000000000000ull;
  const int shift = static_cast<int>(exp) - 1023 - 52;
  if (shift >= 0) {
    if (shift < 64) ret = frac << shift;
    if (shift >= 11 && bits != 0xC3E0000000000000ull) flags |= kIov | kIne;
  } else {
    const int right = -shift;
    uint64_t round = 1;
    if (right < 63) {
      ret = frac >> right;
      round = frac << (64 - right);
    }
    if (round) {
      flags |= kIne;
      switch (rm) {
        case Round::kNearest:
          if (round == (uint64_t{1} << 63))
            ret += ret & 1;
          else if (round > (uint64_t{1} << 63))
            ret += 1;
          break;
        case Round::kToZero:
          break;
        case Round::kUp:
          ret += 1 - sign;
          break;
        case Round::kDown:
          ret += sign;
          break;
      }
    }
  }
  return sign ? 0 - ret : ret;
}

// Comparisons on T; `signaling`: any NaN is invalid (cmptlt, cmptle),
// otherwise only signaling NaNs are (cmptun, cmpteq).
enum class Compare : uint8_t { kUnordered, kEqual, kLess, kLessEqual };
inline bool compare(Compare c, uint64_t abits, uint64_t bbits, uint32_t& flags) {
  const Unpacked a = unpack(abits, kT), b = unpack(bbits, kT);
  const bool unordered = is_nan(a) || is_nan(b);
  if (unordered) {
    const bool signaling = c == Compare::kLess || c == Compare::kLessEqual;
    if (signaling || a.cls == Class::kSnan || b.cls == Class::kSnan) flags |= kInv;
    return c == Compare::kUnordered;
  }
  if (c == Compare::kUnordered) return false;
  const bool both_zero = a.cls == Class::kZero && b.cls == Class::kZero;
  // Sign-magnitude to an ordered integer key.
  auto key = [](uint64_t v) -> int64_t {
    return (v >> 63) ? -static_cast<int64_t>(v & 0x7fffffffffffffffull) : static_cast<int64_t>(v);
  };
  const int64_t ka = both_zero ? 0 : key(abits), kb = both_zero ? 0 : key(bbits);
  switch (c) {
    case Compare::kEqual:
      return ka == kb;
    case Compare::kLess:
      return ka < kb;
    case Compare::kLessEqual:
      return ka <= kb;
    default:
      return false;
  }
}

// Register <-> S memory/float32 formats (QEMU float32_to_s_int, s_to_float32_int).
inline uint64_t s_register_from_float32(uint32_t fi) {
  const uint32_t frac = fi & 0x7fffff, sign = fi >> 31;
  const uint32_t exp_msb = (fi >> 30) & 1, exp_low = (fi >> 23) & 0x7f;
  uint32_t exp = (exp_msb << 10) | exp_low;
  if (exp_msb) {
    if (exp_low == 0x7f) exp = 0x7ff;
  } else if (exp_low != 0) {
    exp |= 0x380;
  }
  return uint64_t{sign} << 63 | uint64_t{exp} << 52 | uint64_t{frac} << 29;
}
inline uint32_t float32_from_s_register(uint64_t a) {
  return static_cast<uint32_t>(((a >> 32) & 0xc0000000) | ((a >> 29) & 0x3fffffff));
}

}  // namespace dcpi::isa::interp::fp
