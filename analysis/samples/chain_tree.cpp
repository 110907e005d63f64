#include "analysis/samples/chain_tree.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "profiledb/profile_db.h"

namespace dcpi {
namespace {

// The image a chain stopped in: the outermost frame its root leads to.
void count_truncation(const profiledb::ChainProfile& profile, const std::vector<uint32_t>& root_of,
                      const std::vector<std::string>& image_of, ChainTreeStats& stats) {
  std::vector<uint32_t> outermost(profile.nodes.size(), UINT32_MAX);
  for (uint32_t i = 0; i < profile.nodes.size(); ++i) {
    const profiledb::ChainNode& node = profile.nodes[i];
    if (node.kind == profiledb::kChainRoot) continue;
    const bool top = profile.nodes[node.parent].kind == profiledb::kChainRoot;
    outermost[i] = top ? i : outermost[node.parent];
  }
  for (uint32_t i = 0; i < profile.nodes.size(); ++i) {
    const profiledb::ChainNode& node = profile.nodes[i];
    if (node.samples == 0) continue;
    const auto stop = static_cast<profiledb::ChainStop>(profile.nodes[root_of[i]].stop);
    stats.samples += node.samples;
    stats.stops[profiledb::chain_stop_name(stop)] += node.samples;
    stats.leaf_samples[image_of[i]] += node.samples;
    if (stop != profiledb::ChainStop::kComplete)
      stats.truncated_in[image_of[outermost[i]]] += node.samples;
  }
}

}  // namespace

std::pair<std::string, std::string> chain_frame_name(const profiledb::ChainProfile& profile,
                                                     const profiledb::ChainNode& node,
                                                     ImageResolver& resolver) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(node.address));
  if (node.image == profiledb::kChainNoImage) return {hex, "[unknown]"};
  const profiledb::ChainImage& image = profile.images[node.image];
  const ResolvedImage& resolved =
      resolver.resolve(ImageIdentity{image.build_id, image.path, 0, false});
  if (resolved.elf) {
    // Stripped code is named by where its CFI's procedure begins
    // (ProcedureSource::kFrameInfo), so that every PC of one procedure is
    // one frame (and the exact tree's name).
    if (const auto procedure = resolved.elf->procedure_at(node.address))
      return {procedure->name, image.path};
  }
  return {hex, image.path};
}

void add_chain_profile(ContextTree& tree, const profiledb::ChainProfile& profile,
                       ImageResolver& resolver, ChainTreeStats* stats) {
  if (tree.nodes.empty()) {
    tree.nodes.emplace_back();
    tree.nodes[0].name = "[all]";
  }
  tree.sampled = true;
  tree.machine = profile.machine;
  std::vector<uint32_t> merged(profile.nodes.size()), root_of(profile.nodes.size());
  std::vector<std::string> image_of(profile.nodes.size());
  for (uint32_t i = 0; i < profile.nodes.size(); ++i) {
    const profiledb::ChainNode& node = profile.nodes[i];
    if (node.kind == profiledb::kChainRoot) {
      const auto stop = static_cast<profiledb::ChainStop>(node.stop);
      merged[i] =
          stop == profiledb::ChainStop::kComplete
              ? 0
              : child_named(tree, 0,
                            std::string("[truncated: ") + profiledb::chain_stop_name(stop) + "]",
                            "");
      root_of[i] = i;
      continue;
    }
    root_of[i] = root_of[node.parent];
    const auto [name, image] = chain_frame_name(profile, node, resolver);
    image_of[i] = image;
    merged[i] = child_named(tree, merged[node.parent], name, image);
    tree.nodes[merged[i]].self.samples += node.samples;
  }
  ++tree.epochs;
  if (stats) {
    stats->dropped += profile.dropped;
    count_truncation(profile, root_of, image_of, *stats);
  }
}

bool prefer_sampled_chains(const std::string& database) {
  const ProfileDatabase db = ProfileDatabase::open(database);
  bool chains = false;
  for (uint64_t epoch : db.epochs()) {
    const auto directory = db.directory() / epoch_directory_name(epoch);
    if (std::filesystem::exists(directory / profiledb::kContextsFileName)) return false;
    chains = chains || std::filesystem::exists(directory / profiledb::kChainsFileName);
  }
  return chains;
}

ContextTree load_chain_tree(const std::string& database, const ContextTreeRequest& request,
                            ImageResolver& resolver, ChainTreeStats* stats) {
  if (request.pid)
    throw std::runtime_error(
        "sampled call chains are stored for all processes together (no --pid)");
  const ProfileDatabase db = ProfileDatabase::open(database);
  ContextTree tree;
  for (uint64_t epoch : db.epochs()) {
    if (request.epochs &&
        std::find(request.epochs->begin(), request.epochs->end(), epoch) == request.epochs->end())
      continue;
    const auto file = db.directory() / epoch_directory_name(epoch) / profiledb::kChainsFileName;
    if (!std::filesystem::exists(file)) continue;
    add_chain_profile(tree, profiledb::read_chains_file(file), resolver, stats);
  }
  if (tree.epochs == 0)
    throw std::runtime_error("no sampled call chains in " + database +
                             " (record them with dcpi run -g)");
  compute_totals(tree);
  return tree;
}

}  // namespace dcpi
