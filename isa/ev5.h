// 21164 (EV5) issue pipes and result latencies per scheduling class, for the
// DCPI §6 stall analysis. Numbers follow GCC's gcc/config/alpha/ev5.md and
// the 21164 hardware reference: two integer pipes (E0, E1), FP add (FA) and
// multiply (FM) pipes; load-use 2 cycles on a D-cache hit; mull 8, mulq 12,
// umulh 14; FP add/multiply 4; divs 15, divt 22. The one EV5 description:
// dcpicalc's EV5 model (analysis/calc/model/ev5_model.cpp) schedules with it, and it
// is freestanding (no library, constexpr) for the guest and for plugins.
#pragma once
#include <cstddef>
#include <cstdint>

#include "isa/instruction.h"

namespace dcpi::isa {

// Bit set of the pipes an instruction may issue to (one of them).
enum Ev5Pipe : uint8_t {
  kPipeE0 = 1 << 0,
  kPipeE1 = 1 << 1,
  kPipeFA = 1 << 2,
  kPipeFM = 1 << 3,
};

struct Ev5Timing {
  uint8_t pipes;    // Ev5Pipe bits: the instruction issues to any one of them
  uint8_t latency;  // cycles until a dependent instruction can issue
  // Cycles a non-pipelined unit (integer multiplier, FP divider) stays busy:
  // a second instruction of the same class waits this long.
  uint8_t unit_busy;
  bool store_pipe;  // stores and loads cannot issue in the same cycle
  const char* name;
};

namespace detail {

constexpr Ev5Timing ev5_timing_of(Ev5Class c) {
  switch (c) {
    case Ev5Class::kIld:
    case Ev5Class::kFld:
      return {kPipeE0 | kPipeE1, 2, 0, false, "ld"};
    case Ev5Class::kLdL:
      return {kPipeE0, 2, 0, false, "ld_l"};
    case Ev5Class::kIst:
      return {kPipeE0, 1, 0, true, "ist"};
    case Ev5Class::kFst:
      return {kPipeE0, 1, 0, true, "fst"};
    case Ev5Class::kStC:
      return {kPipeE0, 1, 0, true, "st_c"};
    case Ev5Class::kMb:
      return {kPipeE0, 1, 0, true, "mb"};
    case Ev5Class::kIbr:
      return {kPipeE1, 1, 0, false, "ibr"};
    case Ev5Class::kFbr:
      return {kPipeFA, 1, 0, false, "fbr"};
    case Ev5Class::kJsr:
      return {kPipeE1, 1, 0, false, "jsr"};
    case Ev5Class::kCallPal:
      return {kPipeE1, 1, 0, false, "callpal"};
    case Ev5Class::kIadd:
      return {kPipeE0 | kPipeE1, 1, 0, false, "iadd"};
    case Ev5Class::kIlog:
      return {kPipeE0 | kPipeE1, 1, 0, false, "ilog"};
    case Ev5Class::kIcmp:
      return {kPipeE0 | kPipeE1, 1, 0, false, "icmp"};
    case Ev5Class::kShift:
      return {kPipeE0, 1, 0, false, "shift"};
    case Ev5Class::kIcmov:
      return {kPipeE0 | kPipeE1, 2, 0, false, "icmov"};
    case Ev5Class::kMvi:
      return {kPipeE0, 2, 0, false, "mvi"};
    case Ev5Class::kImull:
      return {kPipeE0, 8, 4, false, "imull"};
    case Ev5Class::kImulq:
      return {kPipeE0, 12, 8, false, "imulq"};
    case Ev5Class::kImulh:
      return {kPipeE0, 14, 8, false, "imulh"};
    case Ev5Class::kFadd:
      return {kPipeFA, 4, 0, false, "fadd"};
    case Ev5Class::kFcmov:
      return {kPipeFA, 4, 0, false, "fcmov"};
    case Ev5Class::kFmul:
      return {kPipeFM, 4, 0, false, "fmul"};
    case Ev5Class::kFcpys:
      return {kPipeFA | kPipeFM, 4, 0, false, "fcpys"};
    case Ev5Class::kFdivS:
      return {kPipeFA, 15, 15, false, "fdivs"};
    case Ev5Class::kFdivT:
      return {kPipeFA, 22, 22, false, "fdivt"};
    // The 21164 has no square root, ITOF or FTOI (FIX came with the 21264);
    // they are modelled like the divides and FP moves they replace.
    case Ev5Class::kFsqrtS:
      return {kPipeFA, 15, 15, false, "fsqrts"};
    case Ev5Class::kFsqrtT:
      return {kPipeFA, 22, 22, false, "fsqrtt"};
    case Ev5Class::kItof:
      return {kPipeE0, 4, 0, false, "itof"};
    case Ev5Class::kFtoi:
      return {kPipeFA, 4, 0, false, "ftoi"};
    case Ev5Class::kMisc:
      return {kPipeE0, 2, 0, false, "misc"};
    case Ev5Class::kNone:  // undecodable: scheduled like misc
      break;
  }
  return {kPipeE0, 2, 0, false, "none"};
}

// Ev5Class's values, kNone to kMisc (its last).
inline constexpr size_t kEv5ClassCount = static_cast<size_t>(Ev5Class::kMisc) + 1;
struct Ev5TimingTable {
  Ev5Timing by_class[kEv5ClassCount];
};
constexpr Ev5TimingTable ev5_timing_table() {
  Ev5TimingTable table{};
  for (size_t c = 0; c < kEv5ClassCount; ++c)
    table.by_class[c] = ev5_timing_of(static_cast<Ev5Class>(c));
  return table;
}
inline constexpr Ev5TimingTable kEv5Timings = ev5_timing_table();

}  // namespace detail

// A table lookup: the scheduler and dcpicalc's culprits ask for every
// instruction (the switch, returning the struct, was 2-3 % of a whole-image
// analysis: issue 31).
constexpr Ev5Timing ev5_timing(Ev5Class c) {
  const auto index = static_cast<size_t>(c);
  return index < detail::kEv5ClassCount ? detail::kEv5Timings.by_class[index]
                                        : detail::ev5_timing_of(c);
}

constexpr Ev5Class ev5_class(const Instruction& in) {
  return in.valid() ? in.info().ev5 : Ev5Class::kNone;
}

constexpr bool ev5_is_load(Ev5Class c) {
  return c == Ev5Class::kIld || c == Ev5Class::kFld || c == Ev5Class::kLdL;
}
// Stores, st_c and mb: the store pipe (E0, never beside a load).
constexpr bool ev5_is_store(Ev5Class c) { return ev5_timing(c).store_pipe; }
// A load or a store of data (mb moves none).
constexpr bool ev5_is_memory_access(Ev5Class c) {
  return ev5_is_load(c) || (ev5_is_store(c) && c != Ev5Class::kMb);
}

// The two non-pipelined units: the integer multiplier and the FP divider
// (which also does the square roots, see above).
constexpr bool ev5_is_multiply(Ev5Class c) {
  return c == Ev5Class::kImull || c == Ev5Class::kImulq || c == Ev5Class::kImulh;
}
constexpr bool ev5_uses_divider(Ev5Class c) {
  return c == Ev5Class::kFdivS || c == Ev5Class::kFdivT || c == Ev5Class::kFsqrtS ||
         c == Ev5Class::kFsqrtT;
}
// Cycles the multiplier / divider stays busy after `c` issues (0: not its unit).
constexpr uint8_t ev5_multiplier_busy(Ev5Class c) {
  return ev5_is_multiply(c) ? ev5_timing(c).unit_busy : 0;
}
constexpr uint8_t ev5_divider_busy(Ev5Class c) {
  return ev5_uses_divider(c) ? ev5_timing(c).unit_busy : 0;
}

// ev5.md: "no insn can be issued to E0 exactly two cycles before an integer
// multiply completes": E0 is taken at issue + latency - 3 for the multiply's
// write-back.
constexpr uint8_t ev5_multiply_writeback_offset(Ev5Class multiply) {
  return static_cast<uint8_t>(ev5_timing(multiply).latency - 3);
}

// Cycles after `producer` issues until `consumer` may issue when it reads
// the producer's result.
// GCC's ev5.md: the integer multiplier cannot take operands from the Ebox
// bypass, so a multiply consuming an E-box result waits this much longer
// (define_bypass 3 "ev5_ld,...,ev5_ilogcmp" "ev5_imul*": 3 instead of 1-2).
constexpr uint8_t ev5_latency(Ev5Class producer, Ev5Class consumer) {
  const Ev5Timing p = ev5_timing(producer);
  if (ev5_is_multiply(consumer)) {
    switch (producer) {
      case Ev5Class::kImull:
      case Ev5Class::kImulq:
      case Ev5Class::kImulh:
        return p.latency + 1;
      case Ev5Class::kIld:
      case Ev5Class::kFld:
      case Ev5Class::kLdL:
      case Ev5Class::kShift:
      case Ev5Class::kMvi:
      case Ev5Class::kIcmov:
      case Ev5Class::kIadd:
      case Ev5Class::kIlog:
      case Ev5Class::kIcmp:
        return 3;
      default:
        break;
    }
  }
  // A compare feeding a branch or conditional move issues in the same cycle.
  if ((producer == Ev5Class::kIlog || producer == Ev5Class::kIcmp) &&
      (consumer == Ev5Class::kIbr || consumer == Ev5Class::kIcmov)) {
    return 0;
  }
  return p.latency;
}

}  // namespace dcpi::isa
