// Each CPU's and each thread's own cycles under QEMU's one virtual clock.
// Under -icount the vCPUs run round-robin and every CPU's cycle counter
// (RPCC, the ALARM counter 0 is built on) is the one clock all of them
// advance, so while k CPUs run threads each retires about a k-th of the
// cycles its samples count (docs/qemu-deviations.md). The scheduler knows k
// at every moment: it books, per CPU and per thread, the cycles spent
// running a thread (not an idle loop) and those cycles each divided by the
// number of CPUs running threads then (the own cycles). The driver reports
// the CPUs' per epoch (StatsPayload::thread_cycles, own_cycles), a thread's
// exit record its own (firmware/load_map.h kThreadExit), and `dcpi calc`
// scales the period of each thread's samples by their ratio
// (profiledb/own_cycles.h). Interrupts taken on idle CPUs are not counted.
// Guest only.
#pragma once
#include <cstdint>

#include "driver/kernel_services.h"

namespace kernel::cpu_time {

// A thread's account, kept in its Process (zero when the slot is taken).
struct ThreadAccount {
  uint64_t thread_cycles;
  uint64_t own_shares;  // own cycles in units of 1/kShares (cpu_time.cpp)
};

// The scheduler switched `cpu` to the thread whose account is `next`
// (nullptr: its idle loop) at `now` (RPCC). Called with sched::lock held.
void switched_locked(uint32_t cpu, ThreadAccount* next, uint64_t now);

// What `cpu` was booked since boot, up to `now`. sched::lock held.
sched::CpuTimes read_locked(uint32_t cpu, uint64_t now);

// What the thread owning `account` was booked, up to `now` (it may be
// running). sched::lock held.
sched::CpuTimes read_thread_locked(ThreadAccount& account, uint64_t now);

}  // namespace kernel::cpu_time
