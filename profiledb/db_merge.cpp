#include "profiledb/db_merge.h"

#include <algorithm>
#include <cstdio>
#include <system_error>

#include "firmware/crc32c.h"
#include "profiledb/chain_file.h"
#include "profiledb/container.h"
#include "profiledb/context_file.h"
#include "profiledb/image_catalog.h"
#include "profiledb/path_file.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "profiledb/profile_format.h"
#include "profiledb/value_file.h"

namespace dcpi {
namespace fs = std::filesystem;
namespace {

void require_empty_output(const fs::path& output) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(output, error))) return;
  if (!fs::is_directory(output, error))
    throw ProfileDatabaseError(output.string() + " exists and is not a directory");
  if (!fs::is_empty(output, error))
    throw ProfileDatabaseError(output.string() +
                               " is not empty: dcpi db merge writes a new database");
}

// What an input holds, as `dcpi ingest` identifies a recording (issue 30):
// a CRC-32C over every file of its epochs (metadata, profiles, value files)
// with its name, and their size.
// Empty for a database without epochs (two of those add nothing twice).
std::string content_identity(const ProfileDatabase& db) {
  uint32_t crc = 0;
  uint64_t bytes = 0;
  auto add = [&](const fs::path& file) {
    const std::string name =
        file.parent_path().filename().string() + "/" + file.filename().string();
    const std::vector<uint8_t> content = profiledb::read_file_bytes(file);
    crc = crc32c_update(crc, name.data(), name.size());
    crc = crc32c_update(crc, content.data(), content.size());
    bytes += content.size();
  };
  for (uint64_t epoch : db.epochs()) {
    std::vector<fs::path> files;  // epoch.meta, profiles, value files
    for (const fs::directory_entry& entry : fs::directory_iterator(db.epoch_directory(epoch)))
      if (entry.is_regular_file() && !entry.path().filename().string().starts_with("."))
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) add(file);
  }
  if (bytes == 0) return {};
  char text[64];
  std::snprintf(text, sizeof text, "crc32c %08x, %llu bytes", crc,
                static_cast<unsigned long long>(bytes));
  return text;
}

// Each input once (issue 30): the same directory twice, or two copies of
// one run, would count its samples twice.
void refuse_repeated_inputs(const std::vector<fs::path>& inputs,
                            const std::vector<ProfileDatabase>& databases) {
  std::vector<std::string> identities;
  for (size_t i = 0; i < inputs.size(); ++i) {
    identities.push_back(content_identity(databases[i]));
    for (size_t j = 0; j < i; ++j) {
      std::error_code error;
      if (fs::equivalent(inputs[i], inputs[j], error))
        throw ProfileDatabaseError(inputs[i].string() + " is given twice (as " +
                                   inputs[j].string() + "); each input is merged once");
      if (!identities[i].empty() && identities[i] == identities[j])
        throw ProfileDatabaseError(inputs[i].string() + " holds the same profiles as " +
                                   inputs[j].string() + " (" + identities[i] +
                                   "): a copy of one run is merged once");
    }
  }
}

// The inputs as readers, refusing one that a writer is still filling.
std::vector<ProfileDatabase> open_inputs(const fs::path& output,
                                         const std::vector<fs::path>& inputs) {
  std::vector<ProfileDatabase> databases;
  for (const fs::path& input : inputs) {
    std::error_code error;
    if (fs::equivalent(input, output, error))
      throw ProfileDatabaseError(input.string() + " is both an input and the output");
    if (const auto writer = active_writer(input))
      throw ProfileDatabaseError(input.string() + " is being written by " + *writer +
                                 "; merge it when that run has finished");
    databases.push_back(ProfileDatabase::open(input));
  }
  refuse_repeated_inputs(inputs, databases);
  return databases;
}

