// Why an instruction spent cycles at the head of the issue queue: the one
// list of stall causes, with DCPI's bubble letters (Figure 2: "the lines
// between instructions are bubbles", one letter per reason) and every name
// we print for them. The 21164 scheduler (ev5_slotting.h), the EV5 timing
// plugin and its truth file (qemu/machine/), dcpicalc's models, culprit
// analysis and reports (analysis/calc/) and the truth reader all use this
// enum; nothing translates between cause enums any more.
//
// Static stalls come from the schedule of one block (DCPI §6.1.3, §6.3:
// slotting, operand dependencies, a busy non-pipelined unit); dynamic stalls
// are §6.3's candidates (cache and TLB misses, mispredicts, write-buffer
// overflow, busy units across blocks). The busy units are both: inside one
// block the schedule sees them (letter f), across blocks only the machine
// does (M, F). `replay` (a load just after a store to its address) is the
// 21164's, beyond §6.3's list. `other` exists only in the truth file
// (anything the model charges that has no cause of its own).
//
// Freestanding and constexpr (no library beyond <cstdint>): the guest
// compile of isa/ (guest_check.cpp) and the plugin include it.
#pragma once
#include <cstdint>

namespace dcpi::isa {

// In the truth file's order: the EV5 plugin sorts its `stall` lines by
// (PC, cause, culprit), so reordering these changes the file.
enum class StallCause : uint8_t {
  kSlotting,             // could not issue with the previous group (pipes, store/load mix)
  kDependency,           // waited for an operand produced by an earlier instruction
  kMultiplierBusy,       // the non-pipelined integer multiplier is still busy
  kFpDividerBusy,        // the non-pipelined FP divider is still busy
  kICacheMiss,           // instruction fetch missed the I-cache
  kDCacheMiss,           // a load missed the D-cache
  kItbMiss,              // instruction TLB refill
  kDtbMiss,              // data TLB refill
  kWriteBufferOverflow,  // a store waited for a write-buffer entry
  kBranchMispredict,     // fetch restarted after a mispredicted branch
  kOther,                // the truth's rest: charged by the model, no §6.3 cause
  kMultiplyWritebackE0,  // E0 is reserved for a multiply's write-back this cycle
  kReplay,               // a load 1-2 cycles after a store to its address (replay trap, wait)
  kPalcode,              // PALcode's cycles, sampled where PAL returns (DCPI §4.1.3's blind spot)
};
inline constexpr int kStallCauseCount = 14;

struct StallCauseInfo {
  StallCause cause;
  const char* truth_name;    // the `stall` line's word (docs/exec-counts-format.md)
  const char* name;          // calc's name: --breakdown rows, JSON keys
  char static_letter;        // Figure 2's bubble as a static stall; 0: never static
  char dynamic_letter;       // Figure 2's bubble as a §6.3 candidate; 0: not one
  const char* figure4_name;  // Figure 4's row for the dynamic cause; 0: not one
  StallCause booked_as;      // what the truth file books it as
};

// One row per cause, in enum order (checked below). A dependency's letter
// also names the operand that waited (dependency_letter).
inline constexpr StallCauseInfo kStallCauses[kStallCauseCount] = {
    {StallCause::kSlotting, "slot", "slotting", 's', 0, nullptr, StallCause::kSlotting},
    {StallCause::kDependency, "dep", "dependency", 'b', 0, nullptr, StallCause::kDependency},
    {StallCause::kMultiplierBusy, "imul_busy", "multiplier busy", 'f', 'M', "IMUL busy",
     StallCause::kMultiplierBusy},
    {StallCause::kFpDividerBusy, "fdiv_busy", "FP divider busy", 'f', 'F', "FDIV busy",
     StallCause::kFpDividerBusy},
    {StallCause::kICacheMiss, "icache", "I-cache miss", 0, 'i', "I-cache (not ITB)",
     StallCause::kICacheMiss},
    {StallCause::kDCacheMiss, "dcache", "D-cache miss", 0, 'd', "D-cache miss",
     StallCause::kDCacheMiss},
    {StallCause::kItbMiss, "itb", "ITB miss", 0, 'I', "ITB/I-cache miss", StallCause::kItbMiss},
    {StallCause::kDtbMiss, "dtb", "DTB miss", 0, 'D', "DTB miss", StallCause::kDtbMiss},
    {StallCause::kWriteBufferOverflow, "wbuf", "write-buffer overflow", 0, 'w', "Write buffer",
     StallCause::kWriteBufferOverflow},
    {StallCause::kBranchMispredict, "mispredict", "branch mispredict", 0, 'p', "Branch mispredict",
     StallCause::kBranchMispredict},
    {StallCause::kOther, "other", "other", 0, 0, nullptr, StallCause::kOther},
    // An issue-slot hazard: the truth books it as slotting.
    {StallCause::kMultiplyWritebackE0, "slot", "E0 reserved for multiply write-back", 'f', 0,
     nullptr, StallCause::kSlotting},
    // Not one of §6.3's candidates: the 21164's load-after-store hazard
    // (21164PC HRM p. 2-33), which DCPI's dcpicalc did not list; ours does
    // (issue 25), with the store as the culprit.
    {StallCause::kReplay, "replay", "load-after-store replay", 0, 'r', "Replay trap",
     StallCause::kReplay},
    // Not a stall of the instruction: the cycles of the CALL_PAL before it,
    // which the counter cannot interrupt (DCPI §4.1.3: "samples for those
    // events will be associated with the instruction that runs after the
    // PALcode finishes"). Never in a truth file's `stall` lines: the scorer
    // takes it from the `visible` lines (analysis/calc/truth/).
    {StallCause::kPalcode, "pal", "PALcode (blind spot)", 0, 'P', "PALcode (blind spot)",
     StallCause::kPalcode},
};

constexpr bool stall_table_in_enum_order() {
  for (int i = 0; i < kStallCauseCount; ++i)
    if (static_cast<int>(kStallCauses[i].cause) != i) return false;
  return true;
}
static_assert(stall_table_in_enum_order());

constexpr const StallCauseInfo& stall_cause_info(StallCause cause) {
  return kStallCauses[static_cast<int>(cause)];
}
constexpr const char* truth_name(StallCause cause) { return stall_cause_info(cause).truth_name; }
constexpr const char* stall_cause_name(StallCause cause) { return stall_cause_info(cause).name; }
constexpr const char* figure4_name(StallCause cause) {
  return stall_cause_info(cause).figure4_name;
}
constexpr char dynamic_letter(StallCause cause) { return stall_cause_info(cause).dynamic_letter; }
constexpr StallCause booked_as(StallCause cause) { return stall_cause_info(cause).booked_as; }

// A static stall's bubble; a dependency's names the operand that waited
// (0: Ra, 1: Rb, 2: Rc; Rb when unknown).
constexpr char static_letter(StallCause cause, int operand = 1) {
  if (cause == StallCause::kDependency) return "abc"[operand >= 0 && operand < 3 ? operand : 1];
  return stall_cause_info(cause).static_letter;
}

// Figure 4's static rows, by bubble letter (report.cpp sums by row).
struct StaticRow {
  char letter;
  const char* figure4_name;
};
inline constexpr StaticRow kStaticRows[] = {{'s', "Slotting"},
                                            {'a', "Ra dependency"},
                                            {'b', "Rb dependency"},
                                            {'c', "Rc dependency"},
                                            {'f', "FU dependency"}};
constexpr const char* figure4_static_name(char letter) {
  for (const StaticRow& row : kStaticRows)
    if (row.letter == letter) return row.figure4_name;
  return "FU dependency";
}

// The truth file's static causes: the schedule's own (slot, dep).
constexpr bool is_truth_static(StallCause cause) {
  return cause == StallCause::kSlotting || cause == StallCause::kDependency;
}
// One of §6.3's dynamic candidates (those with a dynamic bubble).
constexpr bool is_dynamic(StallCause cause) { return dynamic_letter(cause) != 0; }

// §6.3's candidates in the order the paper lists them ("the candidates we
// currently consider"), then the 21164's replay trap and PALcode's blind
// spot; calc's JSON keys follow it.
inline constexpr StallCause kDynamicCauses[] = {
    StallCause::kICacheMiss,     StallCause::kDCacheMiss,       StallCause::kItbMiss,
    StallCause::kDtbMiss,        StallCause::kBranchMispredict, StallCause::kWriteBufferOverflow,
    StallCause::kMultiplierBusy, StallCause::kFpDividerBusy,    StallCause::kReplay,
    StallCause::kPalcode};
inline constexpr int kDynamicCauseCount = sizeof kDynamicCauses / sizeof kDynamicCauses[0];
// Figure 4's order of the dynamic rows (text reports).
inline constexpr StallCause kFigure4Causes[] = {StallCause::kICacheMiss,
                                                StallCause::kItbMiss,
                                                StallCause::kDCacheMiss,
                                                StallCause::kDtbMiss,
                                                StallCause::kWriteBufferOverflow,
                                                StallCause::kBranchMispredict,
                                                StallCause::kMultiplierBusy,
                                                StallCause::kFpDividerBusy,
                                                StallCause::kReplay,
                                                StallCause::kPalcode};

// Orders causes as §6.3 lists them (the rest after, in enum order): the
// key order of maps printed as JSON objects.
struct DynamicCauseOrder {
  static constexpr int rank(StallCause cause) {
    for (int i = 0; i < kDynamicCauseCount; ++i)
      if (kDynamicCauses[i] == cause) return i;
    return kDynamicCauseCount + static_cast<int>(cause);
  }
  constexpr bool operator()(StallCause a, StallCause b) const { return rank(a) < rank(b); }
};

}  // namespace dcpi::isa
