#include "kernel/smp.h"

#include "driver/driver.h"
#include "firmware/pal_abi.h"
#include "kernel/console.h"
#include "kernel/palcalls.h"
#include "kernel/profiler.h"
#include "kernel/scheduler.h"
#include "kernel/trap_entries.h"

extern "C" {
void secondary_entry();
extern char boot_stacks[];
}

namespace kernel::smp {

CpuState cpus[kMaxCpus];

namespace {

constexpr uint64_t kStackBytes = 16384;  // kernel/entry.S
constexpr uint64_t kWaitCycles = 50'000'000;

bool wait_until_nonzero(const uint64_t& word, uint64_t budget_cycles) {
  const uint64_t start = pal::rpcc();
  while (__atomic_load_n(&word, __ATOMIC_ACQUIRE) == 0) {
    if (pal::rpcc() - start > budget_cycles) return false;
  }
  return true;
}

}  // namespace

void start_secondaries(uint64_t cpu_count) {
  __atomic_store_n(&cpus[0].online, 1, __ATOMIC_RELEASE);
  for (uint32_t cpu = 1; cpu < cpu_count && cpu < kMaxCpus; ++cpu) {
    const uint64_t stack_top = reinterpret_cast<uint64_t>(boot_stacks) + (cpu + 1) * kStackBytes;
    pal::start_cpu(cpu, secondary_entry, stack_top, cpu);
    if (!wait_until_nonzero(cpus[cpu].online, kWaitCycles))
      panic("cpu %u did not come online", cpu);
  }
}

uint64_t online_count() {
  uint64_t n = 0;
  for (const CpuState& c : cpus) n += __atomic_load_n(&c.online, __ATOMIC_ACQUIRE);
  return n;
}

uint64_t ipi_round_trip(uint32_t target) {
  const uint32_t self = static_cast<uint32_t>(pal::whami());
  const uint64_t before = __atomic_load_n(&cpus[self].ipis_received, __ATOMIC_ACQUIRE);
  const uint64_t start = pal::rpcc();
  __atomic_store_n(&cpus[target].reply_to, self + 1, __ATOMIC_RELEASE);
  pal::wripir(target);
  while (__atomic_load_n(&cpus[self].ipis_received, __ATOMIC_ACQUIRE) == before) {
    if (pal::rpcc() - start > kWaitCycles) return 0;
  }
  return pal::rpcc() - start;
}

void handle_ipi() {
  CpuState& self = cpus[pal::whami()];
  if (__atomic_load_n(&self.flush_tlb, __ATOMIC_ACQUIRE)) {
    pal::tbia();
    __atomic_store_n(&self.flush_tlb, 0, __ATOMIC_RELEASE);
  }
  __atomic_fetch_add(&self.ipis_received, 1, __ATOMIC_ACQ_REL);
  const uint64_t reply_to = __atomic_exchange_n(&self.reply_to, 0, __ATOMIC_ACQ_REL);
  if (reply_to != 0) pal::wripir(reply_to - 1);
  dcpi::driver::sampler_ipi();  // requests from the DCPI daemon (driver/sync.cpp)
  profiler::ipi();
}

void run_on_secondaries(void (*job)()) {
  const uint32_t self = static_cast<uint32_t>(pal::whami());
  for (uint32_t cpu = 0; cpu < kMaxCpus; ++cpu) {
    if (cpu == self || !cpus[cpu].online) continue;
    __atomic_store_n(&cpus[cpu].job, job, __ATOMIC_RELEASE);
    pal::wripir(cpu);
  }
}

void clock_tick() { ++cpus[pal::whami()].ticks; }

}  // namespace kernel::smp

// A secondary CPU arrives here from PALcode with its own stack.
extern "C" void secondary_main(uint64_t cpu) {
  using namespace kernel;
  install_trap_entries();
  sched::init_cpu(static_cast<uint32_t>(cpu));
  pal::set_tick(smp::kTickNs);
  __atomic_store_n(&smp::cpus[cpu].online, 1, __ATOMIC_RELEASE);
  pal::swpipl(0);
  for (;;) {
    pal::wtint();
    if (auto job = __atomic_exchange_n(&smp::cpus[cpu].job, nullptr, __ATOMIC_ACQ_REL)) job();
    sched::idle_step();  // this CPU's idle thread: run queued processes
  }
}