// IMAGES and RECORDINGS of every input, united, into the open batch.
void unite_catalogs(const std::vector<fs::path>& inputs, ProfileDatabaseWriter& writer) {
  for (const fs::path& input : inputs) {
    writer.record_images(read_image_catalog(input));
    const auto recordings = read_recording_lines(input / profile_format::kRecordingsName);
    for (const std::string& recording : recordings)
      if (!recording.empty() && !writer.has_recording(recording)) writer.add_recording(recording);
  }
}

// One input epoch into `epoch` of the output, as one batch; the first one
// carries the catalogs too (issue 30), so no epoch is ever stored without
// them, however the merge ends.
uint64_t copy_epoch(const ProfileDatabase& db, uint64_t from, uint64_t epoch,
                    ProfileDatabaseWriter& writer, const std::vector<fs::path>* catalogs) {
  EpochMetadata metadata = db.epoch_metadata(from);
  uint64_t samples = 0;
  writer.begin_batch();
  try {
    if (catalogs) unite_catalogs(*catalogs, writer);
    for (const ProfileInfo& info : db.profiles(from)) {
      const Profile profile = db.read_profile(info);
      writer.merge_profile(epoch, info.image, info.event, profile.rows);
      samples += info.total_count;
    }
    for (const values::ValueFileInfo& info : values::list_value_files(db, from)) {
      const values::ValueFile file = values::read_value_file(info.file);
      writer.merge_values(epoch, file.info, file.hotlists);
    }
    const fs::path contexts =
        db.directory() / epoch_directory_name(from) / profiledb::kContextsFileName;
    if (fs::exists(contexts))  // checked as it is read, stored as it was
      writer.store_contexts(epoch,
                            profiledb::encode_contexts(profiledb::read_contexts_file(contexts)));
    const fs::path paths = db.directory() / epoch_directory_name(from) / profiledb::kPathsFileName;
    if (fs::exists(paths))
      writer.store_paths(epoch, profiledb::encode_paths(profiledb::read_paths_file(paths)));
    const fs::path chains =
        db.directory() / epoch_directory_name(from) / profiledb::kChainsFileName;
    if (fs::exists(chains))
      writer.store_chains(epoch, profiledb::encode_chains(profiledb::read_chains_file(chains)));
    if (const auto table = read_process_table(db.directory() / epoch_directory_name(from)))
      writer.merge_processes(epoch, *table);  // an epoch's pids are its run's
    metadata.epoch = epoch;
    writer.replace_epoch_metadata(metadata);  // kept as it was, counts and all
    writer.commit_batch();
  } catch (...) {
    writer.abort_batch();
    throw;
  }
  return samples;
}

// The catalogs alone, for inputs without epochs.
void write_catalogs(const std::vector<fs::path>& inputs, ProfileDatabaseWriter& writer) {
  writer.begin_batch();
  try {
    unite_catalogs(inputs, writer);
    writer.commit_batch();
  } catch (...) {
    writer.abort_batch();
    throw;
  }
}

}  // namespace

std::vector<MergedEpoch> merge_databases(const fs::path& output,
                                         const std::vector<fs::path>& inputs,
                                         const std::function<void(const MergedEpoch&)>& progress) {
  if (inputs.empty()) throw ProfileDatabaseError("dcpi db merge needs at least one input");
  require_empty_output(output);
  const std::vector<ProfileDatabase> databases = open_inputs(output, inputs);
  ProfileDatabaseWriter writer(output);
  std::vector<MergedEpoch> merged;
  for (size_t i = 0; i < databases.size(); ++i) {
    for (uint64_t from : databases[i].epochs()) {
      MergedEpoch epoch{inputs[i], from, merged.size() + 1, 0};
      epoch.samples = copy_epoch(databases[i], from, epoch.output_epoch, writer,
                                 merged.empty() ? &inputs : nullptr);
      merged.push_back(epoch);
      if (progress) progress(epoch);
    }
  }
  if (merged.empty()) write_catalogs(inputs, writer);
  return merged;
}

}  // namespace dcpi
