// The control-flow graph of one procedure as Graphviz draws it (DCPI §6.1.1's
// CFG with §6.1's estimates; DCPI's dcpicalc printed annotated CFGs as
// PostScript): one box per basic block, shaded by its samples and labelled
// with its estimated executions; edges labelled with their estimated
// executions (frequency × mean period), dashed where no estimate exists,
// back edges (loops) drawn bold blue, and an unresolved indirect jump's
// missing edges as a dashed red arrow to "?" (§6.1.1: the CFG is then
// incomplete). Blocks link to their rows in the listing. With a path
// profile (dcpi run --paths, seed 002 §2) its hottest paths are drawn over
// it: their edges thick in a colour per path, their blocks outlined.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/calc/estimate/procedure_analysis.h"

namespace dcpi::html {

// Procedures with more blocks than this get no drawing (dot's layout time
// grows quickly; such a graph is unreadable at page width anyway).
inline constexpr size_t kMaxDrawnBlocks = 400;

// Per edge: true if it closes a cycle in a depth-first walk from the entry
// (and the extra entries): its target is still on the walk's stack.
std::vector<bool> back_edges(const calc::ControlFlowGraph& cfg);

// One exact path to draw: its Ball-Larus number, how often it ran, its
// share of the procedure's cycles, and its straight-line runs [first, last]
// (ELF addresses; analysis/samples/path_profile.h).
struct DrawnPath {
  uint64_t number = 0, runs = 0;
  double share = 0;
  std::vector<std::pair<uint64_t, uint64_t>> blocks;
};
inline constexpr size_t kMaxDrawnPaths = 3;
// The colour of the k-th hottest path (also its legend's).
const char* path_colour(size_t k);

// The DOT text. `anchor` prefixes the listing rows' ids ("ANCHOR-0x1200...").
// `paths`: the hottest first, at most kMaxDrawnPaths drawn.
std::string cfg_dot(const calc::ProcedureAnalysis& analysis, double period, std::string_view anchor,
                    const std::vector<DrawnPath>& paths = {});

// dot -Tsvg through run_program (never a shell), reduced to the bare <svg>
// element for inline use: no XML prolog, DOCTYPE or namespace attributes,
// so the page references nothing outside itself. Throws ProgramNotFound
// when `program` cannot be run, std::runtime_error when it fails.
std::string svg_from_dot(const std::string& dot, const std::string& program = "dot");

}  // namespace dcpi::html
