// The path profiles `dcpi run --paths` stored (profiledb/path_file.h), read,
// merged over epochs and processes and named for the reports: the hot paths
// of one procedure, each with its Ball-Larus number and block sequence
// (path_numbering.h), and the paper's table of how the D-cache misses
// concentrate on hot paths (seed 002 §5, "Table 4: data cache misses and
// paths").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/samples/context_tree.h"
#include "analysis/samples/path_numbering.h"
#include "profiledb/path_file.h"
#include "symbols/image_resolver.h"

namespace dcpi {

// One distinct path of the selected processes and epochs. Its costs reuse
// the calling contexts' (calls: how often it ran).
struct ProfiledPath {
  std::string procedure;  // its procedure's name (or address)
  std::string image;      // its image's guest path
  std::string build_id;
  uint32_t image_index = 0;
  uint64_t entry = 0;  // the procedure's first instruction, ELF address
  ExecutedPath path;   // ELF addresses
  ContextCosts costs;
  // The plugin knew the activation's entry (a call): its paths end at the
  // back edges of the procedure's graph. Not known (a thread's or a fork
  // child's first code and the frames it returns into): at backward
  // transfers in address order. Paths of the two rules are numbered apart
  // (their union can have a cycle).
  bool entry_known = true;
};

struct PathSet {
  uint16_t machine = DCPI_CONTEXTS_MACHINE_EV5;
  uint64_t epochs = 0;  // epochs that had paths
  std::vector<ProfiledPath> paths;
};

struct PathRequest {
  std::optional<std::vector<uint64_t>> epochs;  // nullopt: every epoch
  std::optional<uint32_t> pid;                  // a process (its threads, by the process table)
};

// Throws ProfileFormatError on a malformed file, std::runtime_error when no
// selected epoch has paths.
PathSet load_paths(const std::string& database, const PathRequest& request,
                   ImageResolver& resolver);

struct ProcedurePath {
  uint64_t number = 0;                                // Ball-Larus
  std::vector<std::pair<uint64_t, uint64_t>> blocks;  // [first, last] ELF addresses
  std::vector<std::string> lines;                     // each block's first line, "file:line"
  bool from_entry = false;                            // starts at the procedure's entry
  ContextCosts costs;
};

struct ProcedurePaths {
  std::string procedure, image, build_id;
  uint64_t entry = 0;
  uint64_t potential = 0;  // paths of the executed CFG (path_numbering.h)
  size_t blocks = 0;
  std::vector<ProcedurePath> paths;  // by `metric`, largest first
  ContextCosts total;
};

// The paths of every procedure named `name` (one entry per image that has
// one); empty when none ran.
std::vector<ProcedurePaths> procedure_paths(const PathSet& set, const std::string& name,
                                            ContextMetric metric);
// Fills each path's `lines` from its image's DWARF (empty where none).
void add_source_lines(std::vector<ProcedurePaths>& procedures, ImageResolver& resolver);

// Seed 002 §5's table: hot paths are those with at least `threshold` of
// the program's total `metric` (the paper's 1 % of the D-cache misses);
// dense ones have at least the program's average ratio of `metric` to
// instructions, sparse ones less; the rest are cold.
struct PathCategory {
  uint64_t paths = 0;
  double instruction_share = 0, metric_share = 0;
};
struct HotPathTable {
  ContextMetric metric = ContextMetric::kDCacheMisses;
  double threshold = 0.01;
  uint64_t total = 0, instructions = 0, executed = 0;
  PathCategory hot, dense, sparse, cold;
};
HotPathTable hot_path_table(const PathSet& set, ContextMetric metric, double threshold);

}  // namespace dcpi
