// `dcpi db check DIR`: validates every file of a profile database.
// `dcpi db show DIR`: lists epochs and their (image, event) profiles.
#include <filesystem>
#include <iostream>
#include <optional>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "hostdump/profiledb/profile_db.h"
#include "hostdump/profiledb/profile_format.h"
#include "hostdump/profiledb/value_file.h"

namespace dcpi {

const std::string_view kDbUsage =
    "usage: dcpi db check DIR\n"
    "       dcpi db show DIR\n"
    "\n"
    "check  validates every file of the profile database DIR (docs/profile-db.md):\n"
    "       magic, version, checksum, sorted and unique rows, varint bounds, file\n"
    "       names, the profile totals against each epoch's metadata, and the value\n"
    "       hotlist files (.vals). Prints one\n"
    "       line per problem; exit status 0 if none, 1 otherwise.\n"
    "show   prints each epoch's metadata and its profiles (image, event, rows, samples).\n";

namespace {

namespace fs = std::filesystem;
using namespace profile_format;

int check_database(const fs::path& directory) {
  std::vector<std::string> problems;
  const ProfileDatabase db = ProfileDatabase::open(directory);
  uint64_t files = 0, rows = 0, samples = 0, value_files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name == kFormatName || name == kLockName || name.starts_with("epoch-")) continue;
    problems.push_back(entry.path().string() + ": unexpected entry in the database");
  }
  for (uint64_t epoch : db.epochs()) {
    const fs::path epoch_directory = db.epoch_directory(epoch);
    std::optional<EpochMetadata> metadata;
    try {
      metadata = db.epoch_metadata(epoch);
    } catch (const std::runtime_error& error) {
      problems.push_back(error.what());
    }
    uint64_t epoch_samples = 0, epoch_unknown = 0;
    for (const fs::directory_entry& entry : fs::directory_iterator(epoch_directory)) {
      const std::string name = entry.path().filename().string();
      if (name == kEpochMetaName) continue;
      if (name.starts_with(".tmp-")) {
        problems.push_back(entry.path().string() +
                           ": leftover temporary file of an interrupted write (safe to delete)");
        continue;
      }
      if (name.ends_with(values::kValueSuffix)) {
        // Value hotlists (seed 001 §2.2): structure, checksum and file name.
        try {
          const values::ValueFile file = values::read_value_file(entry.path());
          ++value_files;
          if (name != values::value_file_name(file.info.image, file.info.kind))
            problems.push_back(entry.path().string() + ": file name does not match its image (" +
                               file.info.image.path + ") and kind; expected " +
                               values::value_file_name(file.info.image, file.info.kind));
        } catch (const std::runtime_error& error) {
          problems.push_back(error.what());
        }
        continue;
      }
      if (!name.ends_with(kProfileSuffix)) {
        problems.push_back(entry.path().string() + ": unexpected file in an epoch directory");
        continue;
      }
      try {
        const Profile profile = read_profile_file(entry.path());
        ++files;
        rows += profile.rows.size();
        const ProfileInfo& info = profile.info;
        if (info.event_name != event_name(info.event))
          problems.push_back(entry.path().string() + ": event name '" + info.event_name +
                             "' does not match event " + std::to_string(info.event));
        if (name != profile_file_name(info.image, info.event_name))
          problems.push_back(entry.path().string() + ": file name does not match its image (" +
                             info.image.path + ") and event; expected " +
                             profile_file_name(info.image, info.event_name));
        epoch_samples += info.total_count;
        if (info.image.unknown) epoch_unknown += info.total_count;
      } catch (const std::runtime_error& error) {
        problems.push_back(error.what());
      }
    }
    samples += epoch_samples;
    if (metadata && metadata->samples != epoch_samples)
      problems.push_back(epoch_directory.string() + ": profiles hold " +
                         std::to_string(epoch_samples) + " samples, metadata says " +
                         std::to_string(metadata->samples));
    if (metadata && metadata->unknown_samples != epoch_unknown)
      problems.push_back(epoch_directory.string() + ": unknown profiles hold " +
                         std::to_string(epoch_unknown) + " samples, metadata says " +
                         std::to_string(metadata->unknown_samples));
  }
  for (const std::string& problem : problems) std::cout << "problem: " << problem << '\n';
  if (!problems.empty()) {
    std::cout << directory.string() << ": " << problems.size() << " problem(s)\n";
    return 1;
  }
  std::cout << directory.string() << ": OK (" << db.epochs().size() << " epochs, " << files
            << " profiles, " << rows << " rows, " << samples << " samples, " << value_files
            << " value files)\n";
  return 0;
}

int show_database(const fs::path& directory) {
  const ProfileDatabase db = ProfileDatabase::open(directory);
  for (uint64_t epoch : db.epochs()) {
    const EpochMetadata meta = db.epoch_metadata(epoch);
    std::cout << "epoch " << epoch << ": " << meta.samples << " samples (" << meta.unknown_samples
              << " unknown), " << meta.entries << " entries, " << meta.records << " records, "
              << meta.records_rejected << " rejected, " << meta.records_lost << " lost, "
              << meta.updates << " updates, period " << to_string(meta.period) << '\n';
    for (const ProfileInfo& info : db.profiles(epoch))
      std::cout << "  " << info.event_name << ' ' << info.image.path
                << (info.image.build_id.empty() ? "" : " [" + info.image.build_id + "]") << ": "
                << info.total_count << " samples in " << info.row_count << " rows\n";
  }
  return 0;
}

}  // namespace

int run_db_command(const std::vector<std::string>& arguments) {
  if (arguments.size() != 2) throw UsageError("expected 'check DIR' or 'show DIR'");
  if (arguments[0] == "check") return check_database(arguments[1]);
  if (arguments[0] == "show") return show_database(arguments[1]);
  throw UsageError("unknown db subcommand '" + arguments[0] + "'");
}

}  // namespace dcpi
