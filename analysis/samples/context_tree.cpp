#include "analysis/samples/context_tree.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "profiledb/profile_db.h"

namespace dcpi {
namespace {

uint64_t add_checked(uint64_t a, uint64_t b) {
  uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) throw std::runtime_error("context costs overflow");
  return sum;
}

// A procedure's name and image display name for an attributed address.
std::pair<std::string, std::string> name_of(const profiledb::ContextProfile& profile,
                                            const DcpiContextNode& node, ImageResolver& resolver) {
  if (node.kind == DCPI_CONTEXT_KERNEL) return {"[kernel]", ""};
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(node.address));
  if (node.image == DCPI_CONTEXTS_NO_IMAGE) return {hex, "[unknown]"};
  const profiledb::ContextImage& image = profile.images[node.image];
  const ImageIdentity identity{image.build_id, image.path, 0, false};
  const ResolvedImage& resolved = resolver.resolve(identity);
  if (resolved.elf) {
    if (auto procedure = resolved.elf->procedure_at(node.address)) {
      // A call into a PLT stub is a call of the function the stub jumps to
      // (through ld.so's resolver on the first call): the context's time is
      // that function's, and a sampled chain, which sees only the caller's
      // return address, names it so too (docs/reports.md, "PLT calls").
      if (procedure->name.ends_with("@plt")) procedure->name.resize(procedure->name.size() - 4);
      // Stripped code is named by where its CFI's procedure begins
      // (ProcedureSource::kFrameInfo: a bsr enters past the gp set-up, a jsr
      // at the entry, one name for both), as the sampled chains name it.
      return {procedure->name, image.path};
    }
  }
  return {hex, image.path};
}

// "pid 3 /bin/copy": the image where the thread's user code spent most;
// "pid 3 tid 5 /bin/threads" for a thread other than the process's first
// (the plugin names threads by tid; the process table knows their process).
std::string thread_label(const profiledb::ContextProfile& profile,
                         const std::vector<uint32_t>& thread_of, uint32_t thread,
                         const ProcessTable* table) {
  const DcpiContextThread& t = profile.threads[thread];
  std::map<uint32_t, uint64_t> by_image;
  for (size_t i = 0; i < profile.nodes.size(); ++i)
    if (thread_of[i] == thread && profile.nodes[i].image != DCPI_CONTEXTS_NO_IMAGE)
      by_image[profile.nodes[i].image] += profile.nodes[i].instructions;
  const uint32_t pid = table ? table->process_of(t.pid) : t.pid;
  std::string label = t.cpu != DCPI_CONTEXTS_NO_CPU ? "cpu " + std::to_string(t.cpu) + " boot"
                                                    : "pid " + std::to_string(pid);
  if (t.cpu == DCPI_CONTEXTS_NO_CPU && pid != t.pid) label += " tid " + std::to_string(t.pid);
  const auto top = std::max_element(by_image.begin(), by_image.end(),
                                    [](auto& a, auto& b) { return a.second < b.second; });
  if (top != by_image.end()) label += " " + profile.images[top->first].path;
  return label;
}

std::vector<uint32_t> threads_of_nodes(const profiledb::ContextProfile& profile) {
  std::vector<uint32_t> thread_of(profile.nodes.size(), 0);
  for (uint32_t t = 0; t < profile.threads.size(); ++t) thread_of[profile.threads[t].root] = t;
  for (size_t i = 0; i < profile.nodes.size(); ++i)
    if (profile.nodes[i].parent != DCPI_CONTEXTS_NO_PARENT)
      thread_of[i] = thread_of[profile.nodes[i].parent];
  return thread_of;
}

bool has_ancestor_named(const ContextTree& tree, uint32_t node, const std::string& name) {
  for (uint32_t n = tree.nodes[node].parent; n != DCPI_CONTEXTS_NO_PARENT; n = tree.nodes[n].parent)
    if (tree.nodes[n].name == name) return true;
  return false;
}

void add_neighbour(std::map<std::pair<std::string, std::string>, ContextCosts>& into,
                   const ContextTreeNode& node, const ContextCosts& costs) {
  into[{node.name, node.image}] += costs;
}

