#include "analysis/html/cfg_graph.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "analysis/html/html_text.h"
#include "analysis/html/process.h"
#include "analysis/reports/report_output.h"

namespace dcpi::html {

using calc::BlockId;
using calc::ControlFlowGraph;

std::vector<bool> back_edges(const ControlFlowGraph& cfg) {
  std::vector<bool> back(cfg.edges().size(), false);
  if (cfg.blocks().empty()) return back;
  enum class Mark : uint8_t { kNew, kOnStack, kDone };
  std::vector<Mark> mark(cfg.blocks().size(), Mark::kNew);
  // Iterative DFS (a kernel procedure can be thousands of blocks deep).
  struct Frame {
    BlockId block;
    size_t next_edge;
  };
  std::vector<BlockId> roots{cfg.entry()};
  roots.insert(roots.end(), cfg.extra_entries().begin(), cfg.extra_entries().end());
  for (BlockId root : roots) {
    if (mark[root] != Mark::kNew) continue;
    std::vector<Frame> stack{{root, 0}};
    mark[root] = Mark::kOnStack;
    while (!stack.empty()) {
      Frame& top = stack.back();
      const auto& outgoing = cfg.block(top.block).outgoing;
      if (top.next_edge == outgoing.size()) {
        mark[top.block] = Mark::kDone;
        stack.pop_back();
        continue;
      }
      const calc::EdgeId e = outgoing[top.next_edge++];
      const BlockId to = cfg.edge(e).to;
      if (mark[to] == Mark::kOnStack) back[e] = true;
      if (mark[to] == Mark::kNew) {
        mark[to] = Mark::kOnStack;
        stack.push_back({to, 0});
      }
    }
  }
  return back;
}

namespace {

// A DOT string literal.
std::string dot_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

// White for no samples up to a strong orange for the hottest block; the
// text stays black on every shade.
std::string shade(double samples, double hottest) {
  const double t = hottest > 0 ? std::clamp(samples / hottest, 0.0, 1.0) : 0.0;
  const auto mix = [t](int from, int to) { return static_cast<int>(from + (to - from) * t); };
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", mix(0xff, 0xf7), mix(0xff, 0x8c),
                mix(0xff, 0x2a));
  return buffer;
}

double block_samples(const calc::ProcedureAnalysis& analysis, BlockId b) {
  double total = 0;
  for (const double s : analysis.samples[b]) total += s;
  return total;
}

std::string executions_text(std::optional<double> frequency, double period) {
  return frequency ? compact_number(*frequency * period) : "?";
}

void write_blocks(const calc::ProcedureAnalysis& analysis, double period, std::string_view anchor,
                  const std::vector<std::optional<size_t>>& on_path, std::ostream& out) {
  const ControlFlowGraph& cfg = analysis.cfg;
  double hottest = 0;
  for (BlockId b = 0; b < cfg.blocks().size(); ++b)
    hottest = std::max(hottest, block_samples(analysis, b));
  for (BlockId b = 0; b < cfg.blocks().size(); ++b) {
    const calc::BasicBlock& block = cfg.block(b);
    const double samples = block_samples(analysis, b);
    const std::string label = "B" + std::to_string(b) + "  " + hex_address(block.start) + "\\l" +
                              std::to_string(block.instructions.size()) + " insns, " +
                              compact_number(samples) + " samples\\lx " +
                              executions_text(analysis.block_frequency(b), period) + "\\l";
    out << "  b" << b << " [label=\"" << label
        << "\", fillcolor=" << dot_quoted(shade(samples, hottest))
        << ", URL=" << dot_quoted("#" + std::string(anchor) + "-" + hex_address(block.start))
        << ", tooltip="
        << dot_quoted(hex_address(block.start) + ": " + compact_number(samples) + " samples");
    if (on_path[b]) out << ", color=" << dot_quoted(path_colour(*on_path[b]));
    if (b == cfg.entry() || on_path[b]) out << ", penwidth=2.5";
    if (block.leaves_procedure) out << ", peripheries=2";
    out << "];\n";
  }
}

// The edges of an unresolved indirect jump are unknown (§6.1.1): one dashed
// red arrow per such block to a "?" node.
void write_missing_edges(const ControlFlowGraph& cfg, std::ostream& out) {
  if (!cfg.missing_edges()) return;
  for (BlockId b = 0; b < cfg.blocks().size(); ++b) {
    const calc::BasicBlock& block = cfg.block(b);
    if (block.instructions.empty()) continue;
    const calc::InstructionRecord& last = block.instructions.back();
    if (last.control_flow != calc::ControlFlow::kIndirectJump || !last.jump_targets.empty())
      continue;
    out << "  missing" << b
        << " [label=\"?\", shape=circle, style=dashed, color=\"#c92a2a\", fontcolor=\"#c92a2a\"];\n"
        << "  b" << b << " -> missing" << b
        << " [style=dashed, color=\"#c92a2a\", fontcolor=\"#c92a2a\", "
           "label=\"missing edges\", class=\"missing\"];\n";
  }
}

// The CFG blocks a path runs through, in order: each of its straight-line
// runs covers the blocks that start inside it (a run starts at a block's
// head: the entry or a branch target).
std::vector<BlockId> path_blocks(const ControlFlowGraph& cfg, const DrawnPath& path) {
  std::vector<BlockId> out;
  for (const auto& [first, last] : path.blocks)
    for (BlockId b = 0; b < cfg.blocks().size(); ++b)
      if (cfg.block(b).start >= first && cfg.block(b).start <= last) out.push_back(b);
  return out;
}

// Per edge and per block: the hottest drawn path on it, or none.
struct PathMarks {
  std::vector<std::optional<size_t>> edge, block;
};

PathMarks mark_paths(const ControlFlowGraph& cfg, const std::vector<DrawnPath>& paths) {
  PathMarks marks{std::vector<std::optional<size_t>>(cfg.edges().size()),
                  std::vector<std::optional<size_t>>(cfg.blocks().size())};
  for (size_t k = std::min(paths.size(), kMaxDrawnPaths); k-- > 0;) {  // the hottest last: it wins
    const std::vector<BlockId> blocks = path_blocks(cfg, paths[k]);
    for (size_t i = 0; i < blocks.size(); ++i) {
      marks.block[blocks[i]] = k;
      if (i + 1 == blocks.size()) continue;
      for (calc::EdgeId e : cfg.block(blocks[i]).outgoing)
        if (cfg.edge(e).to == blocks[i + 1]) marks.edge[e] = k;
    }
  }
  return marks;
}

void write_path_legend(const std::vector<DrawnPath>& paths, std::ostream& out) {
  for (size_t k = 0; k < std::min(paths.size(), kMaxDrawnPaths); ++k) {
    char share[32];
    std::snprintf(share, sizeof share, "%.1f", 100 * paths[k].share);
    out << "  legend" << k << " [shape=plaintext, style=\"\", fontname=\"sans-serif\", label="
        << dot_quoted("path #" + std::to_string(paths[k].number) + ": " +
                      std::to_string(paths[k].runs) + " runs, " + share + " % of the cycles")
        << ", fontcolor=" << dot_quoted(path_colour(k)) << "];\n";
  }
}

}  // namespace

