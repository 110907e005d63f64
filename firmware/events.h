// Event numbers carried in every sample (hash entry EVENT field) and in the
// profile database. The 21164 names come from DCPI §4.1 / Table 1; on QEMU
// only kCycles exists (under icount one cycle = one retired instruction), and
// the driver refuses the others with a clear error instead of faking them.
#pragma once
#include <cstdint>

namespace dcpi {

enum class Event : uint16_t {
  kCycles = 0,      // CYCLES: the one event QEMU can count
  kIMiss = 1,       // IMISS: instruction-cache misses (21164 only)
  kDMiss = 2,       // DMISS
  kBranchMp = 3,    // BRANCHMP: branch mispredicts
  kItbMiss = 4,     // ITBMISS
  kDtbMiss = 5,     // DTBMISS
  kReplayTrap = 6,  // REPLAY
  kIssues = 7,      // issue-slot counts used by the "default" configuration
  kCount = 8,
};

inline constexpr const char* kEventNames[] = {"cycles",  "imiss",   "dmiss",  "branchmp",
                                              "itbmiss", "dtbmiss", "replay", "issues"};
static_assert(sizeof(kEventNames) / sizeof(kEventNames[0]) == static_cast<int>(Event::kCount));

// Bit set of events, bit i = Event(i).
using EventSet = uint32_t;
inline constexpr EventSet event_bit(Event e) { return EventSet{1} << static_cast<uint16_t>(e); }
// What the emulated machine can count (DESIGN §4).
inline constexpr EventSet kCountableOnQemu = event_bit(Event::kCycles);

}  // namespace dcpi
