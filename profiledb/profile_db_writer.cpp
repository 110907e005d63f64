#include "profiledb/profile_db_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "profiledb/chain_file.h"
#include "profiledb/container.h"
#include "profiledb/context_file.h"
#include "profiledb/path_file.h"
#include "profiledb/profile_format.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using namespace profile_format;

std::string errno_text(int error) { return std::strerror(error); }

// Closes a descriptor on every path out of a scope.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

void fsync_directory(const fs::path& directory) {
  FileDescriptor fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0) ::fsync(fd.get());  // best effort: some filesystems refuse
}

// The pid a writer left in its lock file, "" if none.
std::string lock_owner(int fd) {
  char owner[32] = {};
  (void)!::pread(fd, owner, sizeof owner - 1, 0);
  std::string who(owner, strnlen(owner, sizeof owner));
  while (!who.empty() && who.back() == '\n') who.pop_back();
  return who;
}

}  // namespace

std::optional<std::string> active_writer(const fs::path& directory) {
  const fs::path lock = directory / kLockName;
  FileDescriptor fd(::open(lock.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  if (::flock(fd.get(), LOCK_SH | LOCK_NB) == 0) return std::nullopt;  // closing unlocks
  if (errno != EWOULDBLOCK) return std::nullopt;
  const std::string who = lock_owner(fd.get());
  return who.empty() ? "a writer" : "pid " + who;
}

ProfileDatabaseWriter::ProfileDatabaseWriter(fs::path directory, WriterFaults faults)
    : directory_(std::move(directory)), faults_(faults) {
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error || !fs::is_directory(directory_))
    throw ProfileDatabaseError("cannot create profile database directory " + directory_.string() +
                               ": " + (error ? error.message() : "not a directory"));
  const fs::path lock = directory_ / kLockName;
  FileDescriptor fd(::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (fd.get() < 0)
    throw ProfileDatabaseError("cannot open lock file " + lock.string() + ": " + errno_text(errno));
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int flock_error = errno;
    const std::string who = lock_owner(fd.get());
    if (flock_error == EWOULDBLOCK)
      throw ProfileDatabaseError(
          "profile database " + directory_.string() + " is locked by another writer" +
          (who.empty() ? "" : " (pid " + who + ")") + "; wait for it to finish");
    throw ProfileDatabaseError("cannot lock " + lock.string() + ": " + errno_text(flock_error));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) != 0 || ::pwrite(fd.get(), pid.data(), pid.size(), 0) < 0)
    throw ProfileDatabaseError("cannot write lock file " + lock.string() + ": " +
                               errno_text(errno));
  lock_fd_ = fd.release();

  const fs::path format = directory_ / kFormatName;
  if (fs::exists(fs::symlink_status(format))) {
    if (!format_file_matches(format)) {
      ::close(lock_fd_);
      throw ProfileDatabaseError(directory_.string() +
                                 " holds a FORMAT file this dcpi does not understand");
    }
  } else {
    try {
      write_atomically(format, kFormatText, std::strlen(kFormatText));
    } catch (...) {
      ::close(lock_fd_);
      throw;
    }
  }
}

ProfileDatabaseWriter::~ProfileDatabaseWriter() {
  if (batching_) abort_batch();          // an exception left the batch open
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

void ProfileDatabaseWriter::write_atomically(const fs::path& file, const void* data, size_t size) {
  const fs::path temporary =
      file.parent_path() / (".tmp-" + file.filename().string() + "-" + std::to_string(::getpid()));
  auto fail = [&](const std::string& what, int error) {
    ::unlink(temporary.c_str());
    throw ProfileDatabaseError("cannot " + what + " " + file.string() + ": " + errno_text(error) +
                               " (the previous version, if any, is intact)");
  };
  FileDescriptor fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail("create a temporary file for", errno);
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (size_t done = 0; done < size;) {
    size_t chunk = size - done;
    if (bytes_written_ + chunk > faults_.fail_after_bytes) {
      chunk =
          faults_.fail_after_bytes > bytes_written_ ? faults_.fail_after_bytes - bytes_written_ : 0;
      if (chunk == 0) fail("write", ENOSPC);
    }
    const ssize_t wrote = ::write(fd.get(), bytes + done, chunk);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      fail("write", errno);
    }
    done += static_cast<size_t>(wrote);
    bytes_written_ += static_cast<uint64_t>(wrote);
  }
  if (::fsync(fd.get()) != 0) fail("flush", errno);
  if (::close(fd.release()) != 0) fail("close", errno);
  if (batching_) {  // renamed by commit_batch
    const bool again = std::any_of(staged_.begin(), staged_.end(),
                                   [&](const Staged& s) { return s.file == file; });
    if (!again) staged_.push_back({temporary, file});
    return;
  }
  if (::rename(temporary.c_str(), file.c_str()) != 0) fail("rename into place", errno);
  fsync_directory(file.parent_path());
}