const char* path_colour(size_t k) {
  static const char* const kColours[kMaxDrawnPaths] = {"#ae3ec9", "#2b8a3e", "#e8590c"};
  return kColours[k % kMaxDrawnPaths];
}

std::string cfg_dot(const calc::ProcedureAnalysis& analysis, double period, std::string_view anchor,
                    const std::vector<DrawnPath>& paths) {
  std::ostringstream out;
  out << "digraph cfg {\n"
         "  graph [fontname=\"sans-serif\", fontsize=10, nodesep=0.25, ranksep=0.35];\n"
         "  node [shape=box, style=filled, fontname=\"monospace\", fontsize=9, "
         "margin=\"0.08,0.03\"];\n"
         "  edge [fontname=\"sans-serif\", fontsize=9, arrowsize=0.6];\n";
  const ControlFlowGraph& cfg = analysis.cfg;
  const PathMarks marks = mark_paths(cfg, paths);
  write_blocks(analysis, period, anchor, marks.block, out);
  write_path_legend(paths, out);
  const std::vector<bool> back = back_edges(cfg);
  for (calc::EdgeId e = 0; e < cfg.edges().size(); ++e) {
    const calc::CfgEdge& edge = cfg.edge(e);
    const std::optional<double> frequency = analysis.edge_frequency(e);
    const std::string label = (back[e] ? "loop " : "") + executions_text(frequency, period);
    const std::string style = frequency ? "solid" : "dashed";
    out << "  b" << edge.from << " -> b" << edge.to << " [label=" << dot_quoted(label)
        << ", style=" << style;
    if (marks.edge[e])
      out << ", color=" << dot_quoted(path_colour(*marks.edge[e]))
          << ", fontcolor=" << dot_quoted(path_colour(*marks.edge[e]))
          << ", penwidth=3.5, class=\"hotpath\"";
    else if (back[e])
      out << ", color=\"#1c7ed6\", fontcolor=\"#1c7ed6\", penwidth=2, class=\"back\"";
    out << "];\n";
  }
  write_missing_edges(cfg, out);
  out << "}\n";
  return out.str();
}

namespace {

// Removes every `open ... close` span (and the newline after it).
std::string without(std::string text, std::string_view open, std::string_view close) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  for (size_t start; (start = text.find(open, at)) != std::string::npos;) {
    const size_t end = text.find(close, start);
    if (end == std::string::npos) break;
    out.append(text, at, start - at);
    at = end + close.size();
    if (at < text.size() && text[at] == '\n') ++at;
  }
  out.append(text, at);
  return out;
}

}  // namespace

std::string svg_from_dot(const std::string& dot, const std::string& program) {
  const ProcessOutput result = run_program({program, "-Tsvg"}, dot);
  if (result.exit_status != 0) {
    std::string reason = result.err.substr(0, result.err.find('\n'));
    throw std::runtime_error(program + " failed (exit " + std::to_string(result.exit_status) + ")" +
                             (reason.empty() ? "" : ": " + reason));
  }
  const size_t start = result.out.find("<svg");
  if (start == std::string::npos) throw std::runtime_error(program + " printed no <svg> element");
  // dot's comments and <title>s (node ids like "b3") only add bytes: a
  // report of every kernel procedure holds hundreds of graphs.
  std::string svg =
      without(without(result.out.substr(start), "<!--", "-->"), "<title>", "</title>");
  // The namespace declarations name w3.org URLs; inline SVG in HTML needs none.
  static const std::regex kNamespaces(R"( xmlns(:xlink)?="[^"]*")");
  const size_t tag_end = svg.find('>');
  return std::regex_replace(svg.substr(0, tag_end), kNamespaces, "") + svg.substr(tag_end);
}

}  // namespace dcpi::html
