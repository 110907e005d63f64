// Counting mode on the ev5 machine (issue 26 item 4; the R10000 paper,
// seed 003: per-process virtual counters, multiplexing with projected
// totals). Counter 1 counts loads or stores and counter 2 one of its misses
// or mispredicts, both at once, in user mode only (KILLK, KILLP: the
// kernel's and PALcode's own events would belong to nobody), and each
// interrupts when its bits wrap (16 and 14); the interrupt adds 2^16 or
// 2^14 to this CPU's wrap total for that counter. Instructions are counter
// 0's other selection in the 21164 HRM, issues (SEL0 = 1): counting mode
// takes no sample, so counter 0 is not needed as the sampling clock, and
// the model counts its issues with the same kill bits (16 bits; a wrap
// interrupt adds 2^16); it is never multiplexed. At every context switch
// the kernel takes what this CPU counted since the last take (wraps + the
// counters, read with wrperfmon 5) for the thread that ran, and the
// counters restart from 0. With more events than a counter, the scheduler
// tick rotates that counter's events (time multiplexing), and each event's
// time selected is kept with its count so that its share, and the
// projection count / share, can be printed.
//
// No sample is recorded: the counters are the measurement. The process's
// cycles are its time on the clock between takes.
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "firmware/ev5_counters.h"
#include "firmware/pal_calls.h"

