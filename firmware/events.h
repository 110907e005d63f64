/* Event numbers carried in every sample (hash entry EVENT field) and in the
 * profile database. The 21164 names come from DCPI §4.1 / Table 1; on QEMU
 * only cycles exists (under icount one cycle = one retired instruction), and
 * the driver refuses the others with a clear error instead of faking them.
 * Written once, in C, for the driver, the host tools and user programs
 * (workloads/dcpictl.c); the C++ names below are the same things. */
#ifndef DCPI_FIRMWARE_EVENTS_H
#define DCPI_FIRMWARE_EVENTS_H

#include <stdint.h>

/* One row per event: name in code, name in text (dcpictl, dcpi run
 * --events, the database). The enum, the C and the C++ name tables are
 * derived from it. */
#define DCPI_EVENT_LIST(X)                                                       \
  X(CYCLES, "cycles")     /* the one event QEMU can count */                     \
  X(IMISS, "imiss")       /* instruction-cache misses (21164 only) */            \
  X(DMISS, "dmiss")                                                              \
  X(BRANCHMP, "branchmp") /* branch mispredicts */                               \
  X(ITBMISS, "itbmiss")                                                          \
  X(DTBMISS, "dtbmiss")                                                          \
  X(REPLAY, "replay")     /* LDU replay traps (counter 2, SEL2 0x9) */               \
  X(ISSUES, "issues")     /* issue-slot counts used by the "default" configuration */ \
  X(LOADS, "loads")       /* load instructions (21164 counter 1, SEL1 0xB) */        \
  X(STORES, "stores")     /* store instructions (21164 counter 1, SEL1 0xC) */        \
  X(NONISSUE, "nonissue") /* cycles nothing issued, pipeline frozen (SEL1 0x0) */     \
  X(ISSUE1, "issue1")     /* cycles one instruction issued (SEL1 0x4) */              \
  X(ISSUE2, "issue2")     /* dual-issue cycles (SEL1 0x5) */                          \
  X(ISSUE3, "issue3")     /* triple-issue cycles (SEL1 0x6) */                        \
  X(ISSUE4, "issue4")     /* quad-issue cycles (SEL1 0x7) */                          \
  X(LONGSTALLS, "longstalls") /* stalls longer than 15 cycles (counter 2, SEL2 0x0) */ \
  X(PCMISPREDICT, "pcmispredict") /* jump targets mispredicted (counter 2, SEL2 0x2) */

#define DCPI_EVENT_ENUM_(name, text) DCPI_EVENT_##name,
#define DCPI_EVENT_TEXT_(name, text) text,
enum { DCPI_EVENT_LIST(DCPI_EVENT_ENUM_) DCPI_EVENT_COUNT };

#ifndef __cplusplus
static const char* const dcpi_event_names[DCPI_EVENT_COUNT] __attribute__((unused)) = {
    DCPI_EVENT_LIST(DCPI_EVENT_TEXT_)};
#endif

#ifdef __cplusplus
namespace dcpi {

enum class Event : uint16_t {
  kCycles = DCPI_EVENT_CYCLES,
  kIMiss = DCPI_EVENT_IMISS,
  kDMiss = DCPI_EVENT_DMISS,
  kBranchMp = DCPI_EVENT_BRANCHMP,
  kItbMiss = DCPI_EVENT_ITBMISS,
  kDtbMiss = DCPI_EVENT_DTBMISS,
  kReplayTrap = DCPI_EVENT_REPLAY,
  kIssues = DCPI_EVENT_ISSUES,
  kLoads = DCPI_EVENT_LOADS,
  kStores = DCPI_EVENT_STORES,
  kNonIssue = DCPI_EVENT_NONISSUE,
  kIssue1 = DCPI_EVENT_ISSUE1,
  kIssue2 = DCPI_EVENT_ISSUE2,
  kIssue3 = DCPI_EVENT_ISSUE3,
  kIssue4 = DCPI_EVENT_ISSUE4,
  kLongStalls = DCPI_EVENT_LONGSTALLS,
  kPcMispredict = DCPI_EVENT_PCMISPREDICT,
  kCount = DCPI_EVENT_COUNT,
};

inline constexpr const char* kEventNames[] = {DCPI_EVENT_LIST(DCPI_EVENT_TEXT_)};
static_assert(sizeof(kEventNames) / sizeof(kEventNames[0]) == static_cast<int>(Event::kCount));

// Bit set of events, bit i = Event(i).
using EventSet = uint32_t;
inline constexpr EventSet event_bit(Event e) { return EventSet{1} << static_cast<uint16_t>(e); }
// What the emulated machine can count (DESIGN §4): counter 0, the clock.
inline constexpr EventSet kCountableOnQemu = event_bit(Event::kCycles);
// What the ev5 machine's counters 1 and 2 add (its model counts them; issue
// 26, firmware/ev5_counters.h): counter 1's loads and stores (SEL1 0xB,
// 0xC), counter 2's misses and mispredicts. Replay traps are not modelled;
// issues are counter 0's other selection (counting mode's instructions).
// Counter 1 also counts the issue-width cycles (nonissue, issue1-4: the
// model's static issue groups and its stalls), counter 2 the long stalls.
inline constexpr EventSet kIssueWidthEvents =
    event_bit(Event::kNonIssue) | event_bit(Event::kIssue1) | event_bit(Event::kIssue2) |
    event_bit(Event::kIssue3) | event_bit(Event::kIssue4);
inline constexpr EventSet kCounter1Events =
    event_bit(Event::kLoads) | event_bit(Event::kStores) | kIssueWidthEvents;
inline constexpr EventSet kCounter2Events =
    event_bit(Event::kIMiss) | event_bit(Event::kDMiss) | event_bit(Event::kBranchMp) |
    event_bit(Event::kItbMiss) | event_bit(Event::kDtbMiss) | event_bit(Event::kLongStalls) |
    event_bit(Event::kPcMispredict) | event_bit(Event::kReplayTrap);
inline constexpr EventSet kCountableOnEv5 = kCounter1Events | kCounter2Events;

}  // namespace dcpi
#endif

#endif
