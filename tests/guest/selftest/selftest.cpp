// The guest self-tests (test=NAME on the kernel command line): the kernel's
// one hook into them is kernel::selftest::run (kernel/selftest.h); this
// library, linked into kernel.elf, provides it. Each test prints
// "DCPI-TEST ..." lines that tests/guest asserts on.
#include "kernel/selftest.h"

#include "driver/kernel_services.h"
#include "kernel/console.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/process.h"
#include "kernel/smp.h"
#include "kernel/traps.h"
#include "tests/guest/selftest/driver_selftest.h"

extern "C" {
void trigger_traps();
extern const uint32_t trap_bpt[], trap_opcdec[], trap_arith[], trap_fen[];
}

namespace kernel::selftest {
namespace {

bool equals(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

void test_ipi() {
  const uint32_t self = static_cast<uint32_t>(pal::whami());
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    if (cpu == self || !smp::cpus[cpu].online) continue;
    const uint64_t cycles = smp::ipi_round_trip(cpu);
    kprintf("DCPI-TEST ipi from=%u to=%u %s cycles=%lu\n", self, cpu, cycles ? "ok" : "timeout",
            cycles);
  }
}

// Runs trigger_traps with the recorder armed and prints, for each trap,
// the entry PALcode used, a0, and the frame PC as an offset into
// trigger_traps (tests/guest compares it with the trapping instructions).
void test_traps() {
  TrapRecord records[8];
  arm_trap_recorder(records, 8);
  trigger_traps();
  const uint64_t n = disarm_trap_recorder();
  const uint64_t base = reinterpret_cast<uint64_t>(trigger_traps);
  for (uint64_t i = 0; i < n; ++i) {
    kprintf("DCPI-TEST trap entry=%lu a0=%lx pc_offset=%lu\n", records[i].entry, records[i].a0,
            records[i].pc - base);
  }
  const uint32_t* const sites[] = {trap_bpt, trap_opcdec, trap_arith, trap_fen};
  for (const uint32_t* site : sites)
    kprintf("DCPI-TEST trap site_offset=%lu\n", reinterpret_cast<uint64_t>(site) - base);
  kprintf("DCPI-TEST traps count=%lu\n", n);
}

// Kernel threads: each records its pid and CPU, then returns (= exits).
// The boot CPU's idle context waits by sleeping; ticks run the threads.
struct ThreadResult {
  uint64_t ran;
  uint64_t pid;
  uint64_t cpu;
};
ThreadResult thread_results[8];

void test_thread(void* arg) {
  ThreadResult& r = *static_cast<ThreadResult*>(arg);
  r.pid = current_pid();
  r.cpu = pal::whami();
  for (uint64_t spin = 0; spin < 200'000; ++spin) asm volatile("");
  __atomic_store_n(&r.ran, 1, __ATOMIC_RELEASE);
}

void test_kernel_threads() {
  const uint64_t free_before = pages::free_count();
  uint64_t pids[8];
  for (uint64_t i = 0; i < 8; ++i)
    pids[i] = spawn_kernel_thread(test_thread, &thread_results[i], "selftest");
  const uint64_t start = pal::rpcc();
  uint64_t done = 0;
  while (done < 8 && pal::rpcc() - start < 500'000'000) {
    pal::wtint();
    done = 0;
    for (const ThreadResult& r : thread_results) done += __atomic_load_n(&r.ran, __ATOMIC_ACQUIRE);
  }
  // Let the last ones exit and be reaped.
  for (uint64_t t = 0; t < 20 && pages::free_count() != free_before; ++t) pal::wtint();
  uint64_t cpu_mask = 0;
  for (uint64_t i = 0; i < 8; ++i) {
    kprintf("DCPI-TEST kthread spawned=%lu ran=%lu pid=%lu cpu=%lu\n", pids[i],
            thread_results[i].ran, thread_results[i].pid, thread_results[i].cpu);
    cpu_mask |= uint64_t{1} << thread_results[i].cpu;
  }
  kprintf("DCPI-TEST kthreads done=%lu cpu_mask=%lx free_before=%lu free_after=%lu\n", done,
          cpu_mask, free_before, pages::free_count());
}

// The boot context spins at IPL 0 for a few ticks with a runnable kernel
// thread queued, first with preemption off (the thread must not run on
// this, the only, CPU), then with it on (the tick must switch to it).
uint64_t preempt_thread_ran;

void note_ran(void*) { __atomic_store_n(&preempt_thread_ran, 1, __ATOMIC_RELEASE); }

void spin_ticks(uint64_t ticks) {
  const uint64_t start = pal::rpcc();
  while (pal::rpcc() - start < ticks * 2'500'000) asm volatile("");  // 10 ms of 4 ns cycles
}

void test_preemption() {
  sched::preemption_off();
  spawn_kernel_thread(note_ran, nullptr, "selftest");
  spin_ticks(4);
  const uint64_t ran_while_off = __atomic_load_n(&preempt_thread_ran, __ATOMIC_ACQUIRE);
  sched::preemption_on();
  spin_ticks(4);
  kprintf("DCPI-TEST preempt off_ran=%lu on_ran=%lu\n", ran_while_off,
          __atomic_load_n(&preempt_thread_ran, __ATOMIC_ACQUIRE));
}

}  // namespace

void run(const char* name, uint64_t samples) {
  kprintf("DCPI-TEST boot cpus_online=%lu\n", smp::online_count());
  if (equals(name, "ipi")) {
    test_ipi();
  } else if (driver_selftest::run(name, samples)) {
    // period, spread, blindspot, iplspot, conservation, control, bench, mpcounter
  } else if (equals(name, "traps")) {
    test_traps();
  } else if (equals(name, "kthreads")) {
    test_kernel_threads();
  } else if (equals(name, "preempt")) {
    test_preemption();
  } else if (!equals(name, "boot")) {
    kprintf("DCPI-TEST unknown test '%s'\n", name);
  }
  kprintf("DCPI-TEST done\n");
}

}  // namespace kernel::selftest
