// The path-profile reports (seed 002 §2 and §5): `dcpi paths --procedure P`
// (the hot paths, each with its Ball-Larus number, metrics and block
// sequence with source lines) and `dcpi paths --summary` (how concentrated
// the D-cache misses are on hot paths, the paper's Table 4).
#pragma once
#include <cstddef>
#include <ostream>
#include <vector>

#include "analysis/samples/path_profile.h"

namespace dcpi {

struct PathView {
  ContextMetric metric = ContextMetric::kCycles;
  size_t top = 10;  // paths shown per procedure
  uint16_t machine = DCPI_CONTEXTS_MACHINE_EV5;
};

void print_procedure_paths(std::ostream& out, const std::vector<ProcedurePaths>& procedures,
                           const PathView& view);
void print_procedure_paths_json(std::ostream& out, const std::vector<ProcedurePaths>& procedures,
                                const PathView& view);
void print_hot_path_table(std::ostream& out, const HotPathTable& table, uint16_t machine);
void print_hot_path_table_json(std::ostream& out, const HotPathTable& table, uint16_t machine);

}  // namespace dcpi
