// The database checker behind `dcpi db check` (docs/profile-db.md, "Checking
// a database"): validates every file the reader would trust, and the
// cross-file invariants the writer keeps (file names derived from image and
// event or kind, epoch totals equal to the sum of the epoch's profiles). It
// never modifies the database and never stops at the first problem.
#pragma once
#include <cstdint>
#include <filesystem>
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

  bool ok() const { return problems.empty(); }
};

// Throws ProfileDatabaseError only if `directory` is not a database at all.
CheckReport check_database(const std::filesystem::path& directory);

}  // namespace dcpi::profiledb
