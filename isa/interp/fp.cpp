// Interpreter group: FP operate (opcodes 0x14, 0x16, 0x17 and FP 0x1c). IEEE
// arithmetic is software (isa/interp/softfloat.h): the guest kernel is built
// without FP registers. Exceptions follow QEMU's gen_fp_exc_raise: a trap the
// qualifiers enable gives up with Stop::kArithmetic (seed 001 §2.1.2).
#include "isa/interp/execute.h"
#include "isa/interp/softfloat.h"

namespace dcpi::isa::interp {
namespace {

inline fp::Round rounding(const Instruction& in, uint64_t fpcr) {
  switch (in.fp_rounding) {
    case 0:
      return fp::Round::kToZero;
    case 1:
      return fp::Round::kDown;
    case 2:
      return fp::Round::kNearest;
    default:
      switch ((fpcr >> kFpcrDynShift) & 3) {
        case 0:
          return fp::Round::kToZero;
        case 1:
          return fp::Round::kDown;
        case 2:
          return fp::Round::kNearest;
        default:
          return fp::Round::kUp;
      }
  }
}

// QEMU gen_ieee_input: without /S infinities and NaNs trap (compares: only
// NaNs); denormal inputs trap with or without /S in system mode (we also
// give up when FPCR.DNZ would flush them: a documented conservative choice).
inline bool ieee_input_ok(uint64_t v, bool software, bool compare) {
  const uint64_t exp = (v >> 52) & 0x7ff, frac = v & 0xfffffffffffffull;
  if (exp == 0) return frac == 0;
  if (exp == 0x7ff && !software) return compare && frac == 0;
  return true;
}

// FP arithmetic epilogue: QEMU gen_fp_exc_raise / helper_fp_exc_raise(_s).
DCPI_INTERP_INLINE Stop fp_finish(Execution& x, uint32_t flags, uint64_t result, bool raise) {
  const bool u = x.in.fp_trap & 1, i = x.in.fp_trap & 2, s = x.in.fp_trap & 4;
  uint32_t ignore = 0;
  if (!u) ignore |= fp::kUnf | fp::kIov;
  if (!i) ignore |= fp::kIne;
  if (raise) {
    if (flags & ~ignore) return Stop::kArithmetic;
    if (!s) {
      x.write_fpcr = true;
      x.new_fpcr = x.c.fpcr | uint64_t{flags} << kFpcrStatusShift;
    }
  }
  x.set_fp(result);
  return Stop::kNone;
}

// Flush denormal results to zero: without /U, or with FPCR UNFD and UNDZ.
DCPI_INTERP_INLINE bool fp_ftz(const Execution& x) {
  return !(x.in.fp_trap & 1) || ((x.c.fpcr & kFpcrUnfd) && (x.c.fpcr & kFpcrUndz));
}

DCPI_INTERP_INLINE bool s_denormal(uint64_t s) {
  return fp::unpack(s, fp::kS).cls == fp::Class::kDenormal;
}

// adds/subs/muls/divs and the T forms.
DCPI_INTERP_INLINE Stop ieee_arithmetic(Execution& x, bool sw) {
  const uint64_t fa = x.fa, fb = x.fb;
  if (!ieee_input_ok(fa, sw, false) || !ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
  const bool t = (x.in.function & 0x20) != 0;
  const fp::Format& f = t ? fp::kT : fp::kS;
  uint64_t a = fa, b = fb;
  if (!t) {
    a = fp::float32_from_s_register(fa);
    b = fp::float32_from_s_register(fb);
    if (s_denormal(a) || s_denormal(b)) return Stop::kArithmetic;
  }
  const fp::Round rm = rounding(x.in, x.c.fpcr);
  const bool ftz = fp_ftz(x);
  uint32_t flags = 0;
  uint64_t r = 0;
  switch (x.in.function & 0x3) {
    case 0:
      r = fp::add(f, rm, ftz, a, b, false, flags);
      break;
    case 1:
      r = fp::add(f, rm, ftz, a, b, true, flags);
      break;
    case 2:
      r = fp::mul(f, rm, ftz, a, b, flags);
      break;
    default:
      r = fp::div(f, rm, ftz, a, b, flags);
      break;
  }
  if (!t) r = fp::s_register_from_float32(static_cast<uint32_t>(r));
  return fp_finish(x, flags, r, true);
}

// sqrts/sqrtt.
DCPI_INTERP_INLINE Stop ieee_sqrt(Execution& x, bool sw) {
  const uint64_t fb = x.fb;
  if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
  uint32_t flags = 0;
  uint64_t r;
  if (x.in.operation == Operation::kSqrtt) {
    r = fp::sqrt(fp::kT, rounding(x.in, x.c.fpcr), fp_ftz(x), fb, flags);
  } else {
    const uint32_t s = fp::float32_from_s_register(fb);
    if (s_denormal(s)) return Stop::kArithmetic;
    r = fp::s_register_from_float32(
        static_cast<uint32_t>(fp::sqrt(fp::kS, rounding(x.in, x.c.fpcr), fp_ftz(x), s, flags)));
  }
  return fp_finish(x, flags, r, true);
}

// cvtql and its /v, /sv forms: the qualifier bits are in the 11-bit
// function, not the trap field.
DCPI_INTERP_INLINE Stop convert_quad_to_long(Execution& x) {
  const uint64_t fb = x.fb;
  uint32_t flags = 0;
  if (fb != sext32(fb)) flags = fp::kIov | fp::kIne;
  const uint64_t r = ((fb & 0xc0000000) << 32) | ((fb & 0x3fffffff) << 29);
  const uint32_t fn11 = (x.word >> 5) & 0x7ff;
  uint32_t ignore = fp::kIne;
  if (!(fn11 & 0x100)) ignore |= fp::kUnf | fp::kIov;
  if (flags & ~ignore) return Stop::kArithmetic;
  if (!(fn11 & 0x400)) {
    x.write_fpcr = true;
    x.new_fpcr = x.c.fpcr | uint64_t{flags} << kFpcrStatusShift;
  }
  x.set_fp(r);
  x.out.fp_values = 0;  // integer formats in FP registers
  return Stop::kNone;
}

}  // namespace

DCPI_INTERP_GROUP Stop execute_fp_arithmetic(Execution& x) {
  const uint64_t fa = x.fa, fb = x.fb;
  const bool sw = x.in.fp_trap & 4;
  switch (x.in.operation) {
    case Operation::kSqrts:
    case Operation::kSqrtt:
      return ieee_sqrt(x, sw);
    case Operation::kAdds:
    case Operation::kSubs:
    case Operation::kMuls:
    case Operation::kDivs:
    case Operation::kAddt:
    case Operation::kSubt:
    case Operation::kMult:
    case Operation::kDivt:
      return ieee_arithmetic(x, sw);
    case Operation::kCmptun:
    case Operation::kCmpteq:
    case Operation::kCmptlt:
    case Operation::kCmptle: {
      if (!ieee_input_ok(fa, sw, true) || !ieee_input_ok(fb, sw, true)) return Stop::kArithmetic;
      static constexpr fp::Compare kinds[] = {fp::Compare::kUnordered, fp::Compare::kEqual,
                                              fp::Compare::kLess, fp::Compare::kLessEqual};
      uint32_t flags = 0;
      const bool r = fp::compare(kinds[x.in.function & 3], fa, fb, flags);
      return fp_finish(x, flags, r ? uint64_t{0x4000000000000000} : 0, true);
    }
    case Operation::kCvtts: {
      if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      uint32_t flags = 0;
      const uint64_t r = fp::t_to_s(rounding(x.in, x.c.fpcr), fp_ftz(x), fb, flags);
      return fp_finish(x, flags, fp::s_register_from_float32(static_cast<uint32_t>(r)), true);
    }
    case Operation::kCvtst: {
      if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      const uint32_t s = fp::float32_from_s_register(fb);
      if (s_denormal(s)) return Stop::kArithmetic;
      uint32_t flags = 0;
      const uint64_t r = fp::s_to_t(s, flags);
      return fp_finish(x, flags, r, true);
    }
    case Operation::kCvttq: {
      if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      uint32_t flags = 0;
      const uint64_t r = fp::t_to_int(rounding(x.in, x.c.fpcr), fb, flags);
      if (const Stop st = fp_finish(x, flags, r, true); st != Stop::kNone) return st;
      x.out.fp_values = kFpB;  // the result is a quadword integer in Fc
      return Stop::kNone;
    }
    case Operation::kCvtqs:
    case Operation::kCvtqt: {
      // QEMU gen_ieee_intcvt: exceptions are raised only with /I (inexact).
      uint32_t flags = 0;
      const fp::Round rm = rounding(x.in, x.c.fpcr);
      uint64_t r;
      if (x.in.operation == Operation::kCvtqt) {
        r = fp::from_int(fp::kT, rm, fb, flags);
      } else {
        r = fp::s_register_from_float32(static_cast<uint32_t>(fp::from_int(fp::kS, rm, fb, flags)));
      }
      if (const Stop st = fp_finish(x, flags, r, (x.in.fp_trap & 2) != 0); st != Stop::kNone)
        return st;
      x.out.fp_values = kFpResult;  // Fb holds a quadword integer
      return Stop::kNone;
    }
    default:
      return Stop::kUnimplemented;
  }
}

DCPI_INTERP_GROUP Stop execute_fp_move(Execution& x) {
  const uint64_t fa = x.fa, fb = x.fb;
  switch (x.in.operation) {
    case Operation::kItofs:
      x.set_fp(fp::s_register_from_float32(static_cast<uint32_t>(x.ra)));
      x.out.a = x.ra;
      x.out.fp_values = kFpResult;
      break;
    case Operation::kItoft:
      x.set_fp(x.ra);
      x.out.a = x.ra;
      x.out.fp_values = kFpResult;
      break;
    case Operation::kFtoit:
      x.set_int(fa);
      x.out.fp_values = kFpA;
      x.out.a = fa;
      x.c.fp_touched = true;
      break;
    case Operation::kFtois:
      x.set_int(sext32(fp::float32_from_s_register(fa)));
      x.out.fp_values = kFpA;
      x.out.a = fa;
      x.c.fp_touched = true;
      break;
    case Operation::kCvtlq:
      x.set_fp((static_cast<uint64_t>(static_cast<int64_t>(fb) >> 32) & ~uint64_t{0x3fffffff}) |
               ((fb >> 29) & 0x3fffffff));
      x.out.fp_values = 0;  // integer formats in FP registers
      break;
    case Operation::kCvtql:
    case Operation::kCvtqlV:
    case Operation::kCvtqlSv:
      return convert_quad_to_long(x);
    case Operation::kCpys:
      x.set_fp((fa & (uint64_t{1} << 63)) | (fb & ~(uint64_t{1} << 63)));
      break;
    case Operation::kCpysn:
      x.set_fp((~fa & (uint64_t{1} << 63)) | (fb & ~(uint64_t{1} << 63)));
      break;
    case Operation::kCpyse:
      x.set_fp((fa & 0xfff0000000000000ull) | (fb & 0x000fffffffffffffull));
      break;
    case Operation::kMtFpcr:
      x.write_fpcr = true;
      x.new_fpcr = fa & 0xffffffff00000000ull;  // QEMU keeps FPCR<63:32> only
      x.out.fp_values = 0;                      // FPCR bits, not numbers
      x.out.a = fa;
      x.out.result = x.new_fpcr;
      x.c.fp_touched = true;
      break;
    case Operation::kMfFpcr:
      x.write_fp = x.in.ra;
      x.value = x.c.fpcr;
      x.out.fp_values = 0;  // FPCR bits, not numbers
      break;
    case Operation::kFcmoveq:
    case Operation::kFcmovne:
    case Operation::kFcmovlt:
    case Operation::kFcmovge:
    case Operation::kFcmovle:
    case Operation::kFcmovgt: {
      static constexpr unsigned kCond[] = {0, 3, 1, 4, 2, 5};  // eq ne lt ge le gt
      x.set_fp(fp_condition(kCond[x.in.function - 0x2a], fa) ? fb : x.c.f[x.in.rc]);
      break;
    }
    default:
      return Stop::kUnimplemented;
  }
  return Stop::kNone;
}

}  // namespace dcpi::isa::interp
