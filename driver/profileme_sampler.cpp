// ProfileMe's software side (issue 27; seed 004 §3, firmware/profileme.h):
// the driver arms each CPU's Fetched Instruction Counter with a randomized
// interval, and on the record's interrupt (PALcode's classic delivery,
// EV5_OVERFLOW_PROFILEME, at IPL 6) reads the Profile Registers, adds the
// record to the sample table as ProfileMe events of the tagged
// instruction's PC (one per record, one per event bit, the latencies'
// cycles summed), and arms the counter again: the paper's "software
// interrupt handler ... reads the Profile Registers" and restarts sampling.
#include "driver/driver.h"
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "firmware/park_miller.h"
#include "firmware/profileme.h"

namespace dcpi::driver {

namespace {

uint32_t g_interval_mean = 0;                    // 0: ProfileMe off
constexpr uint32_t kProfileMeSeed = 0x3c6ef372;  // its own stream, apart from the counters'

// Memoryless intervals (firmware/park_miller.h exponential_interval): the
// handler's own return after the re-arm is counted too, and only an
// interval that can end anywhere, however soon, tags its instructions as
// often as the program's, so that k·S is unbiased (seed 004 §5.1). A
// narrow uniform interval, longer than that return, never tags it and
// projected the program's instructions high by return / S (5 % at S = 8K).
uint64_t draw_interval(CpuAux& aux) {
  aux.profileme_seed = park_miller_next(aux.profileme_seed);
  return exponential_interval(aux.profileme_seed, g_interval_mean);
}

uint64_t profile_register(uint64_t index) {
  return static_cast<uint64_t>(pal::wrperfmon(PERFMON_PROFILEME_READ, index));
}

// The events a record's bits add (firmware/profileme.h PROFILEME_BIT_*).
struct BitEvent {
  uint64_t bit;
  uint16_t event;
};
constexpr BitEvent kBitEvents[] = {
    {PROFILEME_BIT_RETIRED, PROFILEME_EVENT_RETIRED},
    {PROFILEME_BIT_IMISS, PROFILEME_EVENT_IMISS},
    {PROFILEME_BIT_ITBMISS, PROFILEME_EVENT_ITBMISS},
    {PROFILEME_BIT_DMISS, PROFILEME_EVENT_DMISS},
    {PROFILEME_BIT_DTBMISS, PROFILEME_EVENT_DTBMISS},
    {PROFILEME_BIT_MISPREDICT, PROFILEME_EVENT_MISPREDICT},
    {PROFILEME_BIT_PAL, PROFILEME_EVENT_PAL},
    {PROFILEME_BIT_SMISS, PROFILEME_EVENT_SMISS},
    {PROFILEME_BIT_BMISS, PROFILEME_EVENT_BMISS},
    {PROFILEME_BIT_WBUF, PROFILEME_EVENT_WBUF},
};
static_assert(sizeof(kBitEvents) / sizeof(kBitEvents[0]) == PROFILEME_BITS);

uint32_t field(uint64_t word, uint32_t shift, uint64_t mask) {
  return static_cast<uint32_t>((word >> shift) & mask);
}

}  // namespace

int64_t profileme_configure(uint32_t interval_mean) {
  if (interval_mean != 0 && !machine_has_event_counters()) return kControlUncountableEvent;
  g_interval_mean = interval_mean;
  return kControlOk;
}

uint32_t profileme_interval() { return g_interval_mean; }

void profileme_start(CpuHot& hot) {
  if (g_interval_mean == 0) return;
  CpuAux& aux = g_aux[hot.cpu];
  if (aux.profileme_seed == 0) aux.profileme_seed = kProfileMeSeed + hot.cpu;
  pal::wrperfmon(PERFMON_PROFILEME_ARM, draw_interval(aux));
}

void profileme_interrupt(CpuHot& hot) {
  const uint64_t pc = profile_register(PROFILEME_REG_PC);
  const uint64_t bits = profile_register(PROFILEME_REG_EVENTS);
  const uint64_t latency = profile_register(PROFILEME_REG_LATENCY);
  const auto pid = static_cast<uint16_t>(hot.pid);
  record_sum(hot, pc, pid, PROFILEME_EVENT_SAMPLES, 1);
  for (const BitEvent& b : kBitEvents)
    if (bits & b.bit) record_sum(hot, pc, pid, b.event, 1);
  const uint32_t sums[] = {field(latency, PROFILEME_LAT_STALL_SHIFT, PROFILEME_LAT_STALL_MASK),
                           field(latency, PROFILEME_LAT_FETCH_SHIFT, PROFILEME_LAT_FETCH_MASK),
                           field(latency, PROFILEME_LAT_ISSUE_SHIFT, PROFILEME_LAT_ISSUE_MASK)};
  const uint16_t sum_events[] = {PROFILEME_EVENT_STALL, PROFILEME_EVENT_FETCH,
                                 PROFILEME_EVENT_ISSUE};
  for (int i = 0; i < 3; ++i)
    if (sums[i] != 0) record_sum(hot, pc, pid, sum_events[i], sums[i]);
  if (g_interval_mean != 0) pal::wrperfmon(PERFMON_PROFILEME_ARM, draw_interval(g_aux[hot.cpu]));
}

}  // namespace dcpi::driver
