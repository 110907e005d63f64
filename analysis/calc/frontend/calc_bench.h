// `dcpi bench-calc`, computed: how fast dcpicalc's analysis runs over a whole
// image (DCPI §6.2: "approximately three minutes to analyze the suite of 17
// programs, which total roughly 26MB of executables"). Every procedure is
// decoded, given a CFG, frequency classes, estimates, propagation, culprits
// and a report, on synthetic samples on every instruction; then again with
// the flow estimate. Rendered by analysis/reports/bench_calc_output.h.
#pragma once
#include <cstddef>
#include <string>

#include "analysis/calc/model/processor_model.h"

namespace dcpi {

struct BenchRow {
  std::string image;
  double code_bytes = 0;
  size_t procedures = 0, instructions = 0, missing_edges = 0;
  size_t jumps = 0, tables_read = 0;  // indirect jumps other than tail calls; tables resolved
  double load_seconds = 0, analysis_seconds = 0;
  double flow_seconds = 0;  // the same analysis with --estimate flow
  size_t threads = 1;       // procedures analysed at once (parallel_procedures.h)
};

// Throws std::logic_error if a procedure with instructions got no blocks.
// `threads` procedures are analysed at once (1: one after the other).
BenchRow bench_image(const std::string& path, const calc::ProcessorModel& model,
                     size_t threads = 1);

}  // namespace dcpi
