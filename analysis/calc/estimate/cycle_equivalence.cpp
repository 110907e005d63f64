// Johnson, Pearson and Pingali's bracket-list algorithm, written from the
// paper's description. Two edges of a strongly connected graph are cycle
// equivalent iff they have the same set of brackets (back edges of an
// undirected depth-first spanning tree that span them). Each block is split
// into an "in" and an "out" node joined by a block edge, so block classes
// are edge classes; an end → start edge closes the graph.
#include "analysis/calc/estimate/cycle_equivalence.h"

#include <algorithm>
#include <limits>
#include <span>
#include <utility>

namespace dcpi::calc {

std::vector<BlockId> FrequencyClasses::blocks_in(ClassId id) const {
  std::vector<BlockId> result;
  for (BlockId b = 0; b < block_class.size(); ++b)
    if (block_class[b] == id) result.push_back(b);
  return result;
}

ClassBlocks::ClassBlocks(std::span<const ClassId> block_class, size_t class_count)
    : first_(class_count + 1, 0), blocks_(block_class.size()) {
  for (ClassId c : block_class) ++first_[c + 1];
  for (ClassId c = 0; c < class_count; ++c) first_[c + 1] += first_[c];
  std::vector<size_t> next(first_.begin(), first_.end() - 1);
  for (BlockId b = 0; b < block_class.size(); ++b) blocks_[next[block_class[b]]++] = b;
}

ClassBlocks FrequencyClasses::blocks_by_class() const {
  return ClassBlocks(block_class, class_count);
}

std::vector<EdgeId> FrequencyClasses::edges_in(ClassId id) const {
  std::vector<EdgeId> result;
  for (EdgeId e = 0; e < edge_class.size(); ++e)
    if (edge_class[e] == id) result.push_back(e);
  return result;
}

namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// Edges are added first, then finish() lays the incidences out in one array
// (per node in the order the edges were added), instead of a vector per
// node (their allocations were a tenth of frequency_classes: issue 31).
class UndirectedGraph {
 public:
  UndirectedGraph(size_t nodes, size_t edges) : nodes_(nodes) { ends_.reserve(edges); }
  size_t add_edge(size_t a, size_t b) {
    ends_.push_back({a, b});
    return ends_.size() - 1;
  }
  void finish() {
    first_.assign(nodes_ + 1, 0);
    for (const auto& [a, b] : ends_) ++first_[a + 1], ++first_[b + 1];
    for (size_t v = 0; v < nodes_; ++v) first_[v + 1] += first_[v];
    incidences_.resize(first_[nodes_]);
    std::vector<size_t> next(first_.begin(), first_.end() - 1);
    for (size_t e = 0; e < ends_.size(); ++e) {
      const auto [a, b] = ends_[e];
      incidences_[next[a]++] = {b, e};
      incidences_[next[b]++] = {a, e};
    }
  }
  size_t node_count() const { return nodes_; }
  size_t edge_count() const { return ends_.size(); }
  struct Incidence {
    size_t neighbour;
    size_t edge;
  };
  std::span<const Incidence> incident(size_t node) const {
    return std::span<const Incidence>(incidences_)
        .subspan(first_[node], first_[node + 1] - first_[node]);
  }

 private:
  size_t nodes_ = 0;
  std::vector<std::pair<size_t, size_t>> ends_;  // per edge
  std::vector<size_t> first_;                    // per node: its first incidence (finish())
  std::vector<Incidence> incidences_;
};

// Lists of items per node in one array (compressed rows), each list in the
// order its items were given: a std::vector per node for the spanning
// tree's children and back edges was most of frequency_classes'
// allocations (issue 31).
class NodeLists {
 public:
  // `items`: (node, item) pairs.
  NodeLists(size_t nodes, std::span<const std::pair<size_t, size_t>> items)
      : first_(nodes + 1, 0), items_(items.size()) {
    for (const auto& [node, item] : items) ++first_[node + 1];
    for (size_t v = 0; v < nodes; ++v) first_[v + 1] += first_[v];
    std::vector<size_t> next(first_.begin(), first_.end() - 1);
    for (const auto& [node, item] : items) items_[next[node]++] = item;
  }
  std::span<const size_t> of(size_t node) const {
    return std::span<const size_t>(items_).subspan(first_[node], first_[node + 1] - first_[node]);
  }

