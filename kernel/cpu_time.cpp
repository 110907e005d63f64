#include "kernel/cpu_time.h"

#include "kernel/smp.h"

namespace kernel::cpu_time {
namespace {

// Own cycles are kept in units of 1/kShares cycle so that dividing by the
// number of running CPUs (1..kMaxCpus) is exact and needs no divide (Alpha
// has none): kShares is a multiple of every such count.
constexpr uint64_t least_common_multiple_up_to(uint32_t n) {
  uint64_t lcm = 1;
  for (uint64_t k = 2; k <= n; ++k) {
    uint64_t a = lcm, b = k;
    while (b != 0) {
      const uint64_t r = a % b;
      a = b;
      b = r;
    }
    lcm = lcm / a * k;
  }
  return lcm;
}
constexpr uint64_t kShares = least_common_multiple_up_to(smp::kMaxCpus);
static_assert(kShares % smp::kMaxCpus == 0 && kShares <= 840, "8 CPUs at most: 840");

// kShares / running, for running = 0..kMaxCpus (a table: no divide).
struct ShareTable {
  uint64_t of[smp::kMaxCpus + 1];
};
constexpr ShareTable kShareOf = [] {
  ShareTable table{};
  for (uint32_t running = 1; running <= smp::kMaxCpus; ++running)
    table.of[running] = kShares / running;
  return table;
}();

uint64_t running_mask = 0;  // CPUs running a thread (not their idle loop)
uint64_t since = 0;         // RPCC up to which everything is booked
ThreadAccount cpus[smp::kMaxCpus];
ThreadAccount* running[smp::kMaxCpus];  // the account of the thread each CPU runs

uint32_t running_count() { return static_cast<uint32_t>(__builtin_popcountll(running_mask)); }

// Books [since, now) to the CPUs that ran threads throughout it.
// A CPU's RPCC may read a little behind another's (the ev5 model books a
// slept CPU's time late): such a `now` books nothing.
void book_until(uint64_t now) {
  if (now <= since) return;
  const uint64_t elapsed = now - since;
  const uint64_t share = kShareOf.of[running_count()];
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu)
    if ((running_mask >> cpu) & 1) {
      cpus[cpu].thread_cycles += elapsed;
      cpus[cpu].own_shares += elapsed * share;
      running[cpu]->thread_cycles += elapsed;
      running[cpu]->own_shares += elapsed * share;
    }
  since = now;
}

sched::CpuTimes times_of(const ThreadAccount& account) {
  // kShares is a small constant: the compiler divides by multiplying.
  return {account.thread_cycles, account.own_shares / kShares};
}

}  // namespace

void switched_locked(uint32_t cpu, ThreadAccount* next, uint64_t now) {
  book_until(now);
  running[cpu] = next;
  const uint64_t bit = uint64_t{1} << cpu;
  running_mask = next != nullptr ? running_mask | bit : running_mask & ~bit;
}

sched::CpuTimes read_locked(uint32_t cpu, uint64_t now) {
  book_until(now);
  return times_of(cpus[cpu]);
}

sched::CpuTimes read_thread_locked(ThreadAccount& account, uint64_t now) {
  book_until(now);
  return times_of(account);
}

}  // namespace kernel::cpu_time
