// Counter 2 of the 21164 on the ev5 machine (issue 26; DCPI §4.1: "CYCLES
// ... together with IMISS", and the "mux" configuration that rotates IMISS,
// DMISS and BRANCHMP on a second counter). Counter 0 stays the cycles
// counter and its hot path is untouched; counter 2's overflow comes through
// PALcode's classic delivery (vector 0x500, a1 = the overflow bits) to
// dcpi_event_counter_interrupt (driver/handler.cpp).
#include "driver/internal.h"
#include "firmware/ev5_counters.h"
#include "firmware/pal_calls.h"
#include "firmware/park_miller.h"

namespace dcpi::driver {

namespace {

constexpr uint64_t kCounter2 = 1u << 2;  // wrperfmon 0/1: bit N = counter N
constexpr uint32_t kEventPeriodBase = EV5_EVENT_PERIOD_BASE;
constexpr uint32_t kEventPeriodRange = EV5_EVENT_PERIOD_RANGE;
static_assert(kEventPeriodBase + kEventPeriodRange < (1u << EV5_CTR2_WIDTH));
constexpr uint32_t kEventSeed = 0x2545f491;  // counter 2's stream, apart from counter 0's

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

namespace {

// DCPI §4.1.1: "we randomize the length of the sampling period by writing a
// pseudorandom value into the performance counter at the end of each
// interrupt". Counter 2 interrupts when it wraps (HRM CTL = 2, 14 bits),
// started a drawn period below the wrap (firmware/ev5_counters.h: uniform
// in [3840, 4352) events).
// (Every 256 events, HRM CTL = 3, cost the mux configuration 1.4-3.3 % on
// one CPU; bench_mux.py.)
uint16_t draw_ctr2_start(CpuAux& aux) {
  aux.ctr2_seed = park_miller_next(aux.ctr2_seed);
  const uint32_t period = kEventPeriodBase + scale_to_range(aux.ctr2_seed, kEventPeriodRange);
  return static_cast<uint16_t>((1u << EV5_CTR2_WIDTH) - period);
}

void write_ctr2(uint16_t value) {
  pal::wrperfmon(PERFMON_WRITE_EVENTS, uint64_t{value} << EV5_CTR2_SHIFT);
}

uint16_t read_ctr2() {
  const auto read = static_cast<uint64_t>(pal::wrperfmon(PERFMON_READ, 0));
  return static_cast<uint16_t>((read >> EV5_CTR2_SHIFT) & ((1u << EV5_CTR2_WIDTH) - 1));
}

}  // namespace

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
  aux.ctr2_since = static_cast<uint32_t>(pal::rpcc());
  if (aux.ctr2_seed == 0) aux.ctr2_seed = kEventSeed + hot.cpu;
  for (uint32_t i = 0; i < aux.ctr2_count; ++i) aux.ctr2_value[i] = draw_ctr2_start(aux);
  pal::wrperfmon(PERFMON_DISABLE, kCounter2);
  select(hot, aux.ctr2_events[0]);
  pal::wrperfmon(PERFMON_FREQ, uint64_t{EV5_CTL_WRAP} << EV5_CTL2_SHIFT);
  write_ctr2(aux.ctr2_value[0]);
  pal::wrperfmon(PERFMON_ENABLE, kCounter2);
}

// The next event gets counter 2 where it left it (R10000-style virtual
// counts): the one leaving keeps its partial count for its next turn.
void event_counters_rotate(CpuHot& hot) {
  CpuAux& aux = g_aux[hot.cpu];
  if (aux.ctr2_count < 2) return;
  aux.ctr2_value[aux.ctr2_index] = read_ctr2();
  // RPCC's low 32 bits wrap; a turn lasts kMuxEvery periods, far below 2^32.
  const auto now = static_cast<uint32_t>(pal::rpcc());
  aux.counted_cycles[aux.ctr2_events[aux.ctr2_index]] += now - aux.ctr2_since;
  aux.ctr2_since = now;
  uint32_t next = aux.ctr2_index + 1u;
  if (next == aux.ctr2_count) next = 0;
  aux.ctr2_index = static_cast<uint8_t>(next);
  select(hot, aux.ctr2_events[next]);
  write_ctr2(aux.ctr2_value[next]);
}

// After a counter-2 sample: a fresh period (the few events counted since
// the wrap are dropped, as counter 0's are at its reload).
void event_counters_reload(CpuHot& hot) { write_ctr2(draw_ctr2_start(g_aux[hot.cpu])); }

EventCountedCycles event_counted_cycles(uint32_t cpu) {
  EventCountedCycles counted{};
  for (uint32_t e = 0; e < DCPI_EVENT_COUNT; ++e) counted.cycles[e] = g_aux[cpu].counted_cycles[e];
  return counted;
}

}  // namespace dcpi::driver