 private:
  std::vector<size_t> first_;  // per node: its first item's index in items_
  std::vector<size_t> items_;
};

struct Bracket {
  size_t edge = kNone;  // kNone for a capping bracket
  size_t recent_size = kNone;
  size_t recent_class = kNone;
};

// The bracket lists of the paper, intrusive: every bracket is in at most one
// node's list, linked through next/prev arrays indexed by bracket id, so
// push, O(1) splice and erase allocate nothing (a std::list node per
// bracket was most of frequency_classes' time: issue 31).
class BracketLists {
 public:
  BracketLists(size_t nodes, size_t brackets) : lists_(nodes) {
    next_.reserve(brackets), prev_.reserve(brackets);
  }
  void push_front(size_t node, size_t bracket) {
    if (bracket >= next_.size()) next_.resize(bracket + 1, kNone), prev_.resize(bracket + 1, kNone);
    List& list = lists_[node];
    next_[bracket] = list.head;
    prev_[bracket] = kNone;
    (list.head != kNone ? prev_[list.head] : list.tail) = bracket;
    list.head = bracket;
    ++list.size;
  }
  // Moves all of `from`'s brackets to the front of `node`'s list, in order.
  void splice_front(size_t node, size_t from) {
    List& list = lists_[node];
    List& moved = lists_[from];
    if (moved.size == 0) return;
    next_[moved.tail] = list.head;
    (list.head != kNone ? prev_[list.head] : list.tail) = moved.tail;
    list.head = moved.head;
    list.size += moved.size;
    moved = List{};
  }
  // `bracket` must be in `node`'s list.
  void erase(size_t node, size_t bracket) {
    List& list = lists_[node];
    const size_t before = prev_[bracket], after = next_[bracket];
    (before != kNone ? next_[before] : list.head) = after;
    (after != kNone ? prev_[after] : list.tail) = before;
    --list.size;
  }
  size_t front(size_t node) const { return lists_[node].head; }
  size_t size(size_t node) const { return lists_[node].size; }

 private:
  struct List {
    size_t head = kNone, tail = kNone, size = 0;
  };
  std::vector<List> lists_;
  std::vector<size_t> next_, prev_;
};

// Returns a class label per undirected edge (labels not yet dense).
std::vector<size_t> cycle_equivalence(const UndirectedGraph& graph, size_t root) {
  const size_t n = graph.node_count();
  std::vector<size_t> dfsnum(n, kNone), parent_edge(n, kNone), order;
  order.reserve(n);
  // (parent, child) in the order the children were found; back edges as
  // (v, e) from v to an ancestor and (w, e) from a descendant to w.
  std::vector<std::pair<size_t, size_t>> tree, backs_up, backs_down;
  tree.reserve(n);

  struct Frame {
    size_t node;
    size_t next;
  };
  std::vector<Frame> stack{{root, 0}};
  dfsnum[root] = 0;
  order.push_back(root);
  while (!stack.empty()) {
    Frame& frame = stack.back();
    const auto& incident = graph.incident(frame.node);
    if (frame.next == incident.size()) {
      stack.pop_back();
      continue;
    }
    const auto [w, e] = incident[frame.next++];
    const size_t v = frame.node;
    if (e == parent_edge[v]) continue;
    if (dfsnum[w] == kNone) {
      dfsnum[w] = order.size();
      order.push_back(w);
      parent_edge[w] = e;
      tree.push_back({v, w});
      stack.push_back({w, 0});
    } else if (dfsnum[w] < dfsnum[v]) {
      backs_up.push_back({v, e});
      backs_down.push_back({w, e});
    }  // else: the same back edge, already seen from the descendant's side
  }
  const NodeLists children(n, tree), back_up(n, backs_up), back_down(n, backs_down);

  std::vector<size_t> edge_class(graph.edge_count(), kNone);
  size_t next_class = 0;
  std::vector<Bracket> brackets;  // one per back edge, and the capping ones
  brackets.reserve(graph.edge_count());
  std::vector<size_t> bracket_of_edge(graph.edge_count(), kNone);
  std::vector<std::vector<size_t>> capping_ending_at(n);
  BracketLists blist(n, graph.edge_count());
  std::vector<size_t> hi(n, kNone);

  auto push = [&](size_t node, Bracket bracket) {
    brackets.push_back(bracket);
    const size_t id = brackets.size() - 1;
    blist.push_front(node, id);
    return id;
  };
  auto neighbour = [&](size_t e, size_t v) {
    for (const auto& inc : graph.incident(v))
      if (inc.edge == e) return inc.neighbour;
    return kNone;
  };

  for (size_t k = order.size(); k-- > 0;) {
    const size_t v = order[k];
    size_t hi0 = kNone;
    for (size_t e : back_up.of(v)) hi0 = std::min(hi0, dfsnum[neighbour(e, v)]);
    size_t hi1 = kNone, hi2 = kNone;
    for (size_t c : children.of(v)) {
      if (hi[c] < hi1) {
        hi2 = hi1;
        hi1 = hi[c];
      } else if (hi[c] < hi2) {
        hi2 = hi[c];
      }
    }
    hi[v] = std::min(hi0, hi1);

    for (size_t c : children.of(v)) blist.splice_front(v, c);
    for (size_t b : capping_ending_at[v]) blist.erase(v, b);
    for (size_t e : back_down.of(v)) blist.erase(v, bracket_of_edge[e]);
    for (size_t e : back_up.of(v)) bracket_of_edge[e] = push(v, Bracket{.edge = e});
    if (hi2 < hi0) {
      const size_t capping = push(v, Bracket{});
      capping_ending_at[order[hi2]].push_back(capping);
    }

    if (v == root) continue;
    const size_t tree_edge = parent_edge[v];
    if (blist.size(v) == 0) {  // a bridge: only possible if the graph is not strongly connected
      edge_class[tree_edge] = next_class++;
      continue;
    }
    Bracket& top = brackets[blist.front(v)];
    if (top.recent_size != blist.size(v)) {
      top.recent_size = blist.size(v);
      top.recent_class = next_class++;
    }
    edge_class[tree_edge] = top.recent_class;
    if (top.recent_size == 1 && top.edge != kNone) edge_class[top.edge] = top.recent_class;
  }
  for (size_t& c : edge_class)
    if (c == kNone) c = next_class++;  // a back edge that is the only bracket of no tree edge
  return edge_class;
}

}  // namespace

