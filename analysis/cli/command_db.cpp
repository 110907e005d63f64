// `dcpi db check DIR`: validates every file of a profile database.
// `dcpi db show DIR`: lists epochs and their (image, event) profiles.
// `dcpi db merge OUT IN...`: many databases into one (hostdump/profiledb/db_merge.h).
#include <filesystem>
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "hostdump/profiledb/db_check.h"
#include "hostdump/profiledb/db_merge.h"
#include "hostdump/profiledb/profile_db.h"

namespace dcpi {

const std::string_view kDbUsage =
    "usage: dcpi db check [--repair] [DIR]\n"
    "       dcpi db show [DIR]\n"
    "       dcpi db merge OUT IN...\n"
    "\n"
    "DIR defaults to ./dcpi.db, the database dcpi run writes when not given --db.\n"
    "\n"
    "check  validates every file of the profile database DIR (docs/profile-db.md):\n"
    "       magic, version, checksum, sorted and unique rows, varint bounds, file\n"
    "       names, the profile totals against each epoch's metadata, and the value\n"
    "       hotlist files (.vals). Prints one\n"
    "       line per problem; exit status 0 if none, 1 otherwise. A writer holding\n"
    "       the lock is noted and its live temporary files are left alone.\n"
    "       --repair: with no writer active, removes debris of interrupted writes\n"
    "       (temporary files, epochs without epoch.meta) and recomputes epoch totals\n"
    "       that disagree with the profiles, then checks again.\n"
    "show   prints each epoch's metadata and its profiles (image, event, rows, samples).\n"
    "merge  writes the new database OUT (absent or an empty directory) from the\n"
    "       databases IN..., e.g. of runs made on many machines: epochs renumbered\n"
    "       1, 2, ... in the order given, each with its metadata, profiles and value\n"
    "       files; image catalogs and recordings united. Prints which input epoch\n"
    "       became which. Each epoch is stored as one batch: a kill leaves OUT the\n"
    "       epochs merged so far (db check --repair removes a half-written one).\n";

namespace {

namespace fs = std::filesystem;

int check_database(const fs::path& directory) {
  const profiledb::CheckReport report = profiledb::check_database(directory);
  for (const std::string& note : report.notes) std::cout << "note: " << note << '\n';
  for (const std::string& problem : report.problems) std::cout << "problem: " << problem << '\n';
  if (!report.ok()) {
    std::cout << directory.string() << ": " << report.problems.size() << " problem(s)\n";
    return 1;
  }
  std::cout << directory.string() << ": OK (" << report.epochs << " epochs, " << report.profiles
            << " profiles, " << report.rows << " rows, " << report.samples << " samples, "
            << report.value_files << " value files)\n";
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

int merge(const std::vector<std::string>& words) {
  if (words.size() < 3) throw UsageError("expected 'merge OUT IN...'");
  const std::vector<fs::path> inputs(words.begin() + 2, words.end());
  uint64_t samples = 0;
  const std::vector<MergedEpoch> merged =
      merge_databases(words[1], inputs, [&samples](const MergedEpoch& epoch) {
        samples += epoch.samples;
        std::cout << epoch.input.string() << " epoch " << epoch.input_epoch << " -> epoch "
                  << epoch.output_epoch << " (" << epoch.samples << " samples)\n";
      });
  std::cout << words[1] << ": " << merged.size() << " epochs, " << samples << " samples from "
            << inputs.size() << " databases\n";
  return 0;
}

}  // namespace

int run_db_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> words = arguments;
  if (!words.empty() && words[0] == "merge") return merge(words);
  const bool repair = words.size() >= 2 && words[0] == "check" && words[1] == "--repair";
  if (repair) words.erase(words.begin() + 1);
  if (words.size() == 1) words.push_back(kDefaultDatabase);
  if (words.size() != 2) throw UsageError("expected 'check [--repair] [DIR]' or 'show [DIR]'");
  if (words[0] == "check") {
    if (repair)
      for (const std::string& action : profiledb::repair_database(words[1]))
        std::cout << "repaired: " << action << '\n';
    return check_database(words[1]);
  }
  if (words[0] == "show") return show_database(words[1]);
  throw UsageError("unknown db subcommand '" + words[0] + "'");
}

}  // namespace dcpi
