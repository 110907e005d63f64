#include "analysis/samples/path_numbering.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace dcpi {
namespace {

constexpr uint64_t kExit = ~uint64_t{0};  // above every block

uint64_t add_checked(uint64_t a, uint64_t b) {
  uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    throw std::runtime_error("more than 2^64 potential paths: cannot number them");
  return sum;
}

std::set<uint64_t> leaders_of(const std::vector<ExecutedPath>& paths) {
  std::set<uint64_t> leaders;
  for (const ExecutedPath& path : paths) {
    leaders.insert(path.start);
    leaders.insert(path.end + 4);
    for (const auto& [from, to] : path.edges) {
      leaders.insert(to);
      leaders.insert(from + 4);
    }
  }
  return leaders;
}

// The straight-line runs of a path: [start, from1], [to1, from2], ..., [to_k, end].
std::vector<std::pair<uint64_t, uint64_t>> runs_of(const ExecutedPath& path) {
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  uint64_t at = path.start;
  for (const auto& [from, to] : path.edges) {
    if (from < at || to <= from) throw std::runtime_error("a path that is not forward");
    runs.emplace_back(at, from);
    at = to;
  }
  if (path.end < at) throw std::runtime_error("a path that ends before it starts");
  runs.emplace_back(at, path.end);
  return runs;
}

// A run cut into blocks at the leaders inside it.
void cut(const std::set<uint64_t>& leaders, uint64_t first, uint64_t last,
         std::vector<std::pair<uint64_t, uint64_t>>& blocks) {
  uint64_t at = first;
  for (auto next = leaders.upper_bound(at); next != leaders.end() && *next <= last;
       next = leaders.upper_bound(at)) {
    blocks.emplace_back(at, *next - 4);
    at = *next;
  }
  blocks.emplace_back(at, last);
}

}  // namespace

PathNumbering number_paths(const std::vector<ExecutedPath>& paths) {
  const std::set<uint64_t> leaders = leaders_of(paths);
  PathNumbering out;
  std::map<uint64_t, std::set<uint64_t>> successors;  // block start -> successors (kExit)
  std::set<uint64_t> entries;
  for (const ExecutedPath& path : paths) {
    NumberedPath numbered;
    for (const auto& [first, last] : runs_of(path)) cut(leaders, first, last, numbered.blocks);
    entries.insert(numbered.blocks.front().first);
    for (size_t i = 0; i < numbered.blocks.size(); ++i)
      successors[numbered.blocks[i].first].insert(
          i + 1 < numbered.blocks.size() ? numbered.blocks[i + 1].first : kExit);
    out.paths.push_back(std::move(numbered));
  }
  // Reverse topological order is descending address (EXIT first).
  std::map<uint64_t, uint64_t> count{{kExit, 1}};
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> value;
  for (auto it = successors.rbegin(); it != successors.rend(); ++it) {
    uint64_t sum = 0;
    for (uint64_t next : it->second) {  // ascending, EXIT last
      value[{it->first, next}] = sum;
      sum = add_checked(sum, count.at(next));
    }
    count[it->first] = sum;
  }
  std::map<uint64_t, uint64_t> entry_value;
  for (uint64_t entry : entries) {
    entry_value[entry] = out.potential;
    out.potential = add_checked(out.potential, count.at(entry));
  }
  for (NumberedPath& path : out.paths) {
    path.number = entry_value.at(path.blocks.front().first);
    for (size_t i = 0; i < path.blocks.size(); ++i)
      path.number += value.at(
          {path.blocks[i].first, i + 1 < path.blocks.size() ? path.blocks[i + 1].first : kExit});
  }
  out.blocks = successors.size();
  return out;
}

}  // namespace dcpi
