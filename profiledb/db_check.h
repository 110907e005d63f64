// The database checker behind `dcpi db check` (docs/profile-db.md, "Checking
// a database"): validates every file the reader would trust, and the
// cross-file invariants the writer keeps (file names derived from image and
// event or kind, epoch totals equal to the sum of the epoch's profiles). It
// never modifies the database and never stops at the first problem; files are
// type-checked and size-bounded before they are read, so it never blocks.
// repair_database() removes what check_database() calls debris (issue 18).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace dcpi::profiledb {

struct CheckReport {
  std::vector<std::string> problems;  // "PATH: problem", one per finding
  uint64_t epochs = 0;
  uint64_t profiles = 0;  // .prof files that decoded
  uint64_t rows = 0;
  uint64_t samples = 0;
  uint64_t value_files = 0;  // .vals files that decoded
  // "pid N" while a writer holds the lock: its temporary files are live, not
  // debris, and totals may be between two updates.
  std::optional<std::string> writer;
  std::vector<std::string> notes;  // informational, not problems
  // What --repair would remove: leftover temporary files, epoch directories
  // without epoch.meta; and the epochs whose metadata disagrees with their
  // profiles (their totals are recomputed).
  std::vector<std::filesystem::path> debris;
  std::vector<uint64_t> mismatched_epochs;

  bool ok() const { return problems.empty(); }
};

// Throws ProfileDatabaseError only if `directory` is not a database at all.
CheckReport check_database(const std::filesystem::path& directory);

// Takes the writer lock (throws ProfileDatabaseError naming the writer if one
// holds it), then removes the debris and recomputes the totals of the
// mismatched epochs; returns one line per action.
std::vector<std::string> repair_database(const std::filesystem::path& directory);

}  // namespace dcpi::profiledb
