#include "profiledb/db_merge.h"

#include <system_error>

#include "profiledb/image_catalog.h"
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
  return databases;
}

// One input epoch into `epoch` of the output, as one batch.
uint64_t copy_epoch(const ProfileDatabase& db, uint64_t from, uint64_t epoch,
                    ProfileDatabaseWriter& writer) {
  EpochMetadata metadata = db.epoch_metadata(from);
  uint64_t samples = 0;
  writer.begin_batch();
  try {
    for (const ProfileInfo& info : db.profiles(from)) {
      const Profile profile = db.read_profile(info);
      writer.merge_profile(epoch, info.image, info.event, profile.rows);
      samples += info.total_count;
    }
    for (const values::ValueFileInfo& info : values::list_value_files(db, from)) {
      const values::ValueFile file = values::read_value_file(info.file);
      writer.merge_values(epoch, file.info, file.hotlists);
    }
    metadata.epoch = epoch;
    writer.replace_epoch_metadata(metadata);  // kept as it was, counts and all
    writer.commit_batch();
  } catch (...) {
    writer.abort_batch();
    throw;
  }
  return samples;
}

// IMAGES and RECORDINGS of every input, united, as one last batch.
void unite_catalogs(const std::vector<fs::path>& inputs, ProfileDatabaseWriter& writer) {
  writer.begin_batch();
  try {
    for (const fs::path& input : inputs) {
      writer.record_images(read_image_catalog(input));
      const auto recordings = read_recording_lines(input / profile_format::kRecordingsName);
      for (const std::string& recording : recordings)
        if (!recording.empty() && !writer.has_recording(recording)) writer.add_recording(recording);
    }
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
      epoch.samples = copy_epoch(databases[i], from, epoch.output_epoch, writer);
      merged.push_back(epoch);
      if (progress) progress(epoch);
    }
  }
  unite_catalogs(inputs, writer);
  return merged;
}

}  // namespace dcpi
