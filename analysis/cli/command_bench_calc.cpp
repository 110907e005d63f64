// `dcpi bench-calc`: how fast dcpicalc's analysis runs over whole images
// (DCPI §6.2: "approximately three minutes to analyze the suite of 17
// programs, which total roughly 26MB of executables"). Every procedure of
// each image is decoded, given a CFG, frequency classes, estimates,
// propagation, culprits and a report, with synthetic samples on every
// instruction; the table gives seconds per MB of code.
#include <chrono>
#include <fstream>
#include <iostream>
#include <random>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/report.h"
#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/reports/json_writer.h"

namespace dcpi {

const std::string_view kBenchCalcUsage =
    "usage: dcpi bench-calc --images ELF[,ELF...] [--model qemu|ev5] [--json FILE]\n"
    "\n"
    "Analyses every procedure of each image as dcpi calc --all would (decode, CFG,\n"
    "cycle equivalence, scheduling, estimation, propagation, culprits, report) with\n"
    "synthetic samples on every instruction, and prints the time per MB of code;\n"
    "\"flow s\" is the analysis again with --estimate flow (minimum-cost flow).\n"
    "Accuracy against exact counts (Figures 8, 9): tests/bench/bench_calc_accuracy.py.\n";

namespace {

struct BenchRow {
  std::string image;
  double code_bytes = 0;
  size_t procedures = 0, instructions = 0, missing_edges = 0;
  size_t jumps = 0, tables_read = 0;  // indirect jumps other than tail calls; tables resolved
  double load_seconds = 0, analysis_seconds = 0;
  double flow_seconds = 0;  // the same analysis with --estimate flow
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

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
    AnalyzedProcedure result = analyze_code(image, p, model, samples);
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

// Doubles at ostream's default 6 significant digits, as the file always had them.
void write_bench_row(JsonWriter& json, const BenchRow& r) {
  const double mb = r.code_bytes / (1024.0 * 1024.0);
  json.begin_object().field("image", r.image).key("code_bytes").real(r.code_bytes, 6);
  json.field("procedures", uint64_t{r.procedures}).field("instructions", uint64_t{r.instructions});
  json.field("procedures_missing_edges", uint64_t{r.missing_edges});
  json.field("indirect_jumps", uint64_t{r.jumps})
      .field("jump_tables_read", uint64_t{r.tables_read});
  json.key("load_seconds").real(r.load_seconds, 6);
  json.key("analysis_seconds").real(r.analysis_seconds, 6);
  json.key("flow_estimate_seconds").real(r.flow_seconds, 6);
  json.key("seconds_per_mb").real(mb > 0 ? (r.load_seconds + r.analysis_seconds) / mb : 0, 6);
  json.end_object();
}

}  // namespace

int run_bench_calc_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(arguments, {.with_value = {"images", "model", "json"}});
  std::vector<std::string> images;
  const std::string list = options.required("images");
  for (size_t start = 0; start < list.size();) {
    const size_t end = std::min(list.find(',', start), list.size());
    if (end > start) images.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  const std::string model_name = options.value("model").value_or("ev5");
  const auto model = make_model(model_name);
  if (!model) throw UsageError("--model must be qemu or ev5, not '" + model_name + "'");

  std::vector<BenchRow> rows;
  for (const std::string& image : images) rows.push_back(bench_image(image, *model));

  std::printf("model: %s\n%-40s %9s %6s %8s %8s %7s %9s %9s %9s\n",
              std::string(model->name()).c_str(), "image", "code KB", "procs", "insns", "missing",
              "tables", "seconds", "s/MB", "flow s");
  for (const BenchRow& r : rows) {
    const double mb = r.code_bytes / (1024.0 * 1024.0);
    const double total = r.load_seconds + r.analysis_seconds;
    const std::string tables = std::to_string(r.tables_read) + "/" + std::to_string(r.jumps);
    std::printf("%-40s %9.1f %6zu %8zu %8zu %7s %9.3f %9.3f %9.3f\n", r.image.c_str(),
                r.code_bytes / 1024, r.procedures, r.instructions, r.missing_edges, tables.c_str(),
                total, mb > 0 ? total / mb : 0, r.flow_seconds);
  }
  if (const auto path = options.value("json")) {
    std::ofstream out(*path);
    JsonWriter json(out, JsonWriter::Style::kSpaced);
    json.begin_object().field("model", model->name());
    json.key("images").begin_array(JsonWriter::Break::kLines);
    for (const BenchRow& r : rows) write_bench_row(json, r);
    json.end_array().end_object();
    if (!out) throw std::runtime_error("cannot write " + *path);
  }
  return 0;
}

}  // namespace dcpi
