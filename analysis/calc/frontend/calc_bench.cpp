#include "analysis/calc/frontend/calc_bench.h"

#include <chrono>
#include <random>
#include <stdexcept>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/annotated_procedure.h"
#include "analysis/calc/frontend/inputs.h"

namespace dcpi {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BenchRow bench_image(const std::string& path, const calc::ProcessorModel& model) {
  BenchRow row{.image = path};
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

  start = std::chrono::steady_clock::now();
  for (const ProcedureRange& p : image.procedures()) {
    AnalyzedProcedure result =
        analyze_code(image, p, model, samples, calc::FrequencyEstimator::kDcpi);
    row.instructions += result.code.records.size();
    row.missing_edges += result.analysis.cfg.missing_edges();
    for (const calc::IndirectJump& jump : result.code.indirect_jumps) {
      row.jumps += jump.kind != calc::IndirectJumpKind::kTailCall;
      row.tables_read += jump.table.has_value();
    }
    const calc::CulpritReport culprits = calc::find_culprits(result.analysis, model);
    const CalcReport report = build_calc_report(p.name, result.analysis, culprits, model,
                                                std::move(result.code.indirect_jumps), 1);
    if (report.blocks.empty() && !result.code.records.empty())
      throw std::logic_error("no blocks for " + p.name);
  }
  row.analysis_seconds = seconds_since(start);
  start = std::chrono::steady_clock::now();
  for (const ProcedureRange& p : image.procedures())
    analyze_code(image, p, model, samples, calc::FrequencyEstimator::kFlow);
  row.flow_seconds = seconds_since(start);
  return row;
}

}  // namespace dcpi
