// Multiprocessor bring-up and interprocessor interrupts.
#pragma once
#include <cstdint>

#include "firmware/memory_map.h"

namespace kernel::smp {

inline constexpr uint32_t kMaxCpus = dcpi::kMaxCpus;  // firmware/memory_map.h

struct alignas(64) CpuState {
  uint64_t online;
  uint64_t ipis_received;
  uint64_t ticks;
  uint64_t reply_to;   // CPU number + 1 to answer with an IPI; 0 = none
  void (*job)();       // work handed to an idle secondary CPU
  uint64_t flush_tlb;  // set by sched::flush_tlb: tbia at the IPI, then cleared
};

extern CpuState cpus[kMaxCpus];

void start_secondaries(uint64_t cpu_count);
uint64_t online_count();
// Sends an IPI to `target`, which answers with one; returns cycles taken,
// or 0 if no answer came.
uint64_t ipi_round_trip(uint32_t target);
void handle_ipi();
// Hands `job` to every online secondary CPU and wakes it with an IPI.
void run_on_secondaries(void (*job)());
void clock_tick();
// The scheduler tick every CPU runs with (a logical timer in PALcode).
inline constexpr uint64_t kTickNs = 10'000'000;

}  // namespace kernel::smp