fs::path ProfileDatabaseWriter::current_version(const fs::path& file) const {
  for (const Staged& s : staged_)
    if (s.file == file) return s.temporary;
  return file;
}

void ProfileDatabaseWriter::begin_batch() {
  if (batching_) throw std::logic_error("ProfileDatabaseWriter: batch already open");
  batching_ = true;
}

void ProfileDatabaseWriter::remove_staged() {
  for (const Staged& s : staged_) ::unlink(s.temporary.c_str());
  staged_.clear();
}

void ProfileDatabaseWriter::commit_batch() {
  batching_ = false;
  // Profiles before epoch.meta: a crash in between leaves totals behind the
  // files (db check says so), never ahead, and a new epoch unseen until then.
  std::stable_partition(staged_.begin(), staged_.end(),
                        [](const Staged& s) { return s.file.filename() != kEpochMetaName; });
  std::set<fs::path> directories;
  for (size_t i = 0; i < staged_.size(); ++i) {
    const Staged& s = staged_[i];
    if (::rename(s.temporary.c_str(), s.file.c_str()) != 0) {
      const int error = errno;
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<long>(i));
      remove_staged();
      epochs_created_.clear();
      throw ProfileDatabaseError("cannot rename " + s.file.string() + " into place: " +
                                 errno_text(error) + " (part of this pull is stored)");
    }
    directories.insert(s.file.parent_path());
  }
  staged_.clear();
  epochs_created_.clear();
  for (const fs::path& directory : directories) fsync_directory(directory);
}

void ProfileDatabaseWriter::abort_batch() {
  batching_ = false;
  remove_staged();
  std::error_code ignored;
  for (const fs::path& directory : epochs_created_) fs::remove(directory, ignored);
  epochs_created_.clear();
}

// A new epoch directory gets its epoch.meta (all counts zero) at once: no
// reader ever sees an epoch without one (issue 18). If that first write
// fails, the directory goes again; only a kill between the two leaves debris,
// which readers skip and `dcpi db check --repair` removes.
fs::path ProfileDatabaseWriter::ensure_epoch_directory(uint64_t epoch) {
  if (epoch > kMaxEpoch)
    throw ProfileDatabaseError("epoch " + std::to_string(epoch) + " is beyond the largest a " +
                               "database holds (" + std::to_string(kMaxEpoch) + ")");
  const fs::path directory = directory_ / epoch_directory_name(epoch);
  std::error_code error;
  const bool created = fs::create_directory(directory, error);
  if (error || !fs::is_directory(directory))
    throw ProfileDatabaseError("cannot create epoch directory " + directory.string() + ": " +
                               (error ? error.message() : "not a directory"));
  const fs::path meta = directory / kEpochMetaName;
  if (!created && fs::exists(fs::symlink_status(current_version(meta)))) return directory;
  if (created && batching_) epochs_created_.push_back(directory);
  EpochMetadata empty;
  empty.epoch = epoch;
  empty.updates = 0;
  const std::string text = encode_epoch_metadata(empty);
  try {
    write_atomically(meta, text.data(), text.size());
  } catch (...) {
    if (created) fs::remove(directory, error);  // empty again: the write cleaned up
    throw;
  }
  return directory;
}

void ProfileDatabaseWriter::merge_profile(uint64_t epoch, const ImageIdentity& image,
                                          uint16_t event, const std::vector<ProfileRow>& rows) {
  if (rows.empty()) return;
  const fs::path file = ensure_epoch_directory(epoch) / profile_file_name(image, event_name(event));
  ProfileInfo info;
  info.image = image;
  info.event = event;
  info.event_name = event_name(event);
  std::vector<ProfileRow> merged;
  if (fs::exists(current_version(file))) {
    Profile existing;
    try {
      existing = read_profile_file(current_version(file));
    } catch (const ProfileFormatError& error) {
      throw ProfileDatabaseError(std::string("existing profile is damaged, not overwriting it: ") +
                                 error.what() + " (see dcpi db check)");
    }
    const ImageIdentity& old = existing.info.image;
    if (old.build_id != image.build_id || old.path != image.path || old.unknown != image.unknown ||
        existing.info.event != event)
      throw ProfileDatabaseError(file.string() + " belongs to another image or event (" + old.path +
                                 " " + old.build_id + "): file name collision");
    info.image.image_size = std::max(old.image_size, image.image_size);
    merged = merge_sorted_rows(existing.rows, rows);
  } else {
    merged = rows;
  }
  const std::vector<uint8_t> bytes = encode_profile(info, merged);
  write_atomically(file, bytes.data(), bytes.size());
}

