// `dcpi bench-calc`, rendered: one line per image (code size, procedures,
// instructions, missing edges, jump tables read, seconds, seconds per MB,
// the flow estimate's seconds), and the same as a JSON file.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "analysis/calc/frontend/calc_bench.h"

namespace dcpi {

void print_bench_calc(const std::vector<BenchRow>& rows, const std::string& model,
                      std::ostream& out);
void print_bench_calc_json(const std::vector<BenchRow>& rows, const std::string& model,
                           std::ostream& out);

}  // namespace dcpi
