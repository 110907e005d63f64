// READER API of the on-disk profile database (DESIGN §6, DCPI §4.3.3).
// This is the interface the report tools (dcpi prof/list/calc/stats/diff)
// build on; the writer lives in profiledb/profile_db_writer.h. Format:
// docs/profile-db.md.
//
//   DIR/                       the database (a user-chosen directory)
//     FORMAT                   "dcpi profile database 1": marks the directory
//     LOCK                     flock()ed by the one writer; readers never lock
//     epoch-00000001/          one subdirectory per epoch (DCPI: nonoverlapping
//       epoch.meta               time intervals); its metadata (text, checksummed)
//       <image>.<event>.prof     one compact binary file per (image, event)
//       unknown.<event>.prof     samples no image could claim (rows keyed by PC)
//
// Every profile row is (pid, cpu, address) -> count, where `address` is the
// ELF virtual address inside the image (pc - load_address + link_address,
// firmware/load_map.h), so report tools look it up directly in the image's ELF
// symbols; in the unknown profile it is the raw PC. pid and cpu are kept so
// reports can filter by image, PID, CPU and epoch.
//
// Usage:
//   const ProfileDatabase db = ProfileDatabase::open("prof.db");
//   for (uint64_t epoch : db.epochs()) {
//     const EpochMetadata meta = db.epoch_metadata(epoch);
//     for (const ProfileInfo& info : db.profiles(epoch)) {
//       const Profile profile = db.read_profile(info);   // rows sorted by (pid, cpu, address)
//       ... info.image.path, info.image.build_id, info.event_name, profile.rows ...
//     }
//   }
//
// Malformed input never crashes: every problem is a ProfileFormatError naming
// the file and the byte offset where reading failed.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "profiledb/process_table.h"

