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
    if (from < at) throw std::runtime_error("a path whose straight-line run goes backward");
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

// Every block after all its successors (depth-first postorder); throws on a cycle.
std::vector<uint64_t> reverse_topological(
    const std::map<uint64_t, std::set<uint64_t>>& successors) {
  std::vector<uint64_t> order;
  std::map<uint64_t, uint8_t> state;  // 1 on the stack, 2 done
  for (const auto& [root, ignored] : successors) {
    if (state[root]) continue;
    std::vector<std::pair<uint64_t, std::set<uint64_t>::const_iterator>> stack;
    state[root] = 1;
    stack.emplace_back(root, successors.at(root).begin());
    while (!stack.empty()) {
      auto& [block, next] = stack.back();
      if (next == successors.at(block).end()) {
        state[block] = 2;
        order.push_back(block);
        stack.pop_back();
        continue;
      }
      const uint64_t to = *next++;
      if (to == kExit || state[to] == 2) continue;
      if (state[to] == 1) throw std::runtime_error("the paths' blocks form a cycle");
      state[to] = 1;
      stack.emplace_back(to, successors.at(to).begin());
    }
  }
  return order;
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
  std::map<uint64_t, uint64_t> count{{kExit, 1}};
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> value;
  for (uint64_t block : reverse_topological(successors)) {
    uint64_t sum = 0;
    for (uint64_t next : successors.at(block)) {  // ascending, EXIT last
      value[{block, next}] = sum;
      sum = add_checked(sum, count.at(next));
    }
    count[block] = sum;
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
