#include "analysis/reports/context_output.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "analysis/reports/json_writer.h"

namespace dcpi {
namespace {

double percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::vector<uint32_t> children_by_cost(const ContextTree& tree, uint32_t node,
                                       ContextMetric metric) {
  std::vector<uint32_t> children = tree.nodes[node].children;
  std::stable_sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
    return tree.nodes[a].total.get(metric) > tree.nodes[b].total.get(metric);
  });
  return children;
}

bool shown(const ContextTree& tree, uint32_t node, const ContextTreeView& view, uint32_t depth) {
  if (view.max_depth && depth > *view.max_depth) return false;
  const uint64_t total = tree.nodes[0].total.get(view.metric);
  return percent(tree.nodes[node].total.get(view.metric), total) >= view.min_percent;
}

// Sampled chains count no calls (a sample sees a stack, not its history):
// "-", not a 0 that reads as "never called".
std::string calls_text(bool sampled, uint64_t calls) {
  return sampled ? "-" : std::to_string(calls);
}

void print_node(std::ostream& out, const ContextTree& tree, uint32_t node,
                const ContextTreeView& view, uint32_t depth) {
  const ContextTreeNode& n = tree.nodes[node];
  const uint64_t total = tree.nodes[0].total.get(view.metric);
  const std::string calls = calls_text(tree.sampled, view.bottom_up ? n.total.calls : n.self.calls);
  char columns[96];
  if (view.bottom_up)
    std::snprintf(columns, sizeof columns, "%6.2f%%          %10s  ",
                  percent(n.total.get(view.metric), total), calls.c_str());
  else
    std::snprintf(columns, sizeof columns, "%6.2f%% %6.2f%%  %10s  ",
                  percent(n.total.get(view.metric), total), percent(n.self.get(view.metric), total),
                  calls.c_str());
  out << columns << std::string(2 * (depth - 1), ' ') << n.name;
  if (!n.image.empty()) out << "  [" << n.image << "]";
  out << '\n';
  for (uint32_t child : children_by_cost(tree, node, view.metric))
    if (shown(tree, child, view, depth + 1)) print_node(out, tree, child, view, depth + 1);
}

// instructions, cycles and, on ev5, the model's events (version 2 trees).
void json_costs(JsonWriter& json, const ContextCosts& costs, uint16_t machine, bool sampled) {
  json.begin_object();
  if (sampled) {  // a sampled tree counts samples only (chain_tree.h)
    json.key("samples").value(costs.samples);
    json.end_object();
    return;
  }
  for (ContextMetric metric : kContextMetrics) {
    if (metric == ContextMetric::kCalls) continue;
    if (is_model_event(metric) && machine != DCPI_CONTEXTS_MACHINE_EV5) continue;
    json.key(context_metric_key(metric)).value(costs.get(metric));
  }
  json.end_object();
}

void json_node(JsonWriter& json, const ContextTree& tree, uint32_t node,
               const ContextTreeView& view, uint32_t depth) {
  const ContextTreeNode& n = tree.nodes[node];
  json.begin_object().key("name").value(n.name).key("image").value(n.image);
  json.key("calls").value(n.self.calls);
  json_costs(json.key("self"), n.self, tree.machine, tree.sampled);
  json_costs(json.key("total"), n.total, tree.machine, tree.sampled);
  json.key("children").begin_array();
  for (uint32_t child : children_by_cost(tree, node, view.metric))
    if (shown(tree, child, view, depth + 1)) json_node(json, tree, child, view, depth + 1);
  json.end_array().end_object();
}

std::string folded_name(std::string name) {
  std::replace(name.begin(), name.end(), ';', ':');
  std::replace(name.begin(), name.end(), '\n', ' ');
  return name;
}

}  // namespace

const char* metric_name(ContextMetric metric) {
  switch (metric) {
    case ContextMetric::kCycles:
      return "cycles";
    case ContextMetric::kInstructions:
      return "instructions";
    case ContextMetric::kCalls:
      return "calls";
    case ContextMetric::kDCacheMisses:
      return "D-cache misses";
    case ContextMetric::kICacheMisses:
      return "I-cache misses";
    case ContextMetric::kDtbMisses:
      return "DTB misses";
    case ContextMetric::kMispredicts:
      return "mispredicts";
    case ContextMetric::kSamples:
      return "samples";
  }
  return "";
}