std::vector<ContextNeighbour> sorted(
    const std::map<std::pair<std::string, std::string>, ContextCosts>& from) {
  std::vector<ContextNeighbour> out;
  for (const auto& [key, costs] : from) out.push_back({key.first, key.second, costs});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.costs.cycles + a.costs.instructions + a.costs.samples >
           b.costs.cycles + b.costs.instructions + b.costs.samples;
  });
  return out;
}

// Node 0: the whole profile (no parent).
ContextTreeNode all_node() {
  ContextTreeNode node;
  node.name = "[all]";
  return node;
}

}  // namespace

uint64_t ContextCosts::get(ContextMetric metric) const {
  switch (metric) {
    case ContextMetric::kCycles:
      return cycles;
    case ContextMetric::kInstructions:
      return instructions;
    case ContextMetric::kCalls:
      return calls;
    case ContextMetric::kDCacheMisses:
      return dcache_misses;
    case ContextMetric::kICacheMisses:
      return icache_misses;
    case ContextMetric::kDtbMisses:
      return dtb_misses;
    case ContextMetric::kMispredicts:
      return mispredicts;
    case ContextMetric::kSamples:
      return samples;
  }
  return 0;
}

const char* context_metric_key(ContextMetric metric) {
  switch (metric) {
    case ContextMetric::kCycles:
      return "cycles";
    case ContextMetric::kInstructions:
      return "instructions";
    case ContextMetric::kCalls:
      return "calls";
    case ContextMetric::kDCacheMisses:
      return "dmiss";
    case ContextMetric::kICacheMisses:
      return "imiss";
    case ContextMetric::kDtbMisses:
      return "dtbmiss";
    case ContextMetric::kMispredicts:
      return "mispredict";
    case ContextMetric::kSamples:
      return "samples";
  }
  return "";
}

std::optional<ContextMetric> context_metric_named(const std::string& name) {
  for (ContextMetric metric : kContextMetrics)
    if (name == context_metric_key(metric)) return metric;
  if (name == context_metric_key(ContextMetric::kSamples)) return ContextMetric::kSamples;
  return std::nullopt;
}

ContextCosts& ContextCosts::operator+=(const ContextCosts& other) {
  calls = add_checked(calls, other.calls);
  instructions = add_checked(instructions, other.instructions);
  cycles = add_checked(cycles, other.cycles);
  dcache_misses = add_checked(dcache_misses, other.dcache_misses);
  icache_misses = add_checked(icache_misses, other.icache_misses);
  dtb_misses = add_checked(dtb_misses, other.dtb_misses);
  mispredicts = add_checked(mispredicts, other.mispredicts);
  samples = add_checked(samples, other.samples);
  return *this;
}

ContextCosts ContextCosts::of(const DcpiContextNode& node) {
  return ContextCosts{node.calls,         node.instructions, node.cycles,     node.dcache_misses,
                      node.icache_misses, node.dtb_misses,   node.mispredicts};
}

void add_context_profile(ContextTree& tree, const profiledb::ContextProfile& profile,
                         ImageResolver& resolver, std::optional<uint32_t> pid,
                         const ProcessTable* table) {
  if (tree.nodes.empty()) tree.nodes.push_back(all_node());
  tree.machine = profile.machine;
  const std::vector<uint32_t> thread_of = threads_of_nodes(profile);
  std::vector<uint32_t> merged(profile.nodes.size());
  for (uint32_t i = 0; i < profile.nodes.size(); ++i) {
    const DcpiContextNode& node = profile.nodes[i];
    const DcpiContextThread& thread = profile.threads[thread_of[i]];
    const uint32_t process = table ? table->process_of(thread.pid) : thread.pid;
    if (pid && (process != *pid || thread.cpu != DCPI_CONTEXTS_NO_CPU)) continue;
    if (node.parent == DCPI_CONTEXTS_NO_PARENT) {
      merged[i] = child_named(tree, 0, thread_label(profile, thread_of, thread_of[i], table), "");
    } else {
      const auto [name, image] = name_of(profile, node, resolver);
      merged[i] = child_named(tree, merged[node.parent], name, image);
    }
    tree.nodes[merged[i]].self += ContextCosts::of(node);
  }
}

