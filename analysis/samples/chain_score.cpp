#include "analysis/samples/chain_score.h"

#include <algorithm>

namespace dcpi {
namespace {

using Key = std::vector<std::string>;

bool is_marker(const std::string& name) { return !name.empty() && name[0] == '['; }

// Procedure names from `node` up to (not including) node 0, leaf first.
std::vector<uint32_t> ancestry(const ContextTree& tree, uint32_t node) {
  std::vector<uint32_t> path;
  for (uint32_t n = node; n != 0; n = tree.nodes[n].parent) path.push_back(n);
  return path;
}

// The program's own frames end at main (or a thread's start_thread); the
// libc start-up code beyond it is the same for every sample, so neither
// side looks past it. (It was also where the two trees named the PLT call
// of __libc_start_main differently, until PLT stubs were named: symbols/
// elf_reader.cpp read_plt_stubs, context_tree.cpp name_of.)
bool is_program_entry(const std::string& name) { return name == "main" || name == "start_thread"; }

// Seed 002 §3's folding, as the exact tree does it: a procedure already on
// the path (from the root) takes the path back to that ancestor.
Key fold_recursion(const Key& frames) {
  Key from_root;
  for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) {
    const auto again = std::find(from_root.begin(), from_root.end(), *frame);
    if (again != from_root.end())
      from_root.erase(again + 1, from_root.end());
    else
      from_root.push_back(*frame);
  }
  return Key(from_root.rbegin(), from_root.rend());
}

Key cut(const Key& frames, uint32_t depth) {
  size_t n = std::min<size_t>(frames.size(), depth);
  for (size_t i = 0; i < n; ++i)
    if (is_program_entry(frames[i])) n = i + 1;
  return Key(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(n));
}

bool reaches_entry(const Key& frames, uint32_t depth) {
  for (size_t i = 0; i < frames.size() && i < depth; ++i)
    if (is_program_entry(frames[i])) return true;
  return false;
}

// The exact tree: node 0 [all], then threads, then calls. Thread nodes and
// [kernel] nodes are not procedures of a path.
std::map<Key, uint64_t> exact_keys(const ContextTree& exact, uint32_t depth) {
  std::map<Key, uint64_t> keys;
  for (uint32_t i = 1; i < exact.nodes.size(); ++i) {
    const ContextTreeNode& node = exact.nodes[i];
    if (node.self.cycles == 0 || node.name == "[kernel]") continue;
    const std::vector<uint32_t> path = ancestry(exact, i);
    const std::string& thread = exact.nodes[path.back()].name;
    if (thread.starts_with("cpu ") || thread.starts_with("pid 0")) continue;  // boot, idle
    Key frames;
    for (size_t k = 0; k + 1 < path.size(); ++k) frames.push_back(exact.nodes[path[k]].name);
    keys[cut(frames, depth)] += node.self.cycles;
  }
  return keys;
}

// A kernel-mode sample: a chain whose leaf is in the kernel or PALcode (the
// load map's names for them, kernel/load_map_writer.cpp), since kernel
// chains have their kernel frames (issue 28 item 2, kernel half); or, in a
// database from before that, a chain that stopped at its kernel leaf.
bool is_kernel_mode(const ContextTreeNode& leaf, const ContextTreeNode& top) {
  return leaf.image == "kernel.elf" || leaf.image == "palcode.elf" ||
         top.name.starts_with("[truncated: kernel");
}

}  // namespace

ChainScore score_chains(const ContextTree& exact, const ContextTree& sampled, uint32_t depth,
                        size_t top_rows) {
  ChainScore score;
  score.depth = depth;
  const std::map<Key, uint64_t> exact_cost = exact_keys(exact, depth);
  std::map<Key, uint64_t> sampled_count;
  for (uint32_t i = 1; i < sampled.nodes.size(); ++i) {
    const ContextTreeNode& node = sampled.nodes[i];
    if (node.self.samples == 0) continue;
    const std::vector<uint32_t> path = ancestry(sampled, i);
    const ContextTreeNode& top = sampled.nodes[path.back()];
    if (is_kernel_mode(node, top)) {
      score.kernel_samples += node.self.samples;
      continue;
    }
    const bool complete = !is_marker(top.name);
    Key frames;
    for (uint32_t n : path)
      if (!is_marker(sampled.nodes[n].name)) frames.push_back(sampled.nodes[n].name);
    score.user_samples += node.self.samples;
    // A complete chain's outermost frame is the thread's entry code (_start,
    // or clone's child half calling start_thread), the exact tree's root:
    // at any depth, or a thread chain of exactly `depth` frames would keep
    // clone's frame where the exact context has one frame fewer (xz's
    // workers, issue 28).
    if (complete && !reaches_entry(frames, depth)) frames.pop_back();
    const Key folded = fold_recursion(frames);
    // Folding needs the whole path from the root: a truncated chain that
    // folds to fewer than `depth` frames (lua's coroutines: resume folds
    // onto the luaD_rawrunprotected the slice still holds) has its missing
    // callers above the cut, so it could not be unwound far enough.
    if (!complete && folded.size() < depth && !reaches_entry(folded, depth)) {
      score.not_unwound += node.self.samples;
      score.not_unwound_in[sampled.nodes[path[path.size() - 2]].image] += node.self.samples;
      continue;
    }
    const Key key = cut(folded, depth);
    sampled_count[key] += node.self.samples;
    if (exact_cost.count(key)) score.matched += node.self.samples;
  }
  uint64_t exact_total = 0;
  for (const auto& [key, cost] : exact_cost) exact_total += cost;
  auto share = [](uint64_t part, uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
  };
  std::map<Key, std::pair<double, double>> both;
  for (const auto& [key, cost] : exact_cost) both[key].first = share(cost, exact_total);
  for (const auto& [key, n] : sampled_count) both[key].second = share(n, score.user_samples);
  for (const auto& [key, shares] : both) {
    score.overlap += std::min(shares.first, shares.second);
    score.top.push_back({key, shares.first, shares.second});
  }
  std::stable_sort(score.top.begin(), score.top.end(),
                   [](const auto& a, const auto& b) { return a.exact > b.exact; });
  if (score.top.size() > top_rows) score.top.resize(top_rows);
  return score;
}

}  // namespace dcpi