const char* machine_note(uint16_t machine) {
  return machine == DCPI_CONTEXTS_MACHINE_EV5
             ? "ev5: the 21164 model's cycles, stalls included, and events; exact"
             : "qemu: one cycle per instruction; exact";
}

const char* sampled_note(uint16_t machine) {
  return machine == DCPI_CONTEXTS_MACHINE_EV5
             ? "ev5: the driver's samples, chains unwound on the host with DWARF CFI; sampled"
             : "qemu: the driver's samples, chains unwound on the host with DWARF CFI; sampled";
}

void print_context_tree(std::ostream& out, const ContextTree& tree, const ContextTreeView& view) {
  const uint64_t total = tree.nodes[0].total.get(view.metric);
  out << (tree.sampled ? "Sampled call-chain tree (" : "Calling context tree (")
      << (view.bottom_up ? "bottom-up" : "top-down") << ") of " << metric_name(view.metric) << " = "
      << total << " (" << (tree.sampled ? sampled_note(tree.machine) : machine_note(tree.machine))
      << ")\n\n";
  out << (view.bottom_up ? "    self            calls  procedure\n"
                         : "   total    self       calls  procedure\n");
  for (uint32_t child : children_by_cost(tree, 0, view.metric))
    if (shown(tree, child, view, 1)) print_node(out, tree, child, view, 1);
}

void print_context_tree_json(std::ostream& out, const ContextTree& tree,
                             const ContextTreeView& view) {
  JsonWriter json(out);
  json.begin_object().key("metric").value(metric_name(view.metric));
  json.key("source").value(tree.sampled ? "sampled" : "exact");
  json.key("machine").value(tree.machine == DCPI_CONTEXTS_MACHINE_EV5 ? "ev5" : "qemu");
  json.key("view").value(view.bottom_up ? "bottom-up" : "top-down");
  json.key("root");
  json_node(json, tree, 0, view, 0);
  json.end_object();
  out << '\n';
}

void print_context_neighbours(std::ostream& out, const std::vector<ContextNeighbour>& rows,
                              const std::string& procedure, bool callers, ContextMetric metric,
                              uint64_t total) {
  const bool sampled = metric == ContextMetric::kSamples;
  out << (callers ? "Callers of " : "Callees of ") << procedure << " (inclusive "
      << metric_name(metric) << " of " << (callers ? "its calls from each" : "each call")
      << (sampled ? ", from sampled call chains; calls are not counted)\n\n" : ", exact)\n\n");
  char header[96];
  std::snprintf(header, sizeof header, "%11s  %12s %7s  %s\n", "calls", metric_name(metric), "%",
                callers ? "caller" : "callee");
  out << header;
  for (const ContextNeighbour& row : rows) {
    char line[96];
    std::snprintf(line, sizeof line, "%11s  %12llu %6.2f%%  ",
                  calls_text(sampled, row.costs.calls).c_str(),
                  static_cast<unsigned long long>(row.costs.get(metric)),
                  percent(row.costs.get(metric), total));
    out << line << row.name;
    if (!row.image.empty()) out << "  [" << row.image << "]";
    out << '\n';
  }
}

void print_context_neighbours_json(std::ostream& out, const std::vector<ContextNeighbour>& rows,
                                   const std::string& procedure, bool callers) {
  JsonWriter json(out);
  json.begin_object().key("procedure").value(procedure);
  json.key(callers ? "callers" : "callees").begin_array(JsonWriter::Break::kLines);
  for (const ContextNeighbour& row : rows)
    json.begin_object()
        .key("name")
        .value(row.name)
        .key("image")
        .value(row.image)
        .key("calls")
        .value(row.costs.calls)
        .key("instructions")
        .value(row.costs.instructions)
        .key("cycles")
        .value(row.costs.cycles)
        .key("samples")
        .value(row.costs.samples)
        .end_object();
  json.end_array().end_object();
  out << '\n';
}

void print_folded(std::ostream& out, const ContextTree& tree, ContextMetric metric) {
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const uint64_t cost = tree.nodes[i].self.get(metric);
    if (cost == 0) continue;
    const std::vector<std::string> path = context_path(tree, i);
    for (size_t k = 0; k < path.size(); ++k) out << (k ? ";" : "") << folded_name(path[k]);
    out << ' ' << cost << '\n';
  }
}

