// Counters 1 and 2 of the 21164 on the ev5 machine (issue 26; DCPI §4.1:
// "CYCLES ... together with IMISS", and the "mux" configuration that
// rotates IMISS, DMISS and BRANCHMP on a second counter). Counter 1 counts
// loads or stores (SEL1), counter 2 the misses and mispredicts (SEL2); both
// run beside counter 0, whose cycles hot path is untouched. Their overflows
// come through PALcode's classic delivery (vector 0x500, a1 = the overflow
// bits) to dcpi_event_counter_interrupt (driver/handler.cpp).
#include "driver/internal.h"
#include "firmware/ev5_counters.h"
#include "firmware/pal_calls.h"
#include "firmware/park_miller.h"

namespace dcpi::driver {

namespace {

constexpr uint64_t kCounters12 = (1u << 1) | (1u << 2);  // wrperfmon 0/1: bit N = counter N
constexpr uint32_t kEventPeriodBase = EV5_EVENT_PERIOD_BASE;
constexpr uint32_t kEventPeriodRange = EV5_EVENT_PERIOD_RANGE;
// Counter 2 (14 bits) is the narrower; counter 1 has 16.
static_assert(kEventPeriodBase + kEventPeriodRange < (1u << EV5_CTR2_WIDTH));
// Each counter's stream, apart from counter 0's and from each other.
constexpr uint32_t kEventSeed[kEventCounters] = {0x6c078965, 0x2545f491};

// Counter 0's SEL0 with the selections counters 1 and 2 have now: one mux
// word sets all three.
void select(CpuHot& hot, const CpuAux& aux) {
  uint64_t word = mux_code(hot.event);
  for (const EventCounterState& counter : aux.counter)
    if (counter.count) word |= mux_field_of(counter.events[counter.index]);
  pal::wrperfmon(PERFMON_MUX, word);
}

// Both counters' values in one write (wrperfmon 9 writes their fields
// together).
void write_values(const CpuAux& aux) {
  uint64_t word = 0;
  for (uint32_t k = 0; k < kEventCounters; ++k)
    if (aux.counter[k].count)
      word |= uint64_t{aux.counter[k].value[aux.counter[k].index]} << kEventCounterShift[k];
  pal::wrperfmon(PERFMON_WRITE_EVENTS, word);
}

}  // namespace

int event_counter_of(uint16_t event) {
  if (event >= DCPI_EVENT_COUNT) return -1;
  if (kCounter1Events & event_bit(static_cast<Event>(event))) return 0;
  if (kCounter2Events & event_bit(static_cast<Event>(event))) return 1;
  return -1;
}

uint64_t mux_field_of(uint16_t event) {
  switch (static_cast<Event>(event)) {
    case Event::kLoads:
      return uint64_t{EV5_SEL1_LOADS} << EV5_MUX_SEL1_SHIFT;
    case Event::kStores:
      return uint64_t{EV5_SEL1_STORES} << EV5_MUX_SEL1_SHIFT;
    case Event::kNonIssue:
      return uint64_t{EV5_SEL1_NONISSUE_CYCLES} << EV5_MUX_SEL1_SHIFT;
    case Event::kIssue1:
      return uint64_t{EV5_SEL1_SINGLE_ISSUE_CYCLES} << EV5_MUX_SEL1_SHIFT;
    case Event::kIssue2:
      return uint64_t{EV5_SEL1_DUAL_ISSUE_CYCLES} << EV5_MUX_SEL1_SHIFT;
    case Event::kIssue3:
      return uint64_t{EV5_SEL1_TRIPLE_ISSUE_CYCLES} << EV5_MUX_SEL1_SHIFT;
    case Event::kIssue4:
      return uint64_t{EV5_SEL1_QUAD_ISSUE_CYCLES} << EV5_MUX_SEL1_SHIFT;
    case Event::kLongStalls:
      return uint64_t{EV5_SEL2_LONG_STALLS} << EV5_MUX_SEL2_SHIFT;
    case Event::kIMiss:
      return uint64_t{EV5_SEL2_ICACHE_MISSES} << EV5_MUX_SEL2_SHIFT;
    case Event::kDMiss:
      return uint64_t{EV5_SEL2_DCACHE_MISSES} << EV5_MUX_SEL2_SHIFT;
    case Event::kBranchMp:
      return uint64_t{EV5_SEL2_BRANCH_MISPREDICTS} << EV5_MUX_SEL2_SHIFT;
    case Event::kPcMispredict:
      return uint64_t{EV5_SEL2_PC_MISPREDICTS} << EV5_MUX_SEL2_SHIFT;
    case Event::kReplayTrap:
      return uint64_t{EV5_SEL2_LDU_REPLAYS} << EV5_MUX_SEL2_SHIFT;
    case Event::kItbMiss:
      return uint64_t{EV5_SEL2_ITB_MISSES} << EV5_MUX_SEL2_SHIFT;
    case Event::kDtbMiss:
      return uint64_t{EV5_SEL2_DTB_MISSES} << EV5_MUX_SEL2_SHIFT;
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
// interrupt". Counters 1 and 2 interrupt when they wrap (HRM CTL = 2; 16
// and 14 bits), started a drawn period below the wrap
// (firmware/ev5_counters.h: uniform in [3840, 4352) events, both).
// (Every 256 events, HRM CTL = 3, cost the mux configuration 1.4-3.3 % on
// one CPU; bench_mux.py.)
uint16_t draw_start(EventCounterState& counter, uint32_t k) {
  counter.seed = park_miller_next(counter.seed);
  const uint32_t period = kEventPeriodBase + scale_to_range(counter.seed, kEventPeriodRange);
  return static_cast<uint16_t>((1u << kEventCounterWidth[k]) - period);
}

}  // namespace

void event_counters_reseed(CpuHot& hot) {
  for (uint32_t k = 0; k < kEventCounters; ++k)
    g_aux[hot.cpu].counter[k].seed = start_seed(kEventSeed[k] + hot.cpu);
}

void event_counters_apply(CpuHot& hot) {
  CpuAux& aux = g_aux[hot.cpu];
  bool was_programmed = false, any = false;
  uint64_t control = 0, enable = 0;
  for (uint32_t k = 0; k < kEventCounters; ++k) {
    EventCounterState& counter = aux.counter[k];
    was_programmed |= counter.programmed != 0;
    counter.count = static_cast<uint8_t>(g_config.counter_count[k]);
    for (uint32_t i = 0; i < kMaxMuxEvents; ++i) counter.events[i] = g_config.counter_events[k][i];
    counter.index = 0;
    counter.programmed = counter.count != 0;
    if (!counter.count) continue;
    any = true;
    counter.since = static_cast<uint32_t>(pal::rpcc());
    if (counter.seed == 0) counter.seed = start_seed(kEventSeed[k] + hot.cpu);
    for (uint32_t i = 0; i < counter.count; ++i) counter.value[i] = draw_start(counter, k);
    control |= uint64_t{EV5_CTL_WRAP} << kEventCounterControlShift[k];
    enable |= uint64_t{1} << (k + 1);
  }
  if (!any && !was_programmed) return;  // never used on this CPU: the qemu machine too
  pal::wrperfmon(PERFMON_DISABLE, kCounters12);
  // Frequencies off first: the model refuses a selection it does not count
  // for a counter that counts, and the old selection may be one.
  pal::wrperfmon(PERFMON_FREQ, 0);
  if (!any) return;
  // The modes they count in (dcpi run --events imiss:u): the kill bits, one
  // set for both counters (HRM PMCTR KILLU, KILLK, KILLP).
  pal::wrperfmon(PERFMON_OPTIONS, g_config.event_kill);
  select(hot, aux);
  pal::wrperfmon(PERFMON_FREQ, control);
  write_values(aux);
  pal::wrperfmon(PERFMON_ENABLE, enable);
}

// The next event gets its counter where it left it (R10000-style virtual
// counts): the one leaving keeps its partial count for its next turn.
void event_counters_rotate(CpuHot& hot) {
  CpuAux& aux = g_aux[hot.cpu];
  if (aux.counter[0].count < 2 && aux.counter[1].count < 2) return;
  const auto read = static_cast<uint64_t>(pal::wrperfmon(PERFMON_READ, 0));
  // RPCC's low 32 bits wrap; a turn lasts kMuxEvery periods, far below 2^32.
  const auto now = static_cast<uint32_t>(pal::rpcc());
  for (uint32_t k = 0; k < kEventCounters; ++k) {
    EventCounterState& counter = aux.counter[k];
    if (!counter.count) continue;
    // Below what was last written: it wrapped, and the overflow's sample,
    // held behind this handler's IPL, is still to come. It belongs to this
    // event, which keeps the counter until then (rotated away, the sample
    // was booked to the next event, and this one's count resumed after the
    // wrap, a period four times too long).
    const uint16_t value = event_counter_value(read, k);
    const bool wrapped = value < counter.value[counter.index];
    counter.value[counter.index] = value;
    if (counter.count < 2 || wrapped) continue;
    aux.counted_cycles[counter.events[counter.index]] += now - counter.since;
    counter.since = now;
    counter.index =
        static_cast<uint8_t>(counter.index + 1u == counter.count ? 0 : counter.index + 1u);
  }
  select(hot, aux);
  write_values(aux);
}

// After a sample: a fresh period (the few events counted since the wrap are
// dropped, as counter 0's are at its reload). wrperfmon 9 writes both
// counters, so the other one, when it counts, is read first and goes on
// from where it is; alone, the reload is one write, as before counter 1
// (the mux configuration's cost, bench_mux.py).
void event_counters_reload(CpuHot& hot, uint32_t k) {
  CpuAux& aux = g_aux[hot.cpu];
  const uint32_t other = 1 - k;
  if (aux.counter[other].count) {
    const auto read = static_cast<uint64_t>(pal::wrperfmon(PERFMON_READ, 0));
    aux.counter[other].value[aux.counter[other].index] = event_counter_value(read, other);
  }
  EventCounterState& counter = aux.counter[k];
  counter.value[counter.index] = draw_start(counter, k);
  write_values(aux);
}

void add_event_counted_cycles(uint32_t cpu, StatsPayload& into) {
  for (uint32_t e = 0; e < DCPI_EVENT_COUNT; ++e) {
    const uint64_t cycles = g_aux[cpu].counted_cycles[e];
    if (e < kCountedCyclesFirst)
      into.counted.cycles[e] = cycles;
    else if (e < 2 * kCountedCyclesFirst)
      into.counted_more[e - kCountedCyclesFirst] = cycles;
    else
      into.counted_extra[e - 2 * kCountedCyclesFirst] = cycles;
  }
}

}  // namespace dcpi::driver
