// The daemon's sample processing (DCPI §4.3.1): transfer records in, per
// (epoch, image, event) aggregates out, merged into the profile database by
// flush(). Load-map records feed the attribution model (load_map_model.h),
// sample records are placed with it, statistics records and decode counts go
// to the epoch's metadata.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "firmware/transfer_ring.h"
#include "hostdump/chains/chain_payload.h"
#include "hostdump/load_map_model.h"
#include "hostdump/row_accumulator.h"
#include "hostdump/transfer_records.h"
#include "hostdump/values/value_reducer.h"
#include "profiledb/profile_db.h"

namespace dcpi {

class ProfileDatabaseWriter;

// What ingestion did, for the command's summary line.
struct IngestTotals {
  uint64_t records = 0;
  uint64_t entries = 0;
  uint64_t samples = 0;
  uint64_t unknown_samples = 0;
  uint64_t load_map_records = 0;
  uint64_t load_map_rejected = 0;
  uint64_t values_records = 0;   // kValues records (seed 001 §2.1.2)
  uint64_t values_rejected = 0;  // of those, malformed payloads
  uint64_t epoch_rejected = 0;   // records naming an epoch beyond kMaxEpoch
  uint64_t chains_records = 0;   // kChains records (issue 28)
  uint64_t chains_rejected = 0;  // of those, malformed payloads
  uint64_t chain_samples = 0;    // call-chain samples decoded
};

class ProfileBuilder {
 public:
  // One validated record (from decode_ring_window or StreamDecoder).
  void add_record(const TransferRecord& record);
  // Sample entries of one CPU in one epoch (the body of a kSamples record).
  void add_samples(uint64_t epoch, uint16_t cpu, std::span<const SampleEntry> entries);
  // Decoder counts since the last call, charged to the current epoch.
  void add_decode_stats(const DecodeStats& delta);
  // The guest ring's own drop counters (cumulative since boot).
  void note_ring_drops(uint64_t records_dropped, uint64_t samples_dropped);

  // Merges everything pending into the database and forgets it. On an
  // exception nothing is forgotten, so the caller may retry. An epoch this
  // builder has not written yet and that holds nothing (no samples, values,
  // problems or driver interrupts: an unprofiled run, an epoch begun as the
  // guest stopped) is kept
  // back instead, so the database never shows an empty epoch as a run
  // (issue 16); later records for it are merged with what was kept.
  void flush(ProfileDatabaseWriter& writer);

  // Database epoch = base + the guest's epoch number, so that a new run can
  // start after the epochs a database already holds (dcpi run). Default 0.
  void set_epoch_base(uint64_t base) {
    epoch_base_ = base;
    current_epoch_ = base;  // decode counts before the first record belong here
  }

  // The machine the samples come from (epoch.meta `machine`, issue 14):
  // "qemu" (the default) or "ev5"; recorded with every epoch this builder writes.
  void set_machine(std::string machine) { machine_ = std::move(machine); }
  const std::string& machine() const { return machine_; }

  LoadMapModel& load_map() { return load_map_; }
  const LoadMapModel& load_map() const { return load_map_; }
  // Value-tuple reduction (seed 001 §2.2, §2.4): add plug-in modules here.
  values::ValueReducer& values() { return values_; }
  // Sampled call chains (issue 28): without a sink kChains records are
  // counted and dropped; the run plugs in the unwinder.
  void set_chain_sink(ChainSink* sink) { chain_sink_ = sink; }
  // Chain samples whose reused quadwords the host did not have (a lost record).
  uint64_t chain_references_lost() const { return chain_decoder_.references_lost(); }
  const IngestTotals& totals() const { return totals_; }
  uint64_t current_epoch() const { return current_epoch_; }
  bool pending() const { return !epochs_.empty(); }
  // Epochs this builder has written to the database, ascending.
  const std::set<uint64_t>& written_epochs() const { return written_epochs_; }

 private:
  struct ProfileKey {
    uint32_t image_id;  // kUnknownImageId for the unknown profile
    uint16_t event;
    auto operator<=>(const ProfileKey&) const = default;
  };
  struct PendingEpoch {
    std::map<ProfileKey, RowAccumulator> profiles;
    EpochMetadata metadata;
  };
  static constexpr uint32_t kUnknownImageId = UINT32_MAX;

  PendingEpoch& epoch(uint64_t number);
  bool epoch_in_range(uint64_t guest_epoch);
  void write_values(ProfileDatabaseWriter& writer, uint64_t number) const;
  void write_epoch(ProfileDatabaseWriter& writer, uint64_t number,
                   const PendingEpoch& pending) const;
  RowAccumulator& profile(PendingEpoch& pending, ProfileKey key);
  bool holds_nothing(uint64_t number, const PendingEpoch& pending) const;

  LoadMapModel load_map_;
  values::ValueReducer values_;
  ChainSink* chain_sink_ = nullptr;
  ChainDecoder chain_decoder_;
  std::map<uint64_t, PendingEpoch> epochs_;
  std::set<uint64_t> written_epochs_;
  uint64_t current_epoch_ = 0;
  uint64_t epoch_base_ = 0;
  std::string machine_{kMachineQemu};
  IngestTotals totals_;
  // One-entry caches for the inner loop: consecutive entries mostly share them.
  PendingEpoch* cached_epoch_ = nullptr;
  uint64_t cached_epoch_number_ = 0;
  RowAccumulator* cached_profile_ = nullptr;
  ProfileKey cached_key_{0, 0};
};

}  // namespace dcpi