void print_chain_summary(std::ostream& out, const ChainTreeStats& stats) {
  out << "\nHow the " << stats.samples << " chains ended";
  if (stats.dropped) out << " (" << stats.dropped << " more lost in the guest: buffer full)";
  out << ":\n";
  for (const auto& [why, samples] : stats.stops) {
    char line[64];
    std::snprintf(line, sizeof line, "%10llu %6.2f%%  ", static_cast<unsigned long long>(samples),
                  percent(samples, stats.samples));
    out << line << why << '\n';
  }
  out << "\nPer image: samples with their leaf there, and chains that stopped there "
         "(could not be unwound further)\n";
  for (const auto& [image, samples] : stats.leaf_samples) {
    const auto stopped = stats.truncated_in.find(image);
    const uint64_t truncated = stopped == stats.truncated_in.end() ? 0 : stopped->second;
    char line[96];
    std::snprintf(line, sizeof line, "%10llu leaf %10llu stopped %6.2f%%  ",
                  static_cast<unsigned long long>(samples),
                  static_cast<unsigned long long>(truncated), percent(truncated, stats.samples));
    out << line << (image.empty() ? "[no image]" : image) << '\n';
  }
}

namespace {

std::string joined_path(const std::vector<std::string>& path) {
  std::string text;
  for (size_t i = 0; i < path.size(); ++i) text += (i ? " <- " : "") + path[i];
  return text.empty() ? "(thread entry code)" : text;
}

}  // namespace

void print_chain_score(std::ostream& out, const ChainScore& score, uint16_t machine) {
  out << "Sampled call chains (dcpi run -g) against the exact calling contexts (--contexts), "
      << (machine == DCPI_CONTEXTS_MACHINE_EV5 ? "ev5" : "qemu") << " machine, depth "
      << score.depth << "\n\n";
  char line[512];
  std::snprintf(line, sizeof line,
                "user-mode samples       %10llu\n"
                "callers match exactly   %10llu  %6.2f%%  (target >= 95%%)\n"
                "could not be unwound    %10llu  %6.2f%%\n"
                "kernel samples, left out%10llu\n"
                "share overlap           %10.4f  (sum over contexts of min(sampled, exact))\n",
                static_cast<unsigned long long>(score.user_samples),
                static_cast<unsigned long long>(score.matched),
                percent(score.matched, score.user_samples),
                static_cast<unsigned long long>(score.not_unwound),
                percent(score.not_unwound, score.user_samples),
                static_cast<unsigned long long>(score.kernel_samples), score.overlap);
  out << line;
  if (!score.not_unwound_in.empty()) {
    out << "\nCould not be unwound, by the image the chain stopped in:\n";
    for (const auto& [image, samples] : score.not_unwound_in) {
      std::snprintf(line, sizeof line, "%10llu %6.2f%%  ", static_cast<unsigned long long>(samples),
                    percent(samples, score.user_samples));
      out << line << (image.empty() ? "[no image]" : image) << '\n';
    }
  }
  out << "\nLargest contexts (leaf <- callers):   exact  sampled\n";
  for (const ChainScore::Row& row : score.top) {
    std::snprintf(line, sizeof line, "%6.2f%% %6.2f%%  ", 100 * row.exact, 100 * row.sampled);
    out << line << joined_path(row.path) << '\n';
  }
}

void print_chain_score_json(std::ostream& out, const ChainScore& score, uint16_t machine) {
  JsonWriter json(out);
  json.begin_object().key("machine").value(machine == DCPI_CONTEXTS_MACHINE_EV5 ? "ev5" : "qemu");
  json.key("depth").value(uint64_t{score.depth});
  json.key("user_samples").value(score.user_samples);
  json.key("matched").value(score.matched);
  json.key("not_unwound").value(score.not_unwound);
  json.key("kernel_samples").value(score.kernel_samples);
  json.key("overlap").value(score.overlap, 4);
  json.key("not_unwound_in").begin_object();
  for (const auto& [image, samples] : score.not_unwound_in)
    json.key(image.empty() ? "[no image]" : image).value(samples);
  json.end_object();
  json.key("top").begin_array(JsonWriter::Break::kLines);
  for (const ChainScore::Row& row : score.top) {
    json.begin_object().key("path").begin_array();
    for (const std::string& name : row.path) json.value(name);
    json.end_array()
        .key("exact")
        .value(row.exact, 4)
        .key("sampled")
        .value(row.sampled, 4)
        .end_object();
  }
  json.end_array().end_object();
  out << '\n';
}

}  // namespace dcpi
