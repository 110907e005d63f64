#include "hostdump/profile_builder.h"

#include <cstring>

#include "firmware/load_map.h"
#include "profiledb/profile_db_writer.h"
#include "profiledb/profile_format.h"

namespace dcpi {

ProfileBuilder::PendingEpoch& ProfileBuilder::epoch(uint64_t number) {
  if (cached_epoch_ && cached_epoch_number_ == number) return *cached_epoch_;
  PendingEpoch& pending = epochs_[number];
  pending.metadata.epoch = number;
  pending.metadata.machine = machine_;
  cached_epoch_ = &pending;
  cached_epoch_number_ = number;
  cached_profile_ = nullptr;
  return pending;
}

RowAccumulator& ProfileBuilder::profile(PendingEpoch& pending, ProfileKey key) {
  if (cached_profile_ && cached_key_ == key) return *cached_profile_;
  cached_profile_ = &pending.profiles[key];
  cached_key_ = key;
  return *cached_profile_;
}

void ProfileBuilder::add_samples(uint64_t number, uint16_t cpu,
                                 std::span<const SampleEntry> entries) {
  PendingEpoch& pending = epoch(number);
  EpochMetadata& metadata = pending.metadata;
  for (const SampleEntry& entry : entries) {
    if (entry.count == 0) continue;  // an empty hash slot
    const std::optional<Placement> placement = load_map_.place(entry.pid, entry.pc);
    const ProfileKey key{placement ? placement->image_id : kUnknownImageId, entry.event};
    profile(pending, key)
        .add(entry.pid, cpu, placement ? placement->address : entry.pc, entry.count);
    metadata.samples += entry.count;
    if (!placement) metadata.unknown_samples += entry.count;
    ++metadata.entries;
  }
  totals_.entries += entries.size();
}

// Issue 18: an epoch no reader can see (beyond kMaxEpoch, or wrapping) is
// rejected here, at ingestion, and counted against the current epoch.
bool ProfileBuilder::epoch_in_range(uint64_t guest_epoch) {
  if (guest_epoch <= kMaxEpoch && epoch_base_ + guest_epoch <= kMaxEpoch) return true;
  ++totals_.epoch_rejected;
  ++epoch(current_epoch_).metadata.records_rejected;
  return false;
}

void ProfileBuilder::add_record(const TransferRecord& record) {
  if (!epoch_in_range(record.header.epoch)) return;
  const uint64_t record_epoch = epoch_base_ + record.header.epoch;
  current_epoch_ = record_epoch;
  PendingEpoch& pending = epoch(record_epoch);
  ++pending.metadata.records;
  ++totals_.records;
  const uint8_t* payload = record.payload.data();
  switch (record.type()) {
    case RecordType::kSamples: {
      SamplesPayload header;
      std::memcpy(&header, payload, sizeof header);
      std::vector<SampleEntry> entries(header.count);
      std::memcpy(entries.data(), payload + sizeof header, entries.size() * sizeof(SampleEntry));
      add_samples(record_epoch, record.header.cpu, entries);
      break;
    }
    case RecordType::kLoadMap: {
      LoadMapRecord map;
      std::memcpy(&map, payload, sizeof map);
      ++totals_.load_map_records;
      if (!load_map_.apply(map)) ++totals_.load_map_rejected;
      break;
    }
    case RecordType::kStats: {
      StatsPayload whole{};
      std::memcpy(&whole, payload, std::min<size_t>(record.payload.size(), sizeof whole));
      const DriverCpuStats& stats = whole.stats;
      uint64_t values[sizeof stats / sizeof(uint64_t)];
      std::memcpy(values, &stats, sizeof values);
      CpuStats named;
      const auto& names = profile_format::driver_stat_names();
      for (size_t i = 0; i < names.size(); ++i) named[names[i]] = values[i];
      // Issue 26: each event's time on its rotating counter, 1 or 2 (only
      // those it had).
      for (uint32_t e = 0; e < DCPI_EVENT_COUNT; ++e)
        if (const uint64_t cycles = counted_cycles_of(whole, e); cycles != 0)
          named[profile_format::counted_cycles_stat_name(e)] = cycles;
      // Issue 27: ProfileMe's mean interval, which its records are scaled by.
      if (whole.profileme_mean != 0) named["profileme_mean"] = whole.profileme_mean;
      if (whole.profileme_pair_window != 0)  // paired: two records per interval
        named["profileme_pair_window"] = whole.profileme_pair_window;
      // Issue 26: the modes counters 1 and 2 counted in (the reader names
      // their profiles `imiss:u`, profiledb/event_modes.h).
      if (whole.event_kill != 0) named["event_kill"] = whole.event_kill;
      // The CPU's cycles running threads and its share of the one virtual
      // clock (profiledb/own_cycles.h), since the epoch began.
      if (whole.thread_cycles != 0) {
        named["thread_cycles"] = whole.thread_cycles;
        named["own_cycles"] = whole.own_cycles;
      }
      pending.metadata.cpu_stats[static_cast<uint32_t>(stats.cpu)] = std::move(named);
      // The period of the samples this CPU shipped since its previous kStats
      // record (all taken with it: the driver flushes before a period change).
      if ((stats.period_flags & kPeriodSampled) && stats.period_base != 0)
        if (stats.period_base + uint64_t{stats.period_range} <= profile_format::kMaxPeriodCycles)
          pending.metadata.period.merge({stats.period_base, stats.period_range, false});
      break;
    }
    case RecordType::kEpoch: {
      EpochPayload begin;
      std::memcpy(&begin, payload, sizeof begin);
      if (!epoch_in_range(begin.epoch)) break;
      // The payload names the epoch that begins with the next record.
      EpochMetadata& next = epoch(epoch_base_ + begin.epoch).metadata;
      if (next.start_time == 0) next.start_time = begin.time;
      break;
    }
    case RecordType::kValues: {
      ++totals_.values_records;
      // Tuple PCs are attributed like samples: the load map, per PID.
      const auto place = [this](uint32_t pid,
                                uint64_t pc) -> std::optional<std::pair<uint32_t, uint64_t>> {
        const std::optional<Placement> placement = load_map_.place(pid, pc);
        if (!placement) return std::nullopt;
        return std::pair{placement->image_id, placement->address};
      };
      if (!values_.add_payload(record_epoch, record.payload, place)) ++totals_.values_rejected;
      break;
    }
    case RecordType::kChains: {
      ++totals_.chains_records;
      std::vector<ChainSample> samples;
      uint64_t dropped = 0;
      if (!chain_decoder_.decode(record.payload, record_epoch, record.header.cpu, samples,
                                 &dropped)) {
        ++totals_.chains_rejected;
        break;
      }
      totals_.chain_samples += samples.size();
      if (chain_sink_ == nullptr) break;
      for (const ChainSample& sample : samples) chain_sink_->add(sample, load_map_);
      if (dropped != 0) chain_sink_->add_dropped(record_epoch, dropped);
      break;
    }
    case RecordType::kPad:
      break;
  }
}

void ProfileBuilder::add_decode_stats(const DecodeStats& delta) {
  EpochMetadata& metadata = epoch(current_epoch_).metadata;
  metadata.records_rejected += delta.rejected();
  metadata.records_lost += delta.lost_records;
}

void ProfileBuilder::note_ring_drops(uint64_t records_dropped, uint64_t samples_dropped) {
  EpochMetadata& metadata = epoch(current_epoch_).metadata;
  metadata.ring_records_dropped = std::max(metadata.ring_records_dropped, records_dropped);
  metadata.ring_samples_dropped = std::max(metadata.ring_samples_dropped, samples_dropped);
}

void ProfileBuilder::write_values(ProfileDatabaseWriter& writer, uint64_t number) const {
  const auto& pending = values_.pending();
  for (auto it = pending.lower_bound({number, 0, 0});
       it != pending.end() && it->first.epoch == number; ++it) {
    const auto& kind = values_.kinds()[it->first.kind];
    values::ValueFileInfo info;
    info.image = load_map_.images()[it->first.image_id];
    info.kind = kind.name;
    info.module = kind.module;
    info.format = kind.format;
    std::vector<values::PcHotlist> hotlists;
    hotlists.reserve(it->second.size());
    for (const auto& [address, sample] : it->second)
      hotlists.push_back(values::hotlist_of(address, sample));
    writer.merge_values(number, info, hotlists);
  }
}

void ProfileBuilder::write_epoch(ProfileDatabaseWriter& writer, uint64_t number,
                                 const PendingEpoch& pending) const {
  static const ImageIdentity kUnknown{"", "[unknown]", 0, true};
  for (const auto& [key, rows] : pending.profiles) {
    if (rows.empty()) continue;
    const ImageIdentity& image =
        key.image_id == kUnknownImageId ? kUnknown : load_map_.images()[key.image_id];
    writer.merge_profile(number, image, key.event, rows.sorted_rows());
  }
  write_values(writer, number);
  // The run's process table as known now (issue 29): the epoch's samples
  // may belong to any process the run started so far.
  if (!load_map_.processes().empty()) writer.merge_processes(number, load_map_.processes());
  writer.merge_epoch_metadata(pending.metadata);
}

bool ProfileBuilder::holds_nothing(uint64_t number, const PendingEpoch& pending) const {
  const EpochMetadata& m = pending.metadata;
  const auto& values = values_.pending();
  const auto value = values.lower_bound({number, 0, 0});
  for (const auto& [cpu, stats] : m.cpu_stats)
    if (const auto interrupts = stats.find("interrupts");
        interrupts != stats.end() && interrupts->second != 0)
      return false;  // the driver sampled: its counts are worth keeping
  for (const auto& [pid, process] : load_map_.processes().processes)
    if (process.counts) return false;  // counting mode (dcpi stat): the counts are the result
  return !written_epochs_.count(number) && m.samples == 0 && m.records_rejected == 0 &&
         m.records_lost == 0 && m.ring_records_dropped == 0 && m.ring_samples_dropped == 0 &&
         (value == values.end() || value->first.epoch != number);
}

void ProfileBuilder::flush(ProfileDatabaseWriter& writer) {
  // All of it in one batch: nothing is visible until everything is written,
  // so after a failure the database and this builder are as they were, and a
  // retry, or the same ring records pulled again, store it exactly once.
  std::set<uint64_t> writing;
  for (const auto& [number, pending] : epochs_)
    if (!holds_nothing(number, pending)) writing.insert(number);
  writer.begin_batch();
  try {
    for (uint64_t number : writing) write_epoch(writer, number, epochs_.at(number));
    writer.commit_batch();
  } catch (...) {
    writer.abort_batch();
    throw;
  }
  auto& values = values_.pending();
  for (uint64_t number : writing) {
    const EpochMetadata& metadata = epochs_.at(number).metadata;
    totals_.samples += metadata.samples;
    totals_.unknown_samples += metadata.unknown_samples;
    values.erase(values.lower_bound({number, 0, 0}), values.lower_bound({number + 1, 0, 0}));
    epochs_.erase(number);
    written_epochs_.insert(number);
  }
  cached_epoch_ = nullptr;
  cached_profile_ = nullptr;
}

}  // namespace dcpi
