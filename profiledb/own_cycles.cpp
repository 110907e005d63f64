#include "profiledb/own_cycles.h"

namespace dcpi {

namespace {

double cpu_stat_sum(const EpochMetadata& metadata, const char* name) {
  double sum = 0;
  for (const auto& [cpu, stats] : metadata.cpu_stats)
    if (const auto it = stats.find(name); it != stats.end()) sum += static_cast<double>(it->second);
  return sum;
}

}  // namespace

// hostdump stores a CPU's thread_cycles and own_cycles together or neither.
std::optional<OwnCycleShare> own_cycle_share(const EpochMetadata& metadata) {
  const double thread = cpu_stat_sum(metadata, "thread_cycles");
  const double own = cpu_stat_sum(metadata, "own_cycles");
  if (thread <= 0 || own <= 0 || own > thread) return std::nullopt;
  return OwnCycleShare{.share = own / thread};
}

double measured_lateness(const OwnCycleShare& share, double thread_samples, double mean_period,
                         double thread_cycles) {
  if (share.running_cpus() < 1.5 || thread_cycles <= 0 || mean_period <= 0) return 0;
  const double r = thread_samples * mean_period / thread_cycles;
  return r >= 0.7 && r < 1 ? 1 / r - 1 : 0;
}

EpochOwnShares epoch_own_shares(const ProfileDatabase& db, uint64_t epoch,
                                const EpochMetadata& metadata) {
  EpochOwnShares shares{.epoch = own_cycle_share(metadata)};
  if (!shares.epoch || shares.epoch->running_cpus() < 1.5 || !metadata.period.known())
    return shares;
  double thread_samples = 0;
  for (const ProfileInfo& info : db.profiles(epoch)) {
    if (info.event_name != "cycles") continue;
    for (const ProfileRow& row : db.read_profile(info).rows)
      if (row.pid != 0) thread_samples += static_cast<double>(row.count);
  }
  shares.lateness = measured_lateness(*shares.epoch, thread_samples, metadata.period.mean(),
                                      cpu_stat_sum(metadata, "thread_cycles"));
  return shares;
}

std::optional<double> ThreadOwnShares::of_thread(uint32_t tid) const {
  // The idle loops (id 0): a sleeping CPU's samples, and the boot CPU's
  // start-up, which ran alone. Whole periods.
  if (tid == 0 || !epoch_.epoch) return std::nullopt;
  double share = epoch_.epoch->share;
  if (table_ != nullptr)
    if (const auto thread = table_->threads.find(tid); thread != table_->threads.end())
      if (const auto& time = thread->second.cpu_time; time && time->thread_cycles > 0)
        share = static_cast<double>(time->own_cycles) / static_cast<double>(time->thread_cycles);
  const double waiting = 1 - epoch_.epoch->share;  // > 0: lateness is 0 unless 1.5+ CPUs ran
  if (epoch_.lateness > 0 && waiting > 0) share *= 1 + epoch_.lateness * (1 - share) / waiting;
  return share;
}

void OwnShareSum::add(double samples, std::optional<double> share) {
  any_ = any_ || share.has_value();
  weighted_ += samples * share.value_or(1.0);
  samples_ += samples;
}

std::optional<OwnCycleShare> OwnShareSum::result() const {
  if (!any_ || samples_ <= 0 || weighted_ <= 0) return std::nullopt;
  return OwnCycleShare{.share = weighted_ / samples_};
}

}  // namespace dcpi
