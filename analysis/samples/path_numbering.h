// Ball-Larus path numbering (Ball and Larus, MICRO'96; seed 002 §2) over
// the control-flow graph the executed paths of one procedure span: its
// blocks are the paths' straight-line runs cut at every leader any path
// has (a start, a transfer's target, the instruction after a transfer or
// a path's end), its edges the consecutive blocks of the paths, plus ENTRY
// to each path's first block and each path's last block to EXIT (Ball and
// Larus's pseudo edges where a path starts or ends at a backward
// transfer). The paths follow the edges of a DAG (the procedure's CFG
// without its back edges, firmware/paths_format.h), so their union is one.
//
// Each edge gets a value such that the sums along the paths from ENTRY to
// EXIT are exactly 0 .. potential - 1, each once. Paths never executed
// through code no path ran are not counted: the numbering is over the
// executed CFG, not the image's (a CFG from the image would add the
// branches never taken).
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dcpi {

struct ExecutedPath {
  uint64_t start = 0, end = 0;                       // first and last instruction
  std::vector<std::pair<uint64_t, uint64_t>> edges;  // taken transfers
};

struct NumberedPath {
  uint64_t number = 0;                                // its Ball-Larus sum
  std::vector<std::pair<uint64_t, uint64_t>> blocks;  // [first, last] instruction of each
};

struct PathNumbering {
  std::vector<NumberedPath> paths;  // in the order given
  uint64_t potential = 0;           // paths from ENTRY to EXIT in the executed CFG
  size_t blocks = 0;                // vertices, ENTRY and EXIT not counted
};

// Throws std::runtime_error when a path's runs go backward (an end before
// its start), when the paths' union has a cycle (paths of different back
// edges at one address: docs/reports.md, "Back edges inside a block"), or when
// the count of potential paths passes 2^64.
PathNumbering number_paths(const std::vector<ExecutedPath>& paths);

}  // namespace dcpi
