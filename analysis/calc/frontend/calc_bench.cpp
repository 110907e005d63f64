#include "analysis/calc/frontend/calc_bench.h"

#include <chrono>
#include <random>
#include <stdexcept>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/parallel_procedures.h"
#include "analysis/calc/frontend/procedure_summary.h"

namespace dcpi {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BenchRow bench_image(const std::string& path, const calc::ProcessorModel& model, size_t threads) {
  BenchRow row{.image = path, .threads = threads};
  auto start = std::chrono::steady_clock::now();
  const CodeImage image = CodeImage::open(path);
  row.load_seconds = seconds_since(start);
  row.code_bytes = static_cast<double>(image.code_bytes());
  row.procedures = image.procedures().size();

  calc::SamplesByAddress samples;  // a skewed, reproducible sample profile
  std::mt19937_64 random(42);
  std::geometric_distribution<int> count(0.05);
  for (const ProcedureRange& p : image.procedures())
    for (uint64_t a = p.start; a < p.end; a += 4) samples[a] = count(random);

  // Per procedure, into its own slot; summed in order afterwards (the same
  // numbers for any thread count).
  struct Counts {
    size_t instructions = 0, missing_edges = 0, jumps = 0, tables_read = 0;
  };
  const std::vector<ProcedureRange>& procedures = image.procedures();
  std::vector<Counts> counts(procedures.size());
  start = std::chrono::steady_clock::now();
  for_each_procedure(procedures.size(), threads, [&](size_t i) {
    const ProcedureRange& p = procedures[i];
    AnalyzedProcedure result =
        analyze_code(image, p, model, samples, calc::FrequencyEstimator::kDcpi);
    Counts& c = counts[i];
    c.instructions = result.code.records.size();
    c.missing_edges = result.analysis.cfg.missing_edges();
    for (const calc::IndirectJump& jump : result.code.indirect_jumps) {
      c.jumps += jump.kind != calc::IndirectJumpKind::kTailCall;
      c.tables_read += jump.table.has_value();
    }
    // The summary dcpi calc --all prints for the procedure (not the
    // listing's lines, which it does not print).
    const calc::CulpritReport culprits = calc::find_culprits(result.analysis, model);
    [[maybe_unused]] const CalcSummary summary =
        summarize_procedure(result.analysis, culprits, model, 1);
    if (result.analysis.cfg.blocks().empty() && !result.code.records.empty())
      throw std::logic_error("no blocks for " + p.name);
  });
  row.analysis_seconds = seconds_since(start);
  for (const Counts& c : counts) {
    row.instructions += c.instructions;
    row.missing_edges += c.missing_edges;
    row.jumps += c.jumps;
    row.tables_read += c.tables_read;
  }
  start = std::chrono::steady_clock::now();
  for_each_procedure(procedures.size(), threads, [&](size_t i) {
    analyze_code(image, procedures[i], model, samples, calc::FrequencyEstimator::kFlow);
  });
  row.flow_seconds = seconds_since(start);
  return row;
}

}  // namespace dcpi
