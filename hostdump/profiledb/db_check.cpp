#include "hostdump/profiledb/db_check.h"

#include <optional>
#include <stdexcept>

#include "hostdump/profiledb/profile_db.h"
#include "hostdump/profiledb/profile_format.h"
#include "hostdump/profiledb/value_file.h"

namespace dcpi::profiledb {
namespace {

namespace fs = std::filesystem;
using namespace profile_format;

struct EpochSums {
  uint64_t samples = 0;
  uint64_t unknown = 0;
};

// Value hotlists (seed 001 §2.2): structure, checksum and file name.
void check_value_file(const fs::path& file, CheckReport& report) {
  const values::ValueFile values = values::read_value_file(file);
  ++report.value_files;
  const std::string expected = values::value_file_name(values.info.image, values.info.kind);
  if (file.filename().string() != expected)
    report.problems.push_back(file.string() + ": file name does not match its image (" +
                              values.info.image.path + ") and kind; expected " + expected);
}

void check_profile_file(const fs::path& file, CheckReport& report, EpochSums& sums) {
  const Profile profile = read_profile_file(file);
  ++report.profiles;
  report.rows += profile.rows.size();
  const ProfileInfo& info = profile.info;
  if (info.event_name != event_name(info.event))
    report.problems.push_back(file.string() + ": event name '" + info.event_name +
                              "' does not match event " + std::to_string(info.event));
  const std::string expected = profile_file_name(info.image, info.event_name);
  if (file.filename().string() != expected)
    report.problems.push_back(file.string() + ": file name does not match its image (" +
                              info.image.path + ") and event; expected " + expected);
  sums.samples += info.total_count;
  if (info.image.unknown) sums.unknown += info.total_count;
}

// One entry of an epoch directory; decoding errors become problems.
void check_epoch_entry(const fs::directory_entry& entry, CheckReport& report, EpochSums& sums) {
  const std::string name = entry.path().filename().string();
  if (name == kEpochMetaName) return;
  if (name.starts_with(".tmp-")) {
    report.problems.push_back(entry.path().string() +
                              ": leftover temporary file of an interrupted write (safe to delete)");
    return;
  }
  const bool values = name.ends_with(values::kValueSuffix);
  if (!values && !name.ends_with(kProfileSuffix)) {
    report.problems.push_back(entry.path().string() + ": unexpected file in an epoch directory");
    return;
  }
  try {
    if (values)
      check_value_file(entry.path(), report);
    else
      check_profile_file(entry.path(), report, sums);
  } catch (const std::runtime_error& error) {
    report.problems.push_back(error.what());
  }
}

void check_epoch(const ProfileDatabase& db, uint64_t epoch, CheckReport& report) {
  const fs::path directory = db.epoch_directory(epoch);
  std::optional<EpochMetadata> metadata;
  try {
    metadata = db.epoch_metadata(epoch);
  } catch (const std::runtime_error& error) {
    report.problems.push_back(error.what());
  }
  EpochSums sums;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory))
    check_epoch_entry(entry, report, sums);
  report.samples += sums.samples;
  if (!metadata) return;
  if (metadata->samples != sums.samples)
    report.problems.push_back(directory.string() + ": profiles hold " +
                              std::to_string(sums.samples) + " samples, metadata says " +
                              std::to_string(metadata->samples));
  if (metadata->unknown_samples != sums.unknown)
    report.problems.push_back(directory.string() + ": unknown profiles hold " +
                              std::to_string(sums.unknown) + " samples, metadata says " +
                              std::to_string(metadata->unknown_samples));
}

}  // namespace

CheckReport check_database(const fs::path& directory) {
  CheckReport report;
  const ProfileDatabase db = ProfileDatabase::open(directory);
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name == kFormatName || name == kLockName || name.starts_with("epoch-")) continue;
    report.problems.push_back(entry.path().string() + ": unexpected entry in the database");
  }
  const std::vector<uint64_t> epochs = db.epochs();
  report.epochs = epochs.size();
  for (uint64_t epoch : epochs) check_epoch(db, epoch, report);
  return report;
}

}  // namespace dcpi::profiledb