namespace dcpi {

// A file of the database is malformed (bad magic, version, checksum, varint,
// order, truncation, ...). what() = "PATH: at offset N: problem".
class ProfileFormatError : public std::runtime_error {
 public:
  ProfileFormatError(std::string path, uint64_t offset, const std::string& problem);
  const std::string& path() const { return path_; }
  uint64_t offset() const { return offset_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  uint64_t offset_;
  std::string problem_;
};

// The database itself cannot be used (missing directory, not a database,
// locked by another writer, I/O failure). The message names the path.
class ProfileDatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which image a profile belongs to (DCPI §4.3.2: "a unique identifier for
// each loaded image" — here the GNU build-id — plus its path name).
struct ImageIdentity {
  std::string build_id;     // lower-case hex of NT_GNU_BUILD_ID; empty if none
  std::string path;         // as the guest reported it; "[unknown]" for the unknown profile
  uint64_t image_size = 0;  // bytes mapped (LoadMapRecord::size); 0 for unknown
  bool unknown = false;     // the profile of samples no image could place

  auto operator<=>(const ImageIdentity&) const = default;
};

struct ProfileRow {
  // As stored: the thread that took the samples (the driver's PID key holds
  // the tid since issue 29; a process's first thread has tid == pid, and
  // older databases stored the process). 0 = kernel / no process.
  // analysis/samples/sample_set.h's load_samples sets it to the thread's
  // process (epoch-N/processes) and moves the thread to `tid`.
  uint32_t pid = 0;
  uint32_t cpu = 0;      // CPU that took the samples; 0xffff if not known
  uint64_t address = 0;  // ELF virtual address in the image (raw PC if unknown)
  uint64_t count = 0;    // samples (>= 1)
  uint32_t tid = 0;      // the thread, once load_samples resolved it; 0 in stored rows

  auto operator<=>(const ProfileRow&) const = default;
};

// One profile file, from its header only (cheap: reading it does not decode rows).
struct ProfileInfo {
  std::filesystem::path file;
  uint64_t epoch = 0;
  ImageIdentity image;
  uint16_t event = 0;      // dcpi::Event (firmware/events.h)
  std::string event_name;  // "cycles", ...
  uint64_t row_count = 0;
  uint64_t total_count = 0;  // sum of the rows' counts
};

struct Profile {
  ProfileInfo info;
  std::vector<ProfileRow> rows;  // sorted by (pid, cpu, address), unique keys, count >= 1
};

// Latest per-CPU driver statistics of the epoch (DriverCpuStats, cumulative
// in the guest, so the newest snapshot wins). Keys are the stat names of
// docs/profile-db.md ("interrupts", "hits", "misses", "dropped_both_buffers_full", ...).
using CpuStats = std::map<std::string, uint64_t>;

// The sampling period an epoch's samples were taken with (DCPI §4.1.1: each
// period uniform in [base, base + range)), from the guest's kStats records
// (docs/transfer-format.md). base 0 = unknown (a database or guest from
// before the period was recorded, or an epoch in which no CPU sampled).
// When the epoch saw several periods, `changed` is set and [base, base +
// range) is the smallest interval holding every period drawn.
struct SamplingPeriod {
  uint64_t base = 0;
  uint64_t range = 0;
  bool changed = false;

  bool known() const { return base != 0; }
  // The mean period: base + (range - 1) / 2 (base when range <= 1); 0 if unknown.
  double mean() const;
  // Adds the periods of `other` (the epoch.meta merge rule, docs/profile-db.md):
  // unknown adds nothing; a different period sets `changed` and widens the interval.
  void merge(const SamplingPeriod& other);

  auto operator<=>(const SamplingPeriod&) const = default;
};

// Mean of a period uniform in [base, base + range) as the driver draws it
// (firmware/park_miller.h scale_to_range: base + [0, range - 1]; range 0 = base).
double mean_period(uint64_t base, uint64_t range);
// "[8192, 9216)", or "8192" when range <= 1 (the interval only).
std::string period_interval_text(const SamplingPeriod& period);
// For reports: "unknown", "[8192, 9216)", or "changed, within [8192, 65536)".
std::string to_string(const SamplingPeriod& period);

// The machine an epoch's samples were taken on (issue 14; epoch.meta key
// `machine`): "qemu", QEMU retiring one instruction per cycle under -icount,
// or "ev5", QEMU whose clock the 21164 timing model drives. Databases from
// before it was recorded have no key: their epochs are "qemu".
inline constexpr std::string_view kMachineQemu = "qemu";
inline constexpr std::string_view kMachineEv5 = "ev5";
bool is_machine_name(std::string_view name);

struct EpochMetadata {
  uint64_t epoch = 0;
  uint64_t start_time = 0;            // guest RPCC when the epoch began (EpochPayload), 0 if unseen
  uint64_t samples = 0;               // all samples stored in this epoch, unknown included
  uint64_t unknown_samples = 0;       // of those, in the unknown profiles
  uint64_t entries = 0;               // sample entries (hash/overflow entries) merged
  uint64_t records = 0;               // valid transfer records of this epoch
  uint64_t records_rejected = 0;      // bad magic/CRC/size/type while this epoch was current
  uint64_t records_lost = 0;          // sequence gaps
  uint64_t ring_records_dropped = 0;  // guest could not fit them in the ring
  uint64_t ring_samples_dropped = 0;
  uint64_t updates = 0;               // merges into this epoch so far
  SamplingPeriod period;              // keys period_base, period_range, period_changed (optional)
  std::string machine{kMachineQemu};  // key machine (optional: absent = qemu)
  std::map<uint32_t, CpuStats> cpu_stats;
};

class ProfileDatabase {
 public:
  // Throws ProfileDatabaseError if `directory` is missing or not a database.
  static ProfileDatabase open(const std::filesystem::path& directory);

  const std::filesystem::path& directory() const { return directory_; }
  // Epoch numbers present, ascending: directories holding an epoch.meta.
  std::vector<uint64_t> epochs() const;
  // Epoch directories without epoch.meta (debris of a write killed between
  // creating the directory and its first metadata): skipped by epochs(),
  // reported by `dcpi db check`, removed by its --repair (issue 18).
  std::vector<std::filesystem::path> incomplete_epochs() const;
  // `chosen` (nullopt: every epoch present); throws ProfileDatabaseError
  // naming the first one the database lacks.
  std::vector<uint64_t> select_epochs(const std::optional<std::vector<uint64_t>>& chosen) const;
  std::filesystem::path epoch_directory(uint64_t epoch) const;
  // Throws ProfileFormatError if epoch.meta is malformed, ProfileDatabaseError if absent.
  EpochMetadata epoch_metadata(uint64_t epoch) const;
  // The epoch's process table (process_table.h), nothing for an epoch
  // written before issue 29. Throws ProfileFormatError if it is damaged.
  std::optional<ProcessTable> process_table(uint64_t epoch) const;
  // Headers of every profile file in the epoch, sorted by (image path, build-id, event).
  std::vector<ProfileInfo> profiles(uint64_t epoch) const;
  Profile read_profile(const ProfileInfo& info) const;

 private:
  explicit ProfileDatabase(std::filesystem::path directory) : directory_(std::move(directory)) {}
  std::filesystem::path directory_;
};

// Single-file access (also used by `dcpi db check` and the writer's merge).
// Both validate magic, version, header, varint bounds, row order, totals and
// the trailing CRC-32C; they throw ProfileFormatError on any problem.
ProfileInfo read_profile_info(const std::filesystem::path& file);
Profile read_profile_file(const std::filesystem::path& file);

// Parses an epoch.meta file; throws ProfileFormatError.
EpochMetadata read_epoch_metadata(const std::filesystem::path& file);

// True if `file` is a regular file holding exactly kFormatText (never blocks).
bool format_file_matches(const std::filesystem::path& file);

// Name of the subdirectory of an epoch: "epoch-00000001".
std::string epoch_directory_name(uint64_t epoch);

// The largest epoch a database holds (eight digits, as `dcpi run --epoch`
// takes): the writer refuses larger ones, ingestion rejects records naming
// them (issue 18: epoch 2^64-1 was stored where no reader could see it).
inline constexpr uint64_t kMaxEpoch = 99'999'999;

}  // namespace dcpi
