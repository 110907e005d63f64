// Writer of the profile database (DESIGN §6, DCPI §4.3.3; format in
// docs/profile-db.md, reader in profiledb/profile_db.h).
//
// Guarantees: one writer at a time (flock on DIR/LOCK; a second writer gets a
// clear error); every file is replaced atomically (temporary file in the same
// directory, fsync, rename, fsync of the directory), so a crash or a full
// disk never leaves a torn profile and never loses what was already stored;
// an existing file that does not decode is never overwritten.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "profiledb/image_catalog.h"
#include "profiledb/process_table.h"
#include "profiledb/profile_db.h"
#include "profiledb/value_file.h"

namespace dcpi {

// Adds `more` (sorted, unique) into `rows` (sorted, unique): the merge of an
// update into the profile already on disk (and of `dcpi db merge`). Throws
// std::overflow_error if a count would overflow 64 bits.
std::vector<ProfileRow> merge_sorted_rows(const std::vector<ProfileRow>& rows,
                                          const std::vector<ProfileRow>& more);

// Test hook: simulate a full disk. Writes fail with ENOSPC once this many
// bytes have been written through this writer.
struct WriterFaults {
  uint64_t fail_after_bytes = UINT64_MAX;
};

// "pid N" (or "a writer") if a writer holds DIR/LOCK now, nullopt if none
// does. Never blocks and never takes the lock.
std::optional<std::string> active_writer(const std::filesystem::path& directory);

class ProfileDatabaseWriter {
 public:
  // Creates the database directory if needed and takes the writer lock.
  // Throws ProfileDatabaseError (unwritable directory, locked, not a database).
  explicit ProfileDatabaseWriter(std::filesystem::path directory, WriterFaults faults = {});
  ~ProfileDatabaseWriter();
  ProfileDatabaseWriter(const ProfileDatabaseWriter&) = delete;
  ProfileDatabaseWriter& operator=(const ProfileDatabaseWriter&) = delete;

  // Adds `rows` (sorted by (pid, cpu, address), unique) to the (image, event)
  // profile of `epoch`: read the file if there is one, add, write atomically.
  void merge_profile(uint64_t epoch, const ImageIdentity& image, uint16_t event,
                     const std::vector<ProfileRow>& rows);

  // Merges per-PC value hotlists into the (image, kind) value file of `epoch`
  // (seed 001 §2.2; the merge rule is ConciseSample::merge). `info` names the
  // image, kind, module, format, N and f; its counts are recomputed.
  void merge_values(uint64_t epoch, const values::ValueFileInfo& info,
                    const std::vector<values::PcHotlist>& hotlists);

  // Replaces epoch.meta (`dcpi db check --repair`: totals recomputed from
  // the profiles).
  void replace_epoch_metadata(const EpochMetadata& metadata);

  // Folds an update into epoch.meta: counts add up (samples, records, ...),
  // guest counters that are cumulative (ring drops, per-CPU driver stats)
  // take the newest value, start_time the first non-zero one. An epoch holds
  // one machine's samples: an update from another machine than the epoch's
  // throws ProfileDatabaseError (issue 14).
  void merge_epoch_metadata(const EpochMetadata& update);

  // One pull's merge as a unit (DCPI §4.3.1: the daemon merges what it
  // collected, then releases it). Between begin_batch and commit_batch every
  // file is written and fsynced beside its final name, and only commit_batch
  // renames them into place; abort_batch removes them (and the epoch
  // directories the batch created). A write that fails (full disk, ulimit -f)
  // then leaves the database as it was before the pull, and the records, still
  // in the guest's ring, are stored exactly once when pulled again. Only a
  // rename failing part-way through commit_batch (not a full disk: renames
  // need no space) can leave part of a batch in place.
  void begin_batch();
  void commit_batch();
  void abort_batch();

  // Recordings merged before (DIR/RECORDINGS): an identity such as
  // "crc32c:0123abcd size:4096" is added once its records are stored.
  bool has_recording(const std::string& identity) const;
  void add_recording(const std::string& identity);
  // Adds images to DIR/IMAGES (image_catalog.h): one entry per (build-id,
  // guest path), a newer host path replacing an older one. Batch-aware.
  void record_images(const std::vector<RecordedImage>& images);
  // Stores the calling-context file of `epoch` (context_file.h; `dcpi run
  // --contexts`), replacing any it had: one run owns its epochs.
  void store_contexts(uint64_t epoch, const std::vector<uint8_t>& bytes);
  // The same for the path-profile file (path_file.h; `dcpi run --paths`).
  void store_paths(uint64_t epoch, const std::vector<uint8_t>& bytes);
  // The same for the sampled call chains (chain_file.h; `dcpi run -g`).
  void store_chains(uint64_t epoch, const std::vector<uint8_t>& bytes);
  // Merges `table` into epoch-N/processes (process_table.h): its entries
  // replace those with the same id, the others stay. Batch-aware; refuses to
  // overwrite a damaged table.
  void merge_processes(uint64_t epoch, const ProcessTable& table);

  const std::filesystem::path& directory() const { return directory_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  std::filesystem::path ensure_epoch_directory(uint64_t epoch);
  void write_atomically(const std::filesystem::path& file, const void* data, size_t size);
  // What a merge reads: the file as staged by the open batch, else as stored.
  std::filesystem::path current_version(const std::filesystem::path& file) const;
  void remove_staged();

  struct Staged {
    std::filesystem::path temporary;
    std::filesystem::path file;
  };
  bool batching_ = false;
  std::vector<Staged> staged_;
  std::vector<std::filesystem::path> epochs_created_;  // by the open batch

  std::filesystem::path directory_;
  WriterFaults faults_;
  int lock_fd_ = -1;
  uint64_t bytes_written_ = 0;
};

// The lines of a RECORDINGS file (none if it does not exist), each complete
// line as written, blank ones included; an unterminated last line is not one.
std::vector<std::string> read_recording_lines(const std::filesystem::path& file);

}  // namespace dcpi
