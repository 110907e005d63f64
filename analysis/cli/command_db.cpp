// `dcpi db check DIR`: validates every file of a profile database.
// `dcpi db show DIR`: lists epochs and their (image, event) profiles.
// `dcpi db merge OUT IN...`: many databases into one (profiledb/db_merge.h).
#include <filesystem>
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/reports/db_output.h"
#include "profiledb/db_check.h"
#include "profiledb/db_merge.h"
#include "profiledb/profile_db.h"

namespace dcpi {

const std::string_view kDbUsage =
    "usage: dcpi db check [--repair] [DIR | --db DIR]\n"
    "       dcpi db show [--json] [DIR | --db DIR]\n"
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
    "show   prints each epoch's metadata and its profiles (image, event, rows, samples);\n"
    "       --json: {database, epochs: [{epoch, samples, unknown_samples, entries, records,\n"
    "       records_rejected, records_lost, updates, period: {base, range, changed},\n"
    "       machine (qemu or ev5: the machine whose time the samples count),\n"
    "       profiles: [{event, image, build_id, samples, rows}]}]}\n"
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
  print_check_report(report, directory, std::cout);
  return report.ok() ? 0 : 1;
}

int merge(const std::vector<std::string>& words) {
  if (words.size() < 3) throw UsageError("expected 'merge OUT IN...'");
  const std::vector<fs::path> inputs(words.begin() + 2, words.end());
  uint64_t samples = 0;
  const std::vector<MergedEpoch> merged =
      merge_databases(words[1], inputs, [&samples](const MergedEpoch& epoch) {
        samples += epoch.samples;
        print_merged_epoch(epoch, std::cout);
      });
  print_merge_summary(words[1], merged.size(), samples, inputs.size(), std::cout);
  return 0;
}

}  // namespace

int run_db_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> words = arguments;
  if (!words.empty() && words[0] == "merge") return merge(words);
  const bool repair = words.size() >= 2 && words[0] == "check" && words[1] == "--repair";
  if (repair) words.erase(words.begin() + 1);
  const bool json = !words.empty() && words[0] == "show" && std::erase(words, "--json") > 0;
  // --db DIR, as every other command spells the database, is DIR here too.
  for (size_t i = 1; i < words.size(); ++i) {
    if (words[i].starts_with("--db=")) words[i] = words[i].substr(5);
    if (words[i] == "--db" && i + 1 < words.size()) words.erase(words.begin() + i);
  }
  if (words.size() == 1) words.push_back(kDefaultDatabase);
  if (words.size() != 2)
    throw UsageError("expected 'check [--repair] [DIR]' or 'show [--json] [DIR]'");
  if (words[0] == "check") {
    if (repair)
      for (const std::string& action : profiledb::repair_database(words[1]))
        std::cout << "repaired: " << action << '\n';
    return check_database(words[1]);
  }
  if (words[0] == "show") {
    const ProfileDatabase db = ProfileDatabase::open(words[1]);
    if (json)
      print_database_json(db, words[1], std::cout);
    else
      print_database(db, std::cout);
    return 0;
  }
  throw UsageError("unknown db subcommand '" + words[0] + "'");
}

}  // namespace dcpi
