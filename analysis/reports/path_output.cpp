#include "analysis/reports/path_output.h"

#include <cstdio>

#include "analysis/reports/context_output.h"
#include "analysis/reports/json_writer.h"

namespace dcpi {
namespace {

// The columns every path shows: runs, then the machine's metrics.
std::vector<ContextMetric> columns(uint16_t machine) {
  std::vector<ContextMetric> out;
  for (ContextMetric metric : kContextMetrics)
    if (machine == DCPI_CONTEXTS_MACHINE_EV5 || !is_model_event(metric)) out.push_back(metric);
  return out;
}

const char* column_title(ContextMetric metric) {
  return metric == ContextMetric::kCalls ? "runs" : context_metric_key(metric);
}

double percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void print_path(std::ostream& out, const ProcedurePaths& procedure, const ProcedurePath& path,
                const PathView& view) {
  char head[64];
  std::snprintf(head, sizeof head, "  #%-8llu %6.2f%%",
                static_cast<unsigned long long>(path.number),
                percent(path.costs.get(view.metric), procedure.total.get(view.metric)));
  out << head;
  for (ContextMetric metric : columns(view.machine)) {
    char cell[32];
    std::snprintf(cell, sizeof cell, " %12llu",
                  static_cast<unsigned long long>(path.costs.get(metric)));
    out << cell;
  }
  out << (path.from_entry ? "  from entry" : "  after a back edge") << '\n';
  for (size_t i = 0; i < path.blocks.size(); ++i) {
    char block[80];
    std::snprintf(block, sizeof block, "      0x%llx-0x%llx",
                  static_cast<unsigned long long>(path.blocks[i].first),
                  static_cast<unsigned long long>(path.blocks[i].second));
    out << block;
    if (i < path.lines.size() && !path.lines[i].empty()) out << "  " << path.lines[i];
    out << '\n';
  }
}

}  // namespace

void print_procedure_paths(std::ostream& out, const std::vector<ProcedurePaths>& procedures,
                           const PathView& view) {
  for (const ProcedurePaths& procedure : procedures) {
    out << "Paths of " << procedure.procedure << " in " << procedure.image << " ("
        << machine_note(view.machine) << "): " << procedure.paths.size() << " executed of "
        << procedure.potential << " potential over its " << procedure.blocks
        << " executed blocks (Ball-Larus numbers over the executed CFG), by "
        << metric_name(view.metric) << "\n\n";
    out << "  path         share";
    for (ContextMetric metric : columns(view.machine)) {
      char title[32];
      std::snprintf(title, sizeof title, " %12s", column_title(metric));
      out << title;
    }
    out << "\n";
    for (size_t i = 0; i < procedure.paths.size() && i < view.top; ++i)
      print_path(out, procedure, procedure.paths[i], view);
    if (procedure.paths.size() > view.top)
      out << "  (" << procedure.paths.size() - view.top << " more paths; --top N shows more)\n";
    out << '\n';
  }
}

void print_procedure_paths_json(std::ostream& out, const std::vector<ProcedurePaths>& procedures,
                                const PathView& view) {
  JsonWriter json(out);
  json.begin_object().key("metric").value(context_metric_key(view.metric));
  json.key("machine").value(view.machine == DCPI_CONTEXTS_MACHINE_EV5 ? "ev5" : "qemu");
  json.key("procedures").begin_array();
  for (const ProcedurePaths& procedure : procedures) {
    json.begin_object().key("procedure").value(procedure.procedure);
    json.key("image").value(procedure.image).key("entry").value(procedure.entry);
    json.key("potential").value(procedure.potential);
    json.key("blocks").value(uint64_t{procedure.blocks});
    json.key("paths").begin_array(JsonWriter::Break::kLines);
    for (const ProcedurePath& path : procedure.paths) {
      json.begin_object().key("number").value(path.number);
      json.key("from_entry").value(path.from_entry);
      for (ContextMetric metric : columns(view.machine))
        json.key(column_title(metric)).value(path.costs.get(metric));
      json.key("blocks").begin_array();
      for (size_t i = 0; i < path.blocks.size(); ++i) {
        json.begin_array().value(path.blocks[i].first).value(path.blocks[i].second);
        json.value(i < path.lines.size() ? path.lines[i] : std::string()).end_array();
      }
      json.end_array().end_object();
    }
    json.end_array().end_object();
  }
  json.end_array().end_object();
  out << '\n';
}

void print_hot_path_table(std::ostream& out, const HotPathTable& table, uint16_t machine) {
  out << "Hot paths and " << metric_name(table.metric) << " (seed 002 §5, Table 4; "
      << machine_note(machine) << "): " << table.executed << " executed paths, " << table.total
      << " " << metric_name(table.metric) << " in " << table.instructions
      << " instructions;\na path is hot with at least " << 100 * table.threshold
      << " % of them, dense when its ratio to instructions is at least the program's\n\n";
  out << "  category     paths  % instructions  % " << metric_name(table.metric) << '\n';
  const std::pair<const char*, const PathCategory*> rows[] = {{"hot", &table.hot},
                                                              {"  dense", &table.dense},
                                                              {"  sparse", &table.sparse},
                                                              {"cold", &table.cold}};
  for (const auto& [name, category] : rows) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-10s %7llu  %14.1f  %8.1f\n", name,
                  static_cast<unsigned long long>(category->paths),
                  100 * category->instruction_share, 100 * category->metric_share);
    out << line;
  }
}

void print_hot_path_table_json(std::ostream& out, const HotPathTable& table, uint16_t machine) {
  JsonWriter json(out);
  json.begin_object().key("metric").value(context_metric_key(table.metric));
  json.key("machine").value(machine == DCPI_CONTEXTS_MACHINE_EV5 ? "ev5" : "qemu");
  json.key("threshold").real(table.threshold, 6).key("total").value(table.total);
  json.key("instructions").value(table.instructions).key("executed").value(table.executed);
  const std::pair<const char*, const PathCategory*> rows[] = {{"hot", &table.hot},
                                                              {"dense", &table.dense},
                                                              {"sparse", &table.sparse},
                                                              {"cold", &table.cold}};
  for (const auto& [name, category] : rows) {
    json.key(name).begin_object().key("paths").value(category->paths);
    json.key("instruction_share").real(category->instruction_share, 6);
    json.key("metric_share").real(category->metric_share, 6).end_object();
  }
  json.end_object();
  out << '\n';
}

}  // namespace dcpi