FrequencyClasses frequency_classes(const ControlFlowGraph& cfg,
                                   const ExitAugmentation& augmentation) {
  FrequencyClasses result;
  const size_t blocks = cfg.blocks().size();
  result.block_class.resize(blocks);
  result.edge_class.resize(cfg.edges().size());
  if (cfg.missing_edges()) {  // §6.1.2: every block and edge on its own
    for (BlockId b = 0; b < blocks; ++b) result.block_class[b] = b;
    for (EdgeId e = 0; e < cfg.edges().size(); ++e) result.edge_class[e] = blocks + e;
    result.class_count = blocks + cfg.edges().size();
    return result;
  }
  if (blocks == 0) return result;

  const size_t start = 0, end = 1;
  auto in = [](BlockId b) { return 2 + 2 * b; };
  auto out = [](BlockId b) { return 3 + 2 * b; };
  UndirectedGraph graph(2 + 2 * blocks, blocks + cfg.edges().size() +
                                            augmentation.from_virtual_start.size() +
                                            augmentation.to_virtual_end.size() + 1);
  std::vector<size_t> block_edge(blocks), cfg_edge(cfg.edges().size());
  for (BlockId b = 0; b < blocks; ++b) block_edge[b] = graph.add_edge(in(b), out(b));
  for (EdgeId e = 0; e < cfg.edges().size(); ++e)
    cfg_edge[e] = graph.add_edge(out(cfg.edge(e).from), in(cfg.edge(e).to));
  for (BlockId b : augmentation.from_virtual_start) graph.add_edge(start, in(b));
  for (BlockId b : augmentation.to_virtual_end) graph.add_edge(out(b), end);
  graph.add_edge(end, start);
  graph.finish();

  const std::vector<size_t> labels = cycle_equivalence(graph, start);
  // Labels are below the graph's edge count; numbered densely in order of
  // first use.
  std::vector<ClassId> dense(graph.edge_count(), kNone);
  size_t used = 0;
  auto dense_id = [&](size_t label) {
    if (dense[label] == kNone) dense[label] = used++;
    return dense[label];
  };
  for (BlockId b = 0; b < blocks; ++b) result.block_class[b] = dense_id(labels[block_edge[b]]);
  for (EdgeId e = 0; e < cfg.edges().size(); ++e)
    result.edge_class[e] = dense_id(labels[cfg_edge[e]]);
  result.class_count = used;
  return result;
}

}  // namespace dcpi::calc
