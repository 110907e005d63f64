#include "profiledb/own_cycles.h"

namespace dcpi {

std::optional<OwnCycleShare> own_cycle_share(const EpochMetadata& metadata) {
  double thread = 0, own = 0;
  for (const auto& [cpu, stats] : metadata.cpu_stats) {
    const auto t = stats.find("thread_cycles");
    const auto o = stats.find("own_cycles");
    if (t == stats.end() || o == stats.end()) continue;
    thread += static_cast<double>(t->second);
    own += static_cast<double>(o->second);
  }
  if (thread <= 0 || own <= 0 || own > thread) return std::nullopt;
  return OwnCycleShare{.share = own / thread, .running_cpus = thread / own};
}

ThreadOwnShares::ThreadOwnShares(const EpochMetadata& metadata, const ProcessTable* table)
    : epoch_(own_cycle_share(metadata)), table_(table) {}

std::optional<double> ThreadOwnShares::of_thread(uint32_t tid) const {
  // The idle loops (id 0): a sleeping CPU's samples, and the boot CPU's
  // start-up, which ran alone. Whole periods.
  if (tid == 0) return std::nullopt;
  if (table_ != nullptr)
    if (const auto thread = table_->threads.find(tid); thread != table_->threads.end())
      if (const auto& time = thread->second.cpu_time; time && time->thread_cycles > 0)
        return static_cast<double>(time->own_cycles) / static_cast<double>(time->thread_cycles);
  if (epoch_) return epoch_->share;
  return std::nullopt;
}

void OwnShareSum::add(double samples, std::optional<double> share) {
  any_ = any_ || share.has_value();
  weighted_ += samples * share.value_or(1.0);
  samples_ += samples;
}

std::optional<OwnCycleShare> OwnShareSum::result() const {
  if (!any_ || samples_ <= 0 || weighted_ <= 0) return std::nullopt;
  const double share = weighted_ / samples_;
  return OwnCycleShare{.share = share, .running_cpus = 1 / share};
}

}  // namespace dcpi