void ProfileDatabaseWriter::merge_values(uint64_t epoch, const values::ValueFileInfo& update,
                                         const std::vector<values::PcHotlist>& hotlists) {
  if (hotlists.empty()) return;
  const fs::path file =
      ensure_epoch_directory(epoch) / values::value_file_name(update.image, update.kind);
  values::ValueFileInfo info = update;
  info.epoch = epoch;
  std::vector<values::PcHotlist> merged;
  if (fs::exists(current_version(file))) {
    values::ValueFile existing;
    try {
      existing = values::read_value_file(current_version(file));
    } catch (const ProfileFormatError& error) {
      throw ProfileDatabaseError(std::string("existing value file is damaged, not overwriting "
                                             "it: ") +
                                 error.what() + " (see dcpi db check)");
    }
    const values::ValueFileInfo& old = existing.info;
    if (old.image.build_id != info.image.build_id || old.image.path != info.image.path ||
        old.image.unknown != info.image.unknown || old.kind != info.kind ||
        old.capacity != info.capacity || old.shrink_factor != info.shrink_factor)
      throw ProfileDatabaseError(file.string() +
                                 " belongs to another image, kind or hotlist "
                                 "size (" +
                                 old.image.path + " " + old.kind + ")");
    info.image.image_size = std::max(old.image.image_size, info.image.image_size);
    merged = values::merge_hotlists(info, existing.hotlists, hotlists);
  } else {
    merged = hotlists;
  }
  const std::vector<uint8_t> bytes = values::encode_value_file(info, merged);
  write_atomically(file, bytes.data(), bytes.size());
}

bool ProfileDatabaseWriter::has_recording(const std::string& identity) const {
  // As staged by an open batch: several recordings may be added in one.
  const std::vector<std::string> lines =
      read_recording_lines(current_version(directory_ / kRecordingsName));
  return std::find(lines.begin(), lines.end(), identity) != lines.end();
}

void ProfileDatabaseWriter::add_recording(const std::string& identity) {
  const fs::path file = directory_ / kRecordingsName;
  std::string text;
  for (const std::string& line : read_recording_lines(current_version(file))) text += line + '\n';
  text += identity + '\n';
  write_atomically(file, text.data(), text.size());
}

void ProfileDatabaseWriter::store_contexts(uint64_t epoch, const std::vector<uint8_t>& bytes) {
  const fs::path file = ensure_epoch_directory(epoch) / profiledb::kContextsFileName;
  write_atomically(file, bytes.data(), bytes.size());
}

void ProfileDatabaseWriter::store_paths(uint64_t epoch, const std::vector<uint8_t>& bytes) {
  const fs::path file = ensure_epoch_directory(epoch) / profiledb::kPathsFileName;
  write_atomically(file, bytes.data(), bytes.size());
}

void ProfileDatabaseWriter::store_chains(uint64_t epoch, const std::vector<uint8_t>& bytes) {
  const fs::path file = ensure_epoch_directory(epoch) / profiledb::kChainsFileName;
  write_atomically(file, bytes.data(), bytes.size());
}

void ProfileDatabaseWriter::merge_processes(uint64_t epoch, const ProcessTable& table) {
  const fs::path file = ensure_epoch_directory(epoch) / kProcessTableName;
  ProcessTable merged;
  try {
    merged = read_process_table_file(current_version(file)).value_or(ProcessTable{});
  } catch (const ProfileFormatError& error) {
    throw ProfileDatabaseError(std::string("existing process table is damaged, not overwriting "
                                           "it: ") +
                               error.what() + " (see dcpi db check)");
  }
  const ProcessTable known = merged;
  merged.merge(table);
  if (merged == known && fs::exists(current_version(file))) return;
  const std::string text = encode_process_table(merged);
  write_atomically(file, text.data(), text.size());
}

