// Counting mode on the ev5 machine (issue 26 item 4; the R10000 paper,
// seed 003: per-process virtual counters, multiplexing with projected
// totals). Counter 2 counts one of its events in user mode only (KILLK,
// KILLP: the kernel's and PALcode's own events would belong to nobody) and
// interrupts when its 14 bits wrap; the interrupt adds 2^14 to this CPU's
// wrap total. Instructions are counter 0's other selection in the 21164
// HRM, issues (SEL0 = 1): counting mode takes no sample, so counter 0 is
// not needed as the sampling clock, and the model counts its issues with
// the same kill bits (16 bits; a wrap interrupt adds 2^16); it is never
// multiplexed. At every context switch the kernel takes what this CPU
// counted since the last take (wraps + the counters, read with wrperfmon 5)
// for the thread that ran, and the counters restart from 0. With more
// events than counter 2, the scheduler tick rotates them (time
// multiplexing), and each event's time selected is kept with its count so
// that its share, and the projection count / share, can be printed.
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
constexpr uint64_t kCounter2 = 1u << 2;
constexpr uint64_t kCounter0Wrap = uint64_t{1} << EV5_CTR0_WIDTH;
constexpr uint64_t kCounter2Wrap = uint64_t{1} << EV5_CTR2_WIDTH;

// The configuration every CPU programs itself from, lazily, at its first
// take or tick after a change (generation).
struct CountingConfig {
  uint32_t generation;
  uint32_t active;        // counting mode on (with no slot: cycles only, the qemu machine)
  uint32_t instructions;  // counter 0 counts issues (ev5)
  uint32_t slots;
  uint16_t events[kCountSlots];
};
CountingConfig g_counting{};

// One CPU's counting state; touched by that CPU only, at IPL >= 5 (context
// switch, tick) or 6 (the wrap interrupt).
struct alignas(64) CountingCpu {
  uint32_t generation;   // of g_counting it programmed; 0: not yet
  uint32_t index;        // the slot counter 2 counts now
  uint64_t since;        // clock at the last harvest
  uint64_t wraps;        // events of the wraps since the last harvest
  uint64_t issue_wraps;  // counter 0's (instructions), likewise
  CountDelta pending;    // harvested, not yet taken by the kernel
};
CountingCpu g_counting_cpu[kMaxCpus];

// The mux word: counter 0 on issues when it counts instructions, counter 2
// on the slot's event.
uint64_t counting_mux(uint32_t cpu, uint32_t index) {
  const uint64_t sel0 = g_counting.instructions ? EV5_MUX_SEL0_ISSUES : 0;
  const uint64_t sel2 = g_counting.slots ? sel2_of(g_counting.events[index]) : 0;
  return sel0 | mux_code(cpu_hot(cpu).event) | sel2 << EV5_MUX_SEL2_SHIFT;
}

// Counter 2 on slot `index`; every model counter restarts from 0 (the
// caller harvested them).
void select_slot(uint32_t cpu, uint32_t index) {
  CountingCpu& state = g_counting_cpu[cpu];
  state.index = index;
  pal::wrperfmon(PERFMON_DISABLE, kCounter2);
  pal::wrperfmon(PERFMON_MUX, counting_mux(cpu, index));
  pal::wrperfmon(PERFMON_WRITE_EVENTS, 0);
  pal::wrperfmon(PERFMON_ENABLE, kCounter2);
}

bool uses_counters() { return g_counting.slots != 0 || g_counting.instructions != 0; }

// Programs this CPU for the current configuration (user mode only, wrap
// interrupts) the first time it counts under it.
void program(uint32_t cpu) {
  CountingCpu& state = g_counting_cpu[cpu];
  const uint32_t generation = __atomic_load_n(&g_counting.generation, __ATOMIC_ACQUIRE);
  if (state.generation == generation) return;
  state.generation = generation;
  state.wraps = 0;
  state.issue_wraps = 0;
  state.pending = CountDelta{};
  state.since = kernel::clock::cycles();
  if (!uses_counters()) return;  // cycles only: no event counter to program
  pal::wrperfmon(PERFMON_OPTIONS, EV5_KILL_KERNEL | EV5_KILL_PAL);
  // The events first: the model refuses a frequency for an unmodelled SEL2.
  pal::wrperfmon(PERFMON_MUX, counting_mux(cpu, 0));
  const uint64_t ctl0 = g_counting.instructions ? uint64_t{EV5_CTL_WRAP} << EV5_CTL0_SHIFT : 0;
  const uint64_t ctl2 = g_counting.slots ? uint64_t{EV5_CTL_WRAP} << EV5_CTL2_SHIFT : 0;
  pal::wrperfmon(PERFMON_FREQ, ctl0 | ctl2);
  if (g_counting.slots) {
    select_slot(cpu, 0);
  } else {
    pal::wrperfmon(PERFMON_WRITE_EVENTS, 0);
  }
  // With SEL0 = issues, PALcode leaves counter 0 to the model.
  if (g_counting.instructions) pal::wrperfmon(PERFMON_ENABLE, kCounter0);
}

// What the counters counted since the last harvest goes to the pending
// slot, and they restart from 0. They are read with wrperfmon 5 (counter 0
// in 63:48, counter 2 in 29:16); no event can happen meanwhile: the kernel
// runs with the counters killed.
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
  if (g_counting.slots) {
    const uint64_t value = (read >> EV5_CTR2_SHIFT) & (kCounter2Wrap - 1);
    state.pending.count[state.index] += state.wraps + value;
    state.pending.counted_cycles[state.index] += now - state.since;
  }
  if (g_counting.instructions)
    state.pending.instructions +=
        state.issue_wraps + ((read >> EV5_CTR0_SHIFT) & (kCounter0Wrap - 1));
  state.wraps = 0;
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
  // 0's and the rest counter 2's (ev5).
  const EventSet issues = events & event_bit(Event::kIssues);
  const EventSet counter2 = events & ~event_bit(Event::kCycles) & ~issues;
  if ((counter2 & ~kCountableOnEv5) != 0 ||
      ((counter2 | issues) != 0 && !machine_has_event_counters()))
    return kControlUncountableEvent;
  CountingConfig config{};
  config.active = 1;
  config.instructions = issues != 0;
  for (uint16_t e = 0; e < static_cast<uint16_t>(Event::kCount); ++e)
    if ((counter2 & (EventSet{1} << e)) && config.slots < kCountSlots)
      config.events[config.slots++] = e;
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
    for (uint32_t i = 0; i < kCountSlots; ++i) {
      into->count[i] += state.pending.count[i];
      into->counted_cycles[i] += state.pending.counted_cycles[i];
    }
    into->cycles += state.pending.cycles;
    into->instructions += state.pending.instructions;
  }
  state.pending = CountDelta{};
}

// The R10000 paper's multiplexing: each tick the next event gets counter 2.
void counting_tick() {
  if (!counting_active()) return;
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  program(cpu);
  if (g_counting.slots < 2) return;
  harvest(cpu);
  CountingCpu& state = g_counting_cpu[cpu];
  select_slot(cpu, state.index + 1 == g_counting.slots ? 0 : state.index + 1);
}

bool counting_overflow(uint64_t overflowed) {
  if (!counting_active() || !uses_counters()) return false;
  CountingCpu& state = g_counting_cpu[static_cast<uint32_t>(pal::whami())];
  if (overflowed & EV5_OVERFLOW_CTR2) state.wraps += kCounter2Wrap;
  if (overflowed & EV5_OVERFLOW_CTR0) state.issue_wraps += kCounter0Wrap;
  return true;
}

}  // namespace dcpi::driver
