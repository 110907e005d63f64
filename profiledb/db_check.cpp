#include "profiledb/db_check.h"

#include <optional>
#include <stdexcept>

#include "profiledb/chain_file.h"
#include "profiledb/context_file.h"
#include "profiledb/image_catalog.h"
#include "profiledb/path_file.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "profiledb/profile_format.h"
#include "profiledb/value_file.h"

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
    if (report.writer) return;  // the live writer's file: deleting it would break the writer
    report.problems.push_back(entry.path().string() +
                              ": leftover temporary file of an interrupted write (safe to "
                              "delete; dcpi db check --repair does)");
    report.debris.push_back(entry.path());
    return;
  }
  if (name == kProcessTableName) {  // the process table (process_table.h, issue 29)
    try {
      read_process_table_file(entry.path());
    } catch (const ProfileFormatError& error) {
      report.problems.push_back(error.what());
    }
    return;
  }
  if (name == profiledb::kContextsFileName) {  // dcpi run --contexts (context_file.h)
    try {
      profiledb::read_contexts_file(entry.path());
    } catch (const ProfileFormatError& error) {
      report.problems.push_back(error.what());
    }
    return;
  }
  if (name == profiledb::kChainsFileName) {  // dcpi run -g (chain_file.h)
    try {
      profiledb::read_chains_file(entry.path());
    } catch (const ProfileFormatError& error) {
      report.problems.push_back(error.what());
    }
    return;
  }
  if (name == profiledb::kPathsFileName) {  // dcpi run --paths (path_file.h)
    try {
      profiledb::read_paths_file(entry.path());
    } catch (const ProfileFormatError& error) {
      report.problems.push_back(error.what());
    }
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
  const size_t problems_before = report.problems.size();
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
  // Totals are recomputed only from profiles that all decoded.
  const bool clean = report.problems.size() == problems_before;
  if (clean && (metadata->samples != sums.samples || metadata->unknown_samples != sums.unknown))
    report.mismatched_epochs.push_back(epoch);
  // A live writer updates the profiles first, then epoch.meta: in between
  // they disagree, and that is no damage.
  std::vector<std::string>& findings = report.writer ? report.notes : report.problems;
  if (metadata->samples != sums.samples)
    findings.push_back(directory.string() + ": profiles hold " + std::to_string(sums.samples) +
                       " samples, metadata says " + std::to_string(metadata->samples));
  if (metadata->unknown_samples != sums.unknown)
    findings.push_back(directory.string() + ": unknown profiles hold " +
                       std::to_string(sums.unknown) + " samples, metadata says " +
                       std::to_string(metadata->unknown_samples));
}

// `holding_lock`: the caller is the writer (repair), so nobody else writes.
CheckReport check(const fs::path& directory, bool holding_lock) {
  CheckReport report;
  const ProfileDatabase db = ProfileDatabase::open(directory);
  if (!holding_lock) report.writer = active_writer(directory);
  if (report.writer)
    report.notes.push_back("a writer (" + *report.writer +
                           ") holds the lock: its temporary files are not reported, and totals "
                           "may be between two updates");
  for (const fs::path& epoch : db.incomplete_epochs()) {
    if (report.writer) continue;  // it may be creating this epoch right now
    report.problems.push_back(epoch.string() +
                              ": epoch directory without epoch.meta, left by an interrupted "
                              "write (dcpi db check --repair removes it)");
    report.debris.push_back(epoch);
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name == kFormatName || name == kLockName || name == kRecordingsName ||
        name.starts_with("epoch-"))
      continue;
    if (name == kImageCatalogName) {
      try {
        read_image_catalog(directory);
      } catch (const std::runtime_error& error) {
        report.problems.push_back(error.what());
      }
      continue;
    }
    if (name.starts_with(".tmp-") && !report.writer) {  // an interrupted RECORDINGS update
      report.problems.push_back(entry.path().string() +
                                ": leftover temporary file of an interrupted write (safe to "
                                "delete; dcpi db check --repair does)");
      report.debris.push_back(entry.path());
      continue;
    }
    if (name.starts_with(".tmp-")) continue;
    report.problems.push_back(entry.path().string() + ": unexpected entry in the database");
  }
  const std::vector<uint64_t> epochs = db.epochs();
  report.epochs = epochs.size();
  // dcpi run and db merge always write IMAGES (merge with its first epoch);
  // dcpi ingest does not know the images. Without it the reports name
  // procedures only through the build-id cache or --images (issue 30).
  std::error_code no_catalog;
  if (!epochs.empty() && !fs::exists(directory / kImageCatalogName, no_catalog))
    report.notes.push_back(
        (directory / kImageCatalogName).string() +
        " is missing: no image catalog, so reports find the images' files only in the build-id "
        "cache or with --images (expected for dcpi ingest; a dcpi run or db merge database "
        "has one)");
  for (uint64_t epoch : epochs) check_epoch(db, epoch, report);
  return report;
}

}  // namespace

CheckReport check_database(const fs::path& directory) { return check(directory, false); }

std::vector<std::string> repair_database(const fs::path& directory) {
  ProfileDatabase::open(directory);         // a database, before the writer would create one
  ProfileDatabaseWriter writer(directory);  // no writer may be active meanwhile
  const CheckReport report = check(directory, true);
  std::vector<std::string> done;
  for (const fs::path& path : report.debris) {
    std::error_code error;
    fs::remove_all(path, error);
    if (error)
      throw ProfileDatabaseError("cannot remove " + path.string() + ": " + error.message());
    done.push_back("removed " + path.string());
  }
  const ProfileDatabase db = ProfileDatabase::open(directory);
  for (uint64_t epoch : report.mismatched_epochs) {
    EpochMetadata metadata = db.epoch_metadata(epoch);
    uint64_t samples = 0, unknown = 0;
    for (const ProfileInfo& info : db.profiles(epoch)) {
      samples += info.total_count;
      if (info.image.unknown) unknown += info.total_count;
    }
    done.push_back("epoch " + std::to_string(epoch) + ": samples " +
                   std::to_string(metadata.samples) + " -> " + std::to_string(samples) +
                   ", unknown " + std::to_string(metadata.unknown_samples) + " -> " +
                   std::to_string(unknown) + " (the profiles' totals)");
    metadata.samples = samples;
    metadata.unknown_samples = unknown;
    writer.replace_epoch_metadata(metadata);
  }
  return done;
}

}  // namespace dcpi::profiledb