void compute_totals(ContextTree& tree) {
  for (ContextTreeNode& node : tree.nodes) node.total = node.self;
  for (size_t i = tree.nodes.size(); i-- > 1;) {  // children come after their parents
    ContextTreeNode& parent = tree.nodes[tree.nodes[i].parent];
    const uint64_t calls = parent.total.calls;
    parent.total += tree.nodes[i].total;
    parent.total.calls = calls;  // calls are not inclusive
  }
}

ContextTree load_context_tree(const std::string& database, const ContextTreeRequest& request,
                              ImageResolver& resolver) {
  const ProfileDatabase db = ProfileDatabase::open(database);
  ContextTree tree;
  for (uint64_t epoch : db.epochs()) {
    if (request.epochs &&
        std::find(request.epochs->begin(), request.epochs->end(), epoch) == request.epochs->end())
      continue;
    const auto file = db.directory() / epoch_directory_name(epoch) / profiledb::kContextsFileName;
    if (!std::filesystem::exists(file)) continue;
    const std::optional<ProcessTable> table = db.process_table(epoch);
    add_context_profile(tree, profiledb::read_contexts_file(file), resolver, request.pid,
                        table ? &*table : nullptr);
    ++tree.epochs;
  }
  if (tree.epochs == 0)
    throw std::runtime_error("no calling contexts in " + database +
                             " (record them with dcpi run --contexts)");
  compute_totals(tree);
  return tree;
}

ContextTree invert_context_tree(const ContextTree& tree) {
  ContextTree out;
  out.machine = tree.machine;
  out.epochs = tree.epochs;
  out.sampled = tree.sampled;
  out.nodes.push_back(all_node());
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const ContextTreeNode& node = tree.nodes[i];
    if (node.self.instructions == 0 && node.self.cycles == 0 && node.self.samples == 0) continue;
    ContextCosts cost = node.self;
    uint32_t at = 0;
    for (uint32_t n = i; n != 0; n = tree.nodes[n].parent) {
      at = child_named(out, at, tree.nodes[n].name, tree.nodes[n].image);
      out.nodes[at].self += cost;
      cost.calls = 0;  // the calls of the procedure itself, not of its callers
    }
  }
  // In the inverted tree a node's "self" already is its inclusive cost.
  for (ContextTreeNode& node : out.nodes) node.total = node.self;
  ContextCosts all;
  for (uint32_t child : out.nodes[0].children) all += out.nodes[child].total;
  out.nodes[0].total = all;
  return out;
}

std::vector<ContextNeighbour> context_callers(const ContextTree& tree,
                                              const std::string& procedure) {
  std::map<std::pair<std::string, std::string>, ContextCosts> by_caller;
  for (uint32_t i = 1; i < tree.nodes.size(); ++i)
    if (tree.nodes[i].name == procedure && !has_ancestor_named(tree, i, procedure))
      add_neighbour(by_caller, tree.nodes[tree.nodes[i].parent], tree.nodes[i].total);
  return sorted(by_caller);
}

std::vector<ContextNeighbour> context_callees(const ContextTree& tree,
                                              const std::string& procedure) {
  std::map<std::pair<std::string, std::string>, ContextCosts> by_callee;
  for (uint32_t i = 1; i < tree.nodes.size(); ++i)
    if (tree.nodes[i].name == procedure && !has_ancestor_named(tree, i, procedure))
      for (uint32_t child : tree.nodes[i].children)
        add_neighbour(by_callee, tree.nodes[child], tree.nodes[child].total);
  return sorted(by_callee);
}

std::vector<std::string> context_path(const ContextTree& tree, uint32_t node) {
  std::vector<std::string> path;
  for (uint32_t n = node; n != 0 && n != DCPI_CONTEXTS_NO_PARENT; n = tree.nodes[n].parent)
    path.push_back(tree.nodes[n].name);
  std::reverse(path.begin(), path.end());
  return path;
}

uint32_t child_named(ContextTree& tree, uint32_t parent, const std::string& name,
                     const std::string& image) {
  for (uint32_t child : tree.nodes[parent].children)
    if (tree.nodes[child].name == name && tree.nodes[child].image == image) return child;
  const auto index = static_cast<uint32_t>(tree.nodes.size());
  ContextTreeNode node;
  node.name = name;
  node.image = image;
  node.parent = parent;
  tree.nodes.push_back(std::move(node));
  tree.nodes[parent].children.push_back(index);
  return index;
}

}  // namespace dcpi
