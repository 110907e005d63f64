// What one cycles sample stands for of a CPU's own cycles. Under -icount
// every CPU's cycle counter is one virtual clock that all CPUs advance
// (docs/qemu-deviations.md): while k CPUs run threads each retires about a
// k-th of the cycles its samples count, so samples × period overstates the
// instructions a CPU executed up to k-fold. The guest's scheduler books,
// per CPU and epoch, the cycles it ran threads and its share of the clock
// meanwhile (epoch.meta `cpu N thread_cycles` and `own_cycles`,
// kernel/cpu_time.h); their ratio summed over the CPUs is the share of a
// period that a sample of a thread stood for.
// A thread's own share comes from its end (the process table's cputime
// line): its samples are weighed by it; a thread without one (still
// running, a kernel thread) by the epoch's, summed over the CPUs
// (epoch.meta `cpu N thread_cycles` and `own_cycles`); the idle loops'
// samples (id 0: mostly a sleeping CPU's, and the boot CPU's start-up,
// which ran alone) by none.
#pragma once
#include <cstdint>
#include <optional>

#include "profiledb/process_table.h"
#include "profiledb/profile_db.h"

namespace dcpi {

struct OwnCycleShare {
  double share = 1;  // own cycles / thread cycles, in (0, 1]
  // Its inverse: CPUs running threads, on average over thread time.
  double running_cpus() const { return 1 / share; }
};

// nullopt when the epoch does not record them (a guest from before them, or
// no thread ran).
std::optional<OwnCycleShare> own_cycle_share(const EpochMetadata& metadata);

// What an epoch says of its samples' own cycles: the CPUs' share, and the
// late samples' toll. A CPU whose counter overflows while it waits for its
// round-robin turn takes the sample when the turn comes, and the next
// period starts then (docs/qemu-deviations.md), so the threads' samples
// are fewer than their cycles ÷ period: measured as r = the threads'
// samples × mean period ÷ their cycles (about 0.95 with 2-4 busy CPUs), a
// sample stands for 1/r periods of the clock on average. A thread waits
// for its turns in proportion to 1 − its share, so its samples are late by
// `lateness` × (1 − share) ÷ (1 − the epoch's share) periods.
struct EpochOwnShares {
  std::optional<OwnCycleShare> epoch;
  double lateness = 0;  // 1/r − 1; 0 when not measured (fewer than 1.5 CPUs ran threads,
                        // or r outside [0.7, 1): runs accumulated in one epoch, noise)
};
// From the epoch's metadata (`metadata`, read by the caller) and, when
// threads ran on 1.5 CPUs or more on average, its cycles samples of threads
// (rows with a thread id, every image).
EpochOwnShares epoch_own_shares(const ProfileDatabase& db, uint64_t epoch,
                                const EpochMetadata& metadata);
// The lateness from the counts (epoch_own_shares' rule): 0 unless
// `share` is at most 1/1.5 and r in [0.7, 1).
double measured_lateness(const OwnCycleShare& share, double thread_samples, double mean_period,
                         double thread_cycles);

// Each thread's share in an epoch: its own when the table has it, else the
// epoch's; times its late samples' toll.
class ThreadOwnShares {
 public:
  ThreadOwnShares(EpochOwnShares epoch, const ProcessTable* table) : epoch_(epoch), table_(table) {}
  std::optional<double> of_thread(uint32_t tid) const;

 private:
  EpochOwnShares epoch_;
  const ProcessTable* table_;
};

// The share of a set of samples (an image's): each thread's weighted by its
// samples; samples of threads without a share count as whole periods.
class OwnShareSum {
 public:
  void add(double samples, std::optional<double> share);
  // nullopt when no sample had a share.
  std::optional<OwnCycleShare> result() const;

 private:
  double weighted_ = 0;
  double samples_ = 0;
  bool any_ = false;
};

}  // namespace dcpi