void ProfileDatabaseWriter::record_images(const std::vector<RecordedImage>& images) {
  const fs::path file = directory_ / kImageCatalogName;
  std::vector<RecordedImage> known;
  try {
    known = read_image_catalog_file(current_version(file));
  } catch (const ProfileFormatError& error) {
    throw ProfileDatabaseError(std::string("existing image catalog is damaged, not overwriting "
                                           "it: ") +
                               error.what() + " (see dcpi db check)");
  }
  const std::vector<RecordedImage> merged = merge_image_catalogs(known, images);
  if (merged == known && fs::exists(current_version(file))) return;
  const std::string text = encode_image_catalog(merged);
  write_atomically(file, text.data(), text.size());
}

void ProfileDatabaseWriter::replace_epoch_metadata(const EpochMetadata& metadata) {
  const fs::path file = ensure_epoch_directory(metadata.epoch) / kEpochMetaName;
  const std::string text = encode_epoch_metadata(metadata);
  write_atomically(file, text.data(), text.size());
}

void ProfileDatabaseWriter::merge_epoch_metadata(const EpochMetadata& update) {
  const fs::path file = ensure_epoch_directory(update.epoch) / kEpochMetaName;
  EpochMetadata metadata;
  metadata.epoch = update.epoch;
  if (fs::exists(current_version(file))) {
    try {
      metadata = read_epoch_metadata(current_version(file));
    } catch (const ProfileFormatError& error) {
      throw ProfileDatabaseError(std::string("existing epoch metadata is damaged, not "
                                             "overwriting it: ") +
                                 error.what() + " (see dcpi db check)");
    }
  }
  // Issue 14: one epoch, one machine. The placeholder a new epoch directory
  // gets (updates 0) takes the update's; samples of two machines never mix.
  if (metadata.updates == 0)
    metadata.machine = update.machine;
  else if (metadata.machine != update.machine)
    throw ProfileDatabaseError("epoch " + std::to_string(update.epoch) + " of " +
                               directory_.string() + " holds samples from machine " +
                               metadata.machine + "; refusing to add samples from machine " +
                               update.machine + " to it (use another epoch)");
  if (metadata.start_time == 0) metadata.start_time = update.start_time;
  metadata.samples += update.samples;
  metadata.unknown_samples += update.unknown_samples;
  metadata.entries += update.entries;
  metadata.records += update.records;
  metadata.records_rejected += update.records_rejected;
  metadata.records_lost += update.records_lost;
  metadata.ring_records_dropped =
      std::max(metadata.ring_records_dropped, update.ring_records_dropped);
  metadata.ring_samples_dropped =
      std::max(metadata.ring_samples_dropped, update.ring_samples_dropped);
  metadata.updates += 1;
  metadata.period.merge(update.period);
  for (const auto& [cpu, stats] : update.cpu_stats) metadata.cpu_stats[cpu] = stats;
  const std::string text = encode_epoch_metadata(metadata);
  write_atomically(file, text.data(), text.size());
}

std::vector<std::string> read_recording_lines(const fs::path& file) {
  std::vector<std::string> lines;
  if (!fs::exists(fs::symlink_status(file))) return lines;
  const std::vector<uint8_t> bytes =
      profiledb::read_file_bytes(file, SIZE_MAX, profiledb::kMaxTextFileBytes);
  std::string line;
  for (uint8_t byte : bytes) {
    if (byte != '\n') {
      line += static_cast<char>(byte);
      continue;
    }
    lines.push_back(line);
    line.clear();
  }
  return lines;
}

std::vector<ProfileRow> merge_sorted_rows(const std::vector<ProfileRow>& rows,
                                          const std::vector<ProfileRow>& more) {
  auto key = [](const ProfileRow& row) { return std::tie(row.pid, row.cpu, row.address); };
  std::vector<ProfileRow> merged;
  merged.reserve(rows.size() + more.size());
  size_t i = 0, j = 0;
  while (i < rows.size() || j < more.size()) {
    if (j == more.size() || (i < rows.size() && key(rows[i]) < key(more[j]))) {
      merged.push_back(rows[i++]);
    } else if (i == rows.size() || key(more[j]) < key(rows[i])) {
      merged.push_back(more[j++]);
    } else {
      ProfileRow row = rows[i++];
      if (more[j].count > UINT64_MAX - row.count)
        throw std::overflow_error("profile count overflows 64 bits");
      row.count += more[j++].count;
      merged.push_back(row);
    }
  }
  return merged;
}

}  // namespace dcpi
