#include "analysis/reports/bench_calc_output.h"

#include <cstdio>

#include "analysis/reports/json_writer.h"

namespace dcpi {
namespace {

// --estimate flow's time over DCPI's estimator's (issue 31: goal <= 2).
double flow_ratio(const BenchRow& r) {
  return r.analysis_seconds > 0 ? r.flow_seconds / r.analysis_seconds : 0;
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
  json.key("flow_over_dcpi").real(flow_ratio(r), 6);
  json.field("threads", uint64_t{r.threads});
  json.key("seconds_per_mb").real(mb > 0 ? (r.load_seconds + r.analysis_seconds) / mb : 0, 6);
  json.end_object();
}

}  // namespace

void print_bench_calc(const std::vector<BenchRow>& rows, const std::string& model,
                      std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "model: %s\n%-40s %9s %6s %8s %8s %7s %9s %9s %9s %7s\n",
                model.c_str(), "image", "code KB", "procs", "insns", "missing", "tables", "seconds",
                "s/MB", "flow s", "flow x");
  out << line;
  for (const BenchRow& r : rows) {
    const double mb = r.code_bytes / (1024.0 * 1024.0);
    const double total = r.load_seconds + r.analysis_seconds;
    const std::string tables = std::to_string(r.tables_read) + "/" + std::to_string(r.jumps);
    std::snprintf(line, sizeof line, "%-40s %9.1f %6zu %8zu %8zu %7s %9.3f %9.3f %9.3f %7.2f\n",
                  r.image.c_str(), r.code_bytes / 1024, r.procedures, r.instructions,
                  r.missing_edges, tables.c_str(), total, mb > 0 ? total / mb : 0, r.flow_seconds,
                  flow_ratio(r));
    out << line;
  }
}

void print_bench_calc_json(const std::vector<BenchRow>& rows, const std::string& model,
                           std::ostream& out) {
  JsonWriter json(out, JsonWriter::Style::kSpaced);
  json.begin_object().field("model", model);
  json.key("images").begin_array(JsonWriter::Break::kLines);
  for (const BenchRow& r : rows) write_bench_row(json, r);
  json.end_array().end_object();
}

}  // namespace dcpi