namespace dcpi::driver {

namespace {

constexpr uint64_t kCounter0 = 1u << 0;  // wrperfmon 0/1: bit N = counter N
constexpr uint64_t kCounter0Wrap = uint64_t{1} << EV5_CTR0_WIDTH;
// Counters 1 and 2 by EventCounterState's index (driver/internal.h).
constexpr uint64_t kCounterBit[kEventCounters] = {1u << 1, 1u << 2};
constexpr uint64_t kOverflowBit[kEventCounters] = {EV5_OVERFLOW_CTR1, EV5_OVERFLOW_CTR2};

// The configuration every CPU programs itself from, lazily, at its first
// take or tick after a change (generation). Slot i counts events[i]; each
// counter's slots are listed in `on` (their slot numbers).
struct CountingConfig {
  uint32_t generation;
  uint32_t active;        // counting mode on (with no slot: cycles only, the qemu machine)
  uint32_t instructions;  // counter 0 counts issues (ev5)
  uint32_t slots;
  uint16_t events[kCountEvents];
  uint8_t on[kEventCounters][kCountEvents];
  uint8_t on_count[kEventCounters];
};
CountingConfig g_counting{};

// One CPU's counting state; touched by that CPU only, at IPL >= 5 (context
// switch, tick) or 6 (the wrap interrupt).
struct alignas(64) CountingCpu {
  uint32_t generation;             // of g_counting it programmed; 0: not yet
  uint32_t turn[kEventCounters];   // each counter counts slot on[k][turn[k]] now
  uint64_t since;                  // clock at the last harvest
  uint64_t wraps[kEventCounters];  // events of the wraps since the last harvest
  uint64_t issue_wraps;            // counter 0's (instructions), likewise
  CountDelta pending;              // harvested, not yet taken by the kernel
};
CountingCpu g_counting_cpu[kMaxCpus];

uint32_t slot_now(const CountingCpu& state, uint32_t k) { return g_counting.on[k][state.turn[k]]; }

// The mux word: counter 0 on issues when it counts instructions, counters 1
// and 2 on the events of their turns.
uint64_t counting_mux(uint32_t cpu, const CountingCpu& state) {
  uint64_t word = g_counting.instructions ? EV5_MUX_SEL0_ISSUES : 0;
  word |= mux_code(cpu_hot(cpu).event);
  for (uint32_t k = 0; k < kEventCounters; ++k)
    if (g_counting.on_count[k]) word |= mux_field_of(g_counting.events[slot_now(state, k)]);
  return word;
}

uint64_t counters_in_use() {
  uint64_t bits = 0;
  for (uint32_t k = 0; k < kEventCounters; ++k)
    if (g_counting.on_count[k]) bits |= kCounterBit[k];
  return bits;
}

// Counters 1 and 2 on their turns' events; every model counter restarts
// from 0 (the caller harvested them).
void select_turns(uint32_t cpu) {
  const uint64_t in_use = counters_in_use();
  pal::wrperfmon(PERFMON_DISABLE, in_use);
  pal::wrperfmon(PERFMON_MUX, counting_mux(cpu, g_counting_cpu[cpu]));
  pal::wrperfmon(PERFMON_WRITE_EVENTS, 0);
  pal::wrperfmon(PERFMON_ENABLE, in_use);
}

bool uses_counters() { return g_counting.slots != 0 || g_counting.instructions != 0; }

// Programs this CPU for the current configuration (user mode only, wrap
// interrupts) the first time it counts under it.
void program(uint32_t cpu) {
  CountingCpu& state = g_counting_cpu[cpu];
  const uint32_t generation = __atomic_load_n(&g_counting.generation, __ATOMIC_ACQUIRE);
  if (state.generation == generation) return;
  state = CountingCpu{};
  state.generation = generation;
  state.since = kernel::clock::cycles();
  if (!uses_counters()) return;  // cycles only: no event counter to program
  pal::wrperfmon(PERFMON_OPTIONS, EV5_KILL_KERNEL | EV5_KILL_PAL);
  // Frequencies off, then the events: the model refuses a selection it
  // does not count for a counter set to count.
  pal::wrperfmon(PERFMON_FREQ, 0);
  pal::wrperfmon(PERFMON_MUX, counting_mux(cpu, state));
  uint64_t control = g_counting.instructions ? uint64_t{EV5_CTL_WRAP} << EV5_CTL0_SHIFT : 0;
  for (uint32_t k = 0; k < kEventCounters; ++k)
    if (g_counting.on_count[k]) control |= uint64_t{EV5_CTL_WRAP} << kEventCounterControlShift[k];
  pal::wrperfmon(PERFMON_FREQ, control);
  if (g_counting.slots) {
    select_turns(cpu);
  } else {
    pal::wrperfmon(PERFMON_WRITE_EVENTS, 0);
  }
  // With SEL0 = issues, PALcode leaves counter 0 to the model.
  if (g_counting.instructions) pal::wrperfmon(PERFMON_ENABLE, kCounter0);
}

// What the counters counted since the last harvest goes to the pending
// slots, and they restart from 0. They are read with wrperfmon 5 (counter
// 0 in 63:48, counter 1 in 47:32, counter 2 in 29:16); no event can happen
// meanwhile: the kernel runs with the counters killed.
void harvest(uint32_t cpu) {
  CountingCpu& state = g_counting_cpu[cpu];
  const uint64_t now = kernel::clock::cycles();
  state.pending.cycles += now - state.since;
  if (!uses_counters()) {  // cycles only
    state.since = now;
    return;
  }
  const uint64_t read = static_cast<uint64_t>(pal::wrperfmon(PERFMON_READ, 0));
  pal::wrperfmon(PERFMON_WRITE_EVENTS, 0);
  for (uint32_t k = 0; k < kEventCounters; ++k) {
    if (!g_counting.on_count[k]) continue;
    const uint32_t slot = slot_now(state, k);
    const uint64_t value = event_counter_value(read, k);
    state.pending.count[slot] += state.wraps[k] + value;
    state.pending.counted_cycles[slot] += now - state.since;
    state.wraps[k] = 0;
  }
  if (g_counting.instructions)
    state.pending.instructions +=
        state.issue_wraps + ((read >> EV5_CTR0_SHIFT) & (kCounter0Wrap - 1));
  state.issue_wraps = 0;
  state.since = now;
}

}  // namespace

int64_t counting_configure(EventSet events) {
  if (events == 0) {
    __atomic_store_n(&g_counting.active, 0u, __ATOMIC_RELEASE);
    return kControlOk;
  }
  // Cycles are the clock's (every machine); issues (instructions) counter
  // 0's, loads and stores counter 1's, the rest counter 2's (ev5).
  const EventSet issues = events & event_bit(Event::kIssues);
  const EventSet counters12 = events & ~event_bit(Event::kCycles) & ~issues;
  if ((counters12 & ~kCountableOnEv5) != 0 ||
      ((counters12 | issues) != 0 && !machine_has_event_counters()))
    return kControlUncountableEvent;
  // ProfileMe's records go through C++ from now on, which keeps none while
  // counting (counting_overflow).
  profileme_slow_path();
  CountingConfig config{};
  config.active = 1;
  config.instructions = issues != 0;
  for (uint16_t e = 0; e < static_cast<uint16_t>(Event::kCount); ++e) {
    if (!(counters12 & (EventSet{1} << e)) || config.slots == kCountEvents) continue;
    const auto k = static_cast<uint32_t>(event_counter_of(e));
    config.on[k][config.on_count[k]++] = static_cast<uint8_t>(config.slots);
    config.events[config.slots++] = e;
  }
  config.generation = g_counting.generation + 1;
  g_counting = config;
  __atomic_thread_fence(__ATOMIC_RELEASE);
  return kControlOk;
}

bool counting_active() { return __atomic_load_n(&g_counting.active, __ATOMIC_ACQUIRE) != 0; }

bool counting_instructions() { return counting_active() && g_counting.instructions != 0; }

uint32_t counting_events(uint16_t* events) {
  for (uint32_t i = 0; i < g_counting.slots; ++i) events[i] = g_counting.events[i];
  return g_counting.slots;
}

void counting_take(CountDelta* into) {
  if (!counting_active()) return;
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  program(cpu);
  harvest(cpu);
  CountingCpu& state = g_counting_cpu[cpu];
  if (into != nullptr) {
    for (uint32_t i = 0; i < kCountEvents; ++i) {
      into->count[i] += state.pending.count[i];
      into->counted_cycles[i] += state.pending.counted_cycles[i];
    }
    into->cycles += state.pending.cycles;
    into->instructions += state.pending.instructions;
  }
  state.pending = CountDelta{};
}

// The R10000 paper's multiplexing: each tick the next event of each counter
// that has several gets it.
void counting_tick() {
  if (!counting_active()) return;
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  program(cpu);
  if (g_counting.on_count[0] < 2 && g_counting.on_count[1] < 2) return;
  harvest(cpu);
  CountingCpu& state = g_counting_cpu[cpu];
  for (uint32_t k = 0; k < kEventCounters; ++k)
    if (g_counting.on_count[k] >= 2)
      state.turn[k] = state.turn[k] + 1 == g_counting.on_count[k] ? 0 : state.turn[k] + 1;
  select_turns(cpu);
}

bool counting_overflow(uint64_t overflowed) {
  if (!counting_active() || !uses_counters()) return false;
  CountingCpu& state = g_counting_cpu[static_cast<uint32_t>(pal::whami())];
  for (uint32_t k = 0; k < kEventCounters; ++k)
    if (overflowed & kOverflowBit[k]) state.wraps[k] += uint64_t{1} << kEventCounterWidth[k];
  if (overflowed & EV5_OVERFLOW_CTR0) state.issue_wraps += kCounter0Wrap;
  return true;
}

}  // namespace dcpi::driver
