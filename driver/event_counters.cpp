// Counter 2 of the 21164 on the ev5 machine (issue 26; DCPI §4.1: "CYCLES
// ... together with IMISS", and the "mux" configuration that rotates IMISS,
// DMISS and BRANCHMP on a second counter). Counter 0 stays the cycles
// counter and its hot path is untouched; counter 2's overflow comes through
// PALcode's classic delivery (vector 0x500, a1 = the overflow bits) to
// dcpi_event_counter_interrupt (driver/handler.cpp).
#include "driver/internal.h"
#include "firmware/ev5_counters.h"
#include "firmware/pal_calls.h"

namespace dcpi::driver {

namespace {

constexpr uint64_t kCounter2 = 1u << 2;  // wrperfmon 0/1: bit N = counter N

// Counter 0's SEL0 with counter 2's selection: one mux word sets both.
void select(CpuHot& hot, uint16_t event) {
  pal::wrperfmon(PERFMON_MUX, mux_code(hot.event) | sel2_of(event) << EV5_MUX_SEL2_SHIFT);
}

}  // namespace

// Counter 2's selection (HRM SEL2) for a dcpi event; 0 for one it has none.
uint64_t sel2_of(uint16_t event) {
  switch (static_cast<Event>(event)) {
    case Event::kIMiss:
      return EV5_SEL2_ICACHE_MISSES;
    case Event::kDMiss:
      return EV5_SEL2_DCACHE_MISSES;
    case Event::kBranchMp:
      return EV5_SEL2_BRANCH_MISPREDICTS;
    case Event::kItbMiss:
      return EV5_SEL2_ITB_MISSES;
    case Event::kDtbMiss:
      return EV5_SEL2_DTB_MISSES;
    default:
      return 0;
  }
}

bool machine_has_event_counters() {
  return pal::wrperfmon(PERFMON_WRITE_EVENTS, 0) != PERFMON_REFUSED;
}

// Interrupt every 256 events (HRM CTL = 3): misses are rarer than cycles,
// and the 14-bit wrap (16384) gives a short run too few samples
// (docs/ev5-machine.md "Event counters").
void event_counters_apply(CpuHot& hot) {
  CpuAux& aux = g_aux[hot.cpu];
  aux.ctr2_count = static_cast<uint8_t>(g_config.ctr2_count);
  for (uint32_t i = 0; i < kMaxMuxEvents; ++i) aux.ctr2_events[i] = g_config.ctr2_events[i];
  aux.ctr2_index = 0;
  if (aux.ctr2_count == 0) {
    if (aux.ctr2_programmed) pal::wrperfmon(PERFMON_DISABLE, kCounter2);
    return;
  }
  aux.ctr2_programmed = 1;
  pal::wrperfmon(PERFMON_DISABLE, kCounter2);
  select(hot, aux.ctr2_events[0]);
  pal::wrperfmon(PERFMON_FREQ, uint64_t{EV5_CTL_256} << EV5_CTL2_SHIFT);
  pal::wrperfmon(PERFMON_WRITE_EVENTS, 0);
  pal::wrperfmon(PERFMON_ENABLE, kCounter2);
}

void event_counters_rotate(CpuHot& hot) {
  CpuAux& aux = g_aux[hot.cpu];
  if (aux.ctr2_count < 2) return;
  uint32_t next = aux.ctr2_index + 1u;
  if (next == aux.ctr2_count) next = 0;
  aux.ctr2_index = static_cast<uint8_t>(next);
  select(hot, aux.ctr2_events[next]);
}

}  // namespace dcpi::driver
