// The Alpha interpreter of seed 001 §2.1.2: runs the next instructions of an
// interrupted context, advancing it exactly as the processor would, and
// gives up cleanly -- leaving the context as it was after the last
// completed instruction -- on anything it must not emulate at high IPL.
// Decoding comes from isa/decode.h (the one ISA description). Freestanding,
// header-only, no division, no FPU (IEEE arithmetic in isa/interp/softfloat.h).
//
// Memory is a policy object supplied by the caller:
//   bool load(uint64_t va, unsigned bytes, uint64_t& value);   // aligned, zero-extended
//   bool store(uint64_t va, unsigned bytes, uint64_t value);   // aligned
//   uint64_t cycles();                                         // RPCC value
// load/store return false for an access the hardware would fault on; the
// kernel's implementation probes the page tables (kernel/value_memory.h).
#pragma once
#include <cstdint>

#include "isa/decode.h"
#include "isa/interp/context.h"
#include "isa/interp/softfloat.h"
#include "isa/operands.h"

namespace dcpi::isa::interp {

// AMASK bits and IMPLVER of QEMU's default Alpha CPU (EV67: BWX, FIX, CIX,
// MVI, precise traps, prefetch-with-modify).
inline constexpr uint64_t kAmaskImplemented = 0x1307;
inline constexpr uint64_t kImplver = 2;

// FPCR fields (Alpha Architecture Handbook 4.7.8).
inline constexpr uint64_t kFpcrUndz = uint64_t{1} << 60;
inline constexpr uint64_t kFpcrUnfd = uint64_t{1} << 61;
inline constexpr int kFpcrDynShift = 58;
inline constexpr int kFpcrStatusShift = 52;

namespace detail {

inline uint64_t sext32(uint64_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
}
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
inline uint64_t word_of(uint64_t v, int i) { return (v >> (i * 16)) & 0xffff; }

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

// FP condition on a register image, -0 treated as +0 (QEMU gen_fold_mzero).
inline bool fp_condition(unsigned opcode_low3, uint64_t v) {
  const int64_t s = static_cast<int64_t>(v);
  const bool zero = (v << 1) == 0;
  switch (opcode_low3) {  // fb* opcodes 0x31..0x37 / fcmov functions 0x2a..0x2f
    case 0:
      return zero;  // eq
    case 1:
      return !zero && s < 0;  // lt
    case 2:
      return zero || s < 0;  // le
    case 3:
      return !zero;  // ne
    case 4:
      return zero || s >= 0;  // ge
    case 5:
      return !zero && s > 0;  // gt
  }
  return false;
}

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

}  // namespace detail

// Interprets one instruction. On Stop::kNone the context has advanced and
// `step` describes the instruction; otherwise nothing changed.
template <class Memory>
Stop step(Context& c, Memory& mem, Step& out) {
  using namespace detail;
  const uint64_t pc = c.pc;
  uint64_t word64 = 0;
  if ((pc & 3) != 0) return Stop::kMemoryFault;
  // Instruction fetch: a fault here is the hardware's to take.
  if (!mem.load(pc & ~uint64_t{3}, 4, word64)) return Stop::kMemoryFault;
  const uint32_t word = static_cast<uint32_t>(word64);
  const Instruction in = decode(word, DecodeMode::kUser);
  out = Step{};
  out.pc = pc;
  out.word = word;
  out.reads = fields_read(in.operation);
  uint64_t next = pc + 4;
  const uint64_t ra = c.r[in.ra], rb_reg = c.r[in.rb];
  const uint64_t rb = in.has_literal ? in.literal : rb_reg;
  const uint64_t fa = c.f[in.ra], fb = c.f[in.rb];
  // Pending register write (integer or FP), applied after every check.
  int write_int = -1, write_fp = -1;
  uint64_t value = 0;
  bool write_fpcr = false;
  uint64_t new_fpcr = c.fpcr;
  out.a = ra;
  out.b = rb;

  auto overflow32 = [](uint64_t wide) { return sext32(wide) != wide; };
  auto set_int = [&](uint64_t v) {
    write_int = in.rc;
    value = v;
  };
  auto set_fp = [&](uint64_t v) {
    write_fp = in.rc;
    value = v;
    out.fp_values = kFpA | kFpB | kFpResult;
    out.a = fa;
    out.b = fb;
  };
  const uint64_t disp = static_cast<uint64_t>(static_cast<int64_t>(in.displacement));
  const uint64_t ea = rb_reg + disp;

  // FP arithmetic epilogue: QEMU gen_fp_exc_raise / helper_fp_exc_raise(_s).
  auto fp_finish = [&](uint32_t flags, uint64_t result, bool raise) -> Stop {
    const bool u = in.fp_trap & 1, i = in.fp_trap & 2, s = in.fp_trap & 4;
    uint32_t ignore = 0;
    if (!u) ignore |= fp::kUnf | fp::kIov;
    if (!i) ignore |= fp::kIne;
    if (raise) {
      if (flags & ~ignore) return Stop::kArithmetic;
      if (!s) {
        write_fpcr = true;
        new_fpcr = c.fpcr | uint64_t{flags} << kFpcrStatusShift;
      }
    }
    set_fp(result);
    return Stop::kNone;
  };
  auto fp_ftz = [&]() {
    return !(in.fp_trap & 1) || ((c.fpcr & kFpcrUnfd) && (c.fpcr & kFpcrUndz));
  };
  const bool sw = in.fp_trap & 4;

  switch (in.operation) {
    // ---- memory format, integer
    case Operation::kLda:
      set_int(ea);
      write_int = in.ra;
      break;
    case Operation::kLdah:
      set_int(rb_reg + (disp << 16));
      write_int = in.ra;
      break;
    case Operation::kLdbu:
    case Operation::kLdwu:
    case Operation::kLdl:
    case Operation::kLdq:
    case Operation::kLdlL:
    case Operation::kLdqL:
    case Operation::kLdqU:
    case Operation::kLds:
    case Operation::kLdt: {
      // A load into R31/F31 is a prefetch: no access, no fault (QEMU skips it).
      if (in.ra == 31) break;
      const unsigned bytes = in.info().memory_bytes;
      uint64_t va = ea;
      if (in.operation == Operation::kLdqU) va &= ~uint64_t{7};
      if (va & (bytes - 1)) return Stop::kUnaligned;
      uint64_t v = 0;
      const uint64_t t0 = mem.cycles();
      if (!mem.load(va, bytes, v)) return Stop::kMemoryFault;
      out.latency = mem.cycles() - t0;
      out.has_memory = true;
      out.load = true;
      out.va = va;
      if (in.operation == Operation::kLdl || in.operation == Operation::kLdlL) v = sext32(v);
      if (in.operation == Operation::kLds || in.operation == Operation::kLdt) {
        if (in.operation == Operation::kLds)
          v = fp::s_register_from_float32(static_cast<uint32_t>(v));
        write_fp = in.ra;
        out.fp_values = kFpResult;  // a is the destination, b the integer base
      } else {
        write_int = in.ra;
      }
      value = v;
      break;
    }
    case Operation::kStb:
    case Operation::kStw:
    case Operation::kStl:
    case Operation::kStq:
    case Operation::kStqU:
    case Operation::kSts:
    case Operation::kStt: {
      const unsigned bytes = in.info().memory_bytes;
      uint64_t va = ea;
      if (in.operation == Operation::kStqU) va &= ~uint64_t{7};
      if (va & (bytes - 1)) return Stop::kUnaligned;
      uint64_t v = ra;
      if (in.operation == Operation::kSts) v = fp::float32_from_s_register(fa);
      if (in.operation == Operation::kStt) v = fa;
      if (in.operation == Operation::kSts || in.operation == Operation::kStt) {
        out.fp_values = kFpA | kFpResult;  // Fa and the value stored; b is the integer base
        out.a = fa;
        c.fp_touched = true;
      }
      const uint64_t t0 = mem.cycles();
      if (!mem.store(va, bytes, v)) return Stop::kMemoryFault;
      out.latency = mem.cycles() - t0;
      out.has_memory = true;
      out.va = va;
      out.result = v;
      break;
    }
    case Operation::kStlC:
    case Operation::kStqC:
      return Stop::kStoreConditional;

    // ---- integer arithmetic
    case Operation::kAddl:
      set_int(sext32(ra + rb));
      break;
    case Operation::kS4addl:
      set_int(sext32((ra << 2) + rb));
      break;
    case Operation::kS8addl:
      set_int(sext32((ra << 3) + rb));
      break;
    case Operation::kSubl:
      set_int(sext32(ra - rb));
      break;
    case Operation::kS4subl:
      set_int(sext32((ra << 2) - rb));
      break;
    case Operation::kS8subl:
      set_int(sext32((ra << 3) - rb));
      break;
    case Operation::kAddq:
      set_int(ra + rb);
      break;
    case Operation::kS4addq:
      set_int((ra << 2) + rb);
      break;
    case Operation::kS8addq:
      set_int((ra << 3) + rb);
      break;
    case Operation::kSubq:
      set_int(ra - rb);
      break;
    case Operation::kS4subq:
      set_int((ra << 2) - rb);
      break;
    case Operation::kS8subq:
      set_int((ra << 3) - rb);
      break;
    case Operation::kAddlV: {
      const uint64_t wide = sext32(ra) + sext32(rb);
      if (overflow32(wide)) return Stop::kArithmetic;
      set_int(wide);
      break;
    }
    case Operation::kSublV: {
      const uint64_t wide = sext32(ra) - sext32(rb);
      if (overflow32(wide)) return Stop::kArithmetic;
      set_int(wide);
      break;
    }
    case Operation::kAddqV: {
      const uint64_t r = ra + rb;
      if (((ra ^ r) & (rb ^ r)) >> 63) return Stop::kArithmetic;
      set_int(r);
      break;
    }
    case Operation::kSubqV: {
      const uint64_t r = ra - rb;
      if (((ra ^ rb) & (ra ^ r)) >> 63) return Stop::kArithmetic;
      set_int(r);
      break;
    }
    case Operation::kCmpbge: {
      uint64_t r = 0;
      for (int i = 0; i < 8; ++i) r |= uint64_t{byte_of(ra, i) >= byte_of(rb, i)} << i;
      set_int(r);
      break;
    }
    case Operation::kCmpult:
      set_int(ra < rb);
      break;
    case Operation::kCmpule:
      set_int(ra <= rb);
      break;
    case Operation::kCmpeq:
      set_int(ra == rb);
      break;
    case Operation::kCmplt:
      set_int(static_cast<int64_t>(ra) < static_cast<int64_t>(rb));
      break;
    case Operation::kCmple:
      set_int(static_cast<int64_t>(ra) <= static_cast<int64_t>(rb));
      break;

    // ---- logical, conditional move
    case Operation::kAnd:
      set_int(ra & rb);
      break;
    case Operation::kBic:
      set_int(ra & ~rb);
      break;
    case Operation::kBis:
      set_int(ra | rb);
      break;
    case Operation::kOrnot:
      set_int(ra | ~rb);
      break;
    case Operation::kXor:
      set_int(ra ^ rb);
      break;
    case Operation::kEqv:
      set_int(ra ^ ~rb);
      break;
    case Operation::kAmask:
      set_int(rb & ~kAmaskImplemented);
      break;
    case Operation::kImplver:
      set_int(kImplver);
      break;
    case Operation::kCmovlbs:
    case Operation::kCmovlbc:
    case Operation::kCmoveq:
    case Operation::kCmovne:
    case Operation::kCmovlt:
    case Operation::kCmovge:
    case Operation::kCmovle:
    case Operation::kCmovgt: {
      const int64_t s = static_cast<int64_t>(ra);
      bool cond = false;
      switch (in.operation) {
        case Operation::kCmovlbs:
          cond = ra & 1;
          break;
        case Operation::kCmovlbc:
          cond = !(ra & 1);
          break;
        case Operation::kCmoveq:
          cond = s == 0;
          break;
        case Operation::kCmovne:
          cond = s != 0;
          break;
        case Operation::kCmovlt:
          cond = s < 0;
          break;
        case Operation::kCmovge:
          cond = s >= 0;
          break;
        case Operation::kCmovle:
          cond = s <= 0;
          break;
        default:
          cond = s > 0;
          break;
      }
      set_int(cond ? rb : c.r[in.rc]);
      break;
    }

    // ---- shifts and byte manipulation
    case Operation::kSll:
      set_int(ra << (rb & 63));
      break;
    case Operation::kSrl:
      set_int(ra >> (rb & 63));
      break;
    case Operation::kSra:
      set_int(static_cast<uint64_t>(static_cast<int64_t>(ra) >> (rb & 63)));
      break;
    case Operation::kZap:
      set_int(zap(ra, rb));
      break;
    case Operation::kZapnot:
      set_int(zapnot(ra, rb));
      break;
    case Operation::kExtbl:
      set_int(ext_low(ra, rb, 0x01));
      break;
    case Operation::kExtwl:
      set_int(ext_low(ra, rb, 0x03));
      break;
    case Operation::kExtll:
      set_int(ext_low(ra, rb, 0x0f));
      break;
    case Operation::kExtql:
      set_int(ext_low(ra, rb, 0xff));
      break;
    case Operation::kExtwh:
      set_int(ext_high(ra, rb, 0x03));
      break;
    case Operation::kExtlh:
      set_int(ext_high(ra, rb, 0x0f));
      break;
    case Operation::kExtqh:
      set_int(ext_high(ra, rb, 0xff));
      break;
    case Operation::kInsbl:
      set_int(ins_low(ra, rb, 0x01));
      break;
    case Operation::kInswl:
      set_int(ins_low(ra, rb, 0x03));
      break;
    case Operation::kInsll:
      set_int(ins_low(ra, rb, 0x0f));
      break;
    case Operation::kInsql:
      set_int(ins_low(ra, rb, 0xff));
      break;
    case Operation::kInswh:
      set_int(ins_high(ra, rb, 0x03));
      break;
    case Operation::kInslh:
      set_int(ins_high(ra, rb, 0x0f));
      break;
    case Operation::kInsqh:
      set_int(ins_high(ra, rb, 0xff));
      break;
    case Operation::kMskbl:
      set_int(msk_low(ra, rb, 0x01));
      break;
    case Operation::kMskwl:
      set_int(msk_low(ra, rb, 0x03));
      break;
    case Operation::kMskll:
      set_int(msk_low(ra, rb, 0x0f));
      break;
    case Operation::kMskql:
      set_int(msk_low(ra, rb, 0xff));
      break;
    case Operation::kMskwh:
      set_int(msk_high(ra, rb, 0x03));
      break;
    case Operation::kMsklh:
      set_int(msk_high(ra, rb, 0x0f));
      break;
    case Operation::kMskqh:
      set_int(msk_high(ra, rb, 0xff));
      break;

    // ---- multiply
    case Operation::kMull:
      set_int(sext32(ra * rb));
      break;
    case Operation::kMulq:
      set_int(ra * rb);
      break;
    case Operation::kUmulh:
      set_int(static_cast<uint64_t>((static_cast<unsigned __int128>(ra) * rb) >> 64));
      break;
    case Operation::kMullV: {
      const uint64_t wide = static_cast<uint64_t>(static_cast<int64_t>(sext32(ra)) *
                                                  static_cast<int64_t>(sext32(rb)));
      if (overflow32(wide)) return Stop::kArithmetic;
      set_int(wide);
      break;
    }
    case Operation::kMulqV: {
      // Signed high half from umulh, without a 128-bit signed multiply libcall.
      const uint64_t low = ra * rb;
      uint64_t high = static_cast<uint64_t>((static_cast<unsigned __int128>(ra) * rb) >> 64);
      if (ra >> 63) high -= rb;
      if (rb >> 63) high -= ra;
      if (high != static_cast<uint64_t>(static_cast<int64_t>(low) >> 63)) return Stop::kArithmetic;
      set_int(low);
      break;
    }

    // ---- BWX, CIX, MVI
    case Operation::kSextb:
      set_int(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(rb))));
      break;
    case Operation::kSextw:
      set_int(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(rb))));
      break;
    case Operation::kCtpop:
      set_int(static_cast<uint64_t>(popcount(rb)));
      break;
    case Operation::kCtlz:
      set_int(static_cast<uint64_t>(clz(rb)));
      break;
    case Operation::kCttz:
      set_int(static_cast<uint64_t>(ctz(rb)));
      break;
    case Operation::kPerr: {
      uint64_t sum = 0;
      for (int i = 0; i < 8; ++i) {
        const uint64_t x = byte_of(ra, i), y = byte_of(rb, i);
        sum += x > y ? x - y : y - x;
      }
      set_int(sum);
      break;
    }
    case Operation::kPklb:
      set_int(byte_of(rb, 0) | byte_of(rb, 4) << 8);
      break;
    case Operation::kPkwb:
      set_int(byte_of(rb, 0) | byte_of(rb, 2) << 8 | byte_of(rb, 4) << 16 | byte_of(rb, 6) << 24);
      break;
    case Operation::kUnpkbl:
      set_int(byte_of(rb, 0) | byte_of(rb, 1) << 32);
      break;
    case Operation::kUnpkbw:
      set_int(byte_of(rb, 0) | byte_of(rb, 1) << 16 | byte_of(rb, 2) << 32 | byte_of(rb, 3) << 48);
      break;
    case Operation::kMinsb8:
      set_int(minmax<false, true, 8>(ra, rb));
      break;
    case Operation::kMinsw4:
      set_int(minmax<false, true, 16>(ra, rb));
      break;
    case Operation::kMinub8:
      set_int(minmax<false, false, 8>(ra, rb));
      break;
    case Operation::kMinuw4:
      set_int(minmax<false, false, 16>(ra, rb));
      break;
    case Operation::kMaxsb8:
      set_int(minmax<true, true, 8>(ra, rb));
      break;
    case Operation::kMaxsw4:
      set_int(minmax<true, true, 16>(ra, rb));
      break;
    case Operation::kMaxub8:
      set_int(minmax<true, false, 8>(ra, rb));
      break;
    case Operation::kMaxuw4:
      set_int(minmax<true, false, 16>(ra, rb));
      break;

    // ---- FIX
    case Operation::kItofs:
      set_fp(fp::s_register_from_float32(static_cast<uint32_t>(ra)));
      write_fp = in.rc;
      out.a = ra;
      out.fp_values = kFpResult;
      break;
    case Operation::kItoft:
      set_fp(ra);
      out.a = ra;
      out.fp_values = kFpResult;
      break;
    case Operation::kFtoit:
      set_int(fa);
      out.fp_values = kFpA;
      out.a = fa;
      c.fp_touched = true;
      break;
    case Operation::kFtois: {
      const uint32_t s = fp::float32_from_s_register(fa);
      set_int(sext32(s));
      out.fp_values = kFpA;
      out.a = fa;
      c.fp_touched = true;
      break;
    }
    case Operation::kSqrts:
    case Operation::kSqrtt: {
      if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      uint32_t flags = 0;
      uint64_t r;
      if (in.operation == Operation::kSqrtt) {
        r = fp::sqrt(fp::kT, rounding(in, c.fpcr), fp_ftz(), fb, flags);
      } else {
        const uint32_t s = fp::float32_from_s_register(fb);
        if (fp::unpack(s, fp::kS).cls == fp::Class::kDenormal) return Stop::kArithmetic;
        r = fp::s_register_from_float32(
            static_cast<uint32_t>(fp::sqrt(fp::kS, rounding(in, c.fpcr), fp_ftz(), s, flags)));
      }
      if (const Stop st = fp_finish(flags, r, true); st != Stop::kNone) return st;
      break;
    }

    // ---- IEEE arithmetic
    case Operation::kAdds:
    case Operation::kSubs:
    case Operation::kMuls:
    case Operation::kDivs:
    case Operation::kAddt:
    case Operation::kSubt:
    case Operation::kMult:
    case Operation::kDivt: {
      if (!ieee_input_ok(fa, sw, false) || !ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      const bool t = (in.function & 0x20) != 0;
      const fp::Format& f = t ? fp::kT : fp::kS;
      uint64_t x = fa, y = fb;
      if (!t) {
        x = fp::float32_from_s_register(fa);
        y = fp::float32_from_s_register(fb);
        if (fp::unpack(x, f).cls == fp::Class::kDenormal ||
            fp::unpack(y, f).cls == fp::Class::kDenormal)
          return Stop::kArithmetic;
      }
      const fp::Round rm = rounding(in, c.fpcr);
      const bool ftz = fp_ftz();
      uint32_t flags = 0;
      uint64_t r = 0;
      switch (in.function & 0x3) {
        case 0:
          r = fp::add(f, rm, ftz, x, y, false, flags);
          break;
        case 1:
          r = fp::add(f, rm, ftz, x, y, true, flags);
          break;
        case 2:
          r = fp::mul(f, rm, ftz, x, y, flags);
          break;
        default:
          r = fp::div(f, rm, ftz, x, y, flags);
          break;
      }
      if (!t) r = fp::s_register_from_float32(static_cast<uint32_t>(r));
      if (const Stop st = fp_finish(flags, r, true); st != Stop::kNone) return st;
      break;
    }
    case Operation::kCmptun:
    case Operation::kCmpteq:
    case Operation::kCmptlt:
    case Operation::kCmptle: {
      if (!ieee_input_ok(fa, sw, true) || !ieee_input_ok(fb, sw, true)) return Stop::kArithmetic;
      static constexpr fp::Compare kinds[] = {fp::Compare::kUnordered, fp::Compare::kEqual,
                                              fp::Compare::kLess, fp::Compare::kLessEqual};
      uint32_t flags = 0;
      const bool r = fp::compare(kinds[in.function & 3], fa, fb, flags);
      if (const Stop st = fp_finish(flags, r ? uint64_t{0x4000000000000000} : 0, true);
          st != Stop::kNone)
        return st;
      break;
    }
    case Operation::kCvtts: {
      if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      uint32_t flags = 0;
      const uint64_t r = fp::t_to_s(rounding(in, c.fpcr), fp_ftz(), fb, flags);
      if (const Stop st =
              fp_finish(flags, fp::s_register_from_float32(static_cast<uint32_t>(r)), true);
          st != Stop::kNone)
        return st;
      break;
    }
    case Operation::kCvtst: {
      if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      const uint32_t s = fp::float32_from_s_register(fb);
      if (fp::unpack(s, fp::kS).cls == fp::Class::kDenormal) return Stop::kArithmetic;
      uint32_t flags = 0;
      const uint64_t r = fp::s_to_t(s, flags);
      if (const Stop st = fp_finish(flags, r, true); st != Stop::kNone) return st;
      break;
    }
    case Operation::kCvttq: {
      if (!ieee_input_ok(fb, sw, false)) return Stop::kArithmetic;
      uint32_t flags = 0;
      const uint64_t r = fp::t_to_int(rounding(in, c.fpcr), fb, flags);
      if (const Stop st = fp_finish(flags, r, true); st != Stop::kNone) return st;
      out.fp_values = kFpB;  // the result is a quadword integer in Fc
      break;
    }
    case Operation::kCvtqs:
    case Operation::kCvtqt: {
      // QEMU gen_ieee_intcvt: exceptions are raised only with /I (inexact).
      uint32_t flags = 0;
      const fp::Round rm = rounding(in, c.fpcr);
      uint64_t r;
      if (in.operation == Operation::kCvtqt) {
        r = fp::from_int(fp::kT, rm, fb, flags);
      } else {
        r = fp::s_register_from_float32(static_cast<uint32_t>(fp::from_int(fp::kS, rm, fb, flags)));
      }
      if (const Stop st = fp_finish(flags, r, (in.fp_trap & 2) != 0); st != Stop::kNone) return st;
      out.fp_values = kFpResult;  // Fb holds a quadword integer
      break;
    }

    // ---- FP, data type independent (opcode 0x17)
    case Operation::kCvtlq:
      set_fp((static_cast<uint64_t>(static_cast<int64_t>(fb) >> 32) & ~uint64_t{0x3fffffff}) |
             ((fb >> 29) & 0x3fffffff));
      out.fp_values = 0;  // integer formats in FP registers
      break;
    case Operation::kCvtql:
    case Operation::kCvtqlV:
    case Operation::kCvtqlSv: {
      uint32_t flags = 0;
      if (fb != sext32(fb)) flags = fp::kIov | fp::kIne;
      const uint64_t r = ((fb & 0xc0000000) << 32) | ((fb & 0x3fffffff) << 29);
      // The qualifier bits are in the 11-bit function, not the trap field.
      const uint32_t fn11 = (word >> 5) & 0x7ff;
      uint32_t ignore = fp::kIne;
      if (!(fn11 & 0x100)) ignore |= fp::kUnf | fp::kIov;
      if (flags & ~ignore) return Stop::kArithmetic;
      if (!(fn11 & 0x400)) {
        write_fpcr = true;
        new_fpcr = c.fpcr | uint64_t{flags} << kFpcrStatusShift;
      }
      set_fp(r);
      out.fp_values = 0;  // integer formats in FP registers
      break;
    }
    case Operation::kCpys:
      set_fp((fa & (uint64_t{1} << 63)) | (fb & ~(uint64_t{1} << 63)));
      break;
    case Operation::kCpysn:
      set_fp((~fa & (uint64_t{1} << 63)) | (fb & ~(uint64_t{1} << 63)));
      break;
    case Operation::kCpyse:
      set_fp((fa & 0xfff0000000000000ull) | (fb & 0x000fffffffffffffull));
      break;
    case Operation::kMtFpcr:
      write_fpcr = true;
      new_fpcr = fa & 0xffffffff00000000ull;  // QEMU keeps FPCR<63:32> only
      out.fp_values = 0;                      // FPCR bits, not numbers
      out.a = fa;
      out.result = new_fpcr;
      c.fp_touched = true;
      break;
    case Operation::kMfFpcr:
      write_fp = in.ra;
      value = c.fpcr;
      out.fp_values = 0;  // FPCR bits, not numbers
      break;
    case Operation::kFcmoveq:
    case Operation::kFcmovne:
    case Operation::kFcmovlt:
    case Operation::kFcmovge:
    case Operation::kFcmovle:
    case Operation::kFcmovgt: {
      static constexpr unsigned kCond[] = {0, 3, 1, 4, 2, 5};  // eq ne lt ge le gt
      set_fp(fp_condition(kCond[in.function - 0x2a], fa) ? fb : c.f[in.rc]);
      break;
    }

    // ---- miscellaneous
    case Operation::kTrapb:
    case Operation::kExcb:
    case Operation::kMb:
    case Operation::kWmb:
    case Operation::kFetch:
    case Operation::kFetchM:
    case Operation::kEcb:
    case Operation::kWh64:
    case Operation::kWh64en:
      break;  // no architectural effect on QEMU (wh64 does not zero there either)
    case Operation::kRpcc:
      write_int = in.ra;
      value = mem.cycles();
      break;

    // ---- branches and jumps
    case Operation::kBr:
    case Operation::kBsr:
      write_int = in.ra;
      value = pc + 4;
      next = pc + 4 + disp;
      break;
    case Operation::kBlbc:
    case Operation::kBeq:
    case Operation::kBlt:
    case Operation::kBle:
    case Operation::kBlbs:
    case Operation::kBne:
    case Operation::kBge:
    case Operation::kBgt: {
      const int64_t s = static_cast<int64_t>(ra);
      bool taken = false;
      switch (in.operation) {
        case Operation::kBlbc:
          taken = !(ra & 1);
          break;
        case Operation::kBeq:
          taken = s == 0;
          break;
        case Operation::kBlt:
          taken = s < 0;
          break;
        case Operation::kBle:
          taken = s <= 0;
          break;
        case Operation::kBlbs:
          taken = ra & 1;
          break;
        case Operation::kBne:
          taken = s != 0;
          break;
        case Operation::kBge:
          taken = s >= 0;
          break;
        default:
          taken = s > 0;
          break;
      }
      out.result = taken;
      if (taken) next = pc + 4 + disp;
      break;
    }
    case Operation::kFbeq:
    case Operation::kFblt:
    case Operation::kFble:
    case Operation::kFbne:
    case Operation::kFbge:
    case Operation::kFbgt: {
      static constexpr unsigned kCond[] = {0, 0, 1, 2, 0, 3, 4, 5};  // by opcode & 7
      const bool taken = fp_condition(kCond[in.opcode & 7], fa);
      out.fp_values = kFpA;  // the result is taken/untaken
      out.a = fa;
      out.result = taken;
      c.fp_touched = true;
      if (taken) next = pc + 4 + disp;
      break;
    }
    case Operation::kJmp:
    case Operation::kJsr:
    case Operation::kRet:
    case Operation::kJsrCoroutine:
      out.b = rb_reg;
      next = rb_reg & ~uint64_t{3};
      write_int = in.ra;
      value = pc + 4;
      break;

    case Operation::kCallPal:
      return Stop::kCallPal;
    default:
      // VAX FP (opcode 0x15, itoff, sqrtf/g, ldf/ldg/stf/stg), rc/rs (the
      // per-CPU interrupt flag), PAL-reserved and invalid encodings.
      return Stop::kUnimplemented;
  }

  if (write_int == 30 && c.kernel_mode) return Stop::kStackPointer;
  // Commit.
  if (write_int >= 0 && write_int != 31) c.r[write_int] = value;
  if (write_fp >= 0) {
    c.fp_touched = true;
    if (write_fp != 31) c.f[write_fp] = value;
  }
  if (write_fpcr) {
    c.fpcr = new_fpcr;
    c.fp_touched = true;
  }
  if (write_int >= 0 || write_fp >= 0) out.result = value;
  c.pc = next;
  return Stop::kNone;
}

// Runs up to `count` instructions, recording each completed one in
// steps[0..]. Returns the number completed; *why is the reason it stopped
// early (Stop::kNone if it ran them all).
// Step::named is integer register `named_register` before each instruction
// (31, the default, reads as zero).
template <class Memory>
uint32_t run(Context& c, Memory& mem, uint32_t count, Step* steps, Stop* why,
             unsigned named_register = 31) {
  uint32_t done = 0;
  Stop stop = Stop::kNone;
  while (done < count) {
    const uint64_t named = c.r[named_register & 31];
    stop = step(c, mem, steps[done]);
    if (stop != Stop::kNone) break;
    steps[done].named = named;
    ++done;
  }
  *why = stop;
  return done;
}

}  // namespace dcpi::isa::interp
