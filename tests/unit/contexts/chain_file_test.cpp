// The sampled call-chain file (issue 28 item 2): it round-trips, the
// sampled tree built from it has the shape and counts of its chains, and
// damaged files fail with one ProfileFormatError each, never a crash
// (issue 18: every reader has a fuzzer).
#include "profiledb/chain_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "analysis/samples/chain_score.h"
#include "analysis/samples/chain_tree.h"
#include "firmware/crc32c.h"
#include "profiledb/container.h"
#include "profiledb/profile_db.h"

namespace dcpi {
namespace {

using profiledb::ChainNode;
using profiledb::ChainStop;

// Two complete chains main <- _start: work <- cheap and work <- dear, and a
// truncated one; addresses without an ELF file name themselves in hex.
profiledb::ChainProfile sample_profile() {
  profiledb::ChainProfile p;
  p.stack_bytes = 1024;
  p.dropped = 3;
  p.images = {{"0123abcd", "/bin/calls"}};
  const uint32_t none = profiledb::kChainNoParent;
  auto frame = [](uint32_t parent, uint64_t address, uint64_t samples) {
    return ChainNode{parent, profiledb::kChainFrame, 0, 0, 0, address, samples};
  };
  p.nodes = {
      {none, profiledb::kChainRoot, 0, profiledb::kChainNoImage, 0, 0, 0},  // 0 complete
      frame(0, 0x1000, 0),                                                  // 1 _start
      frame(1, 0x2000, 1),                                                  // 2 main
      frame(2, 0x3000, 0),                                                  // 3 cheap
      frame(3, 0x5000, 8),                                                  // 4 work
      frame(2, 0x4000, 0),                                                  // 5 dear
      frame(5, 0x5000, 90),                                                 // 6 work
      {none, profiledb::kChainRoot, static_cast<uint16_t>(ChainStop::kSliceTooShort),
       profiledb::kChainNoImage, 0, 0, 0},  // 7 truncated
      frame(7, 0x5000, 1),                  // 8 work
  };
  return p;
}

void reseal(std::vector<uint8_t>& bytes) {
  const uint32_t crc = crc32c(bytes.data(), bytes.size() - 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &crc, sizeof crc);
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    profiledb::decode_chains(bytes, "c.cct");
  } catch (const ProfileFormatError& error) {
    return error.what();
  }
  return "";
}

TEST(ChainFile, RoundTrips) {
  const std::vector<uint8_t> bytes = profiledb::encode_chains(sample_profile());
  const profiledb::ChainProfile back = profiledb::decode_chains(bytes, "c.cct");
  EXPECT_EQ(back.nodes.size(), 9u);
  EXPECT_EQ(back.samples(), 100u);
  EXPECT_EQ(back.dropped, 3u);
  EXPECT_EQ(back.stack_bytes, 1024u);
  ASSERT_EQ(back.images.size(), 1u);
  EXPECT_EQ(back.images[0].path, "/bin/calls");
  EXPECT_EQ(profiledb::encode_chains(back), bytes);
  // 64-byte header, the image strings, a few varint bytes a node, 8 of
  // trailer: the store is shared, not one copy per sample. Addresses are
  // zigzag deltas from the frame before: +-0x1000 takes 2 bytes, +0x2000
  // 3, a repeat 1.
  EXPECT_EQ(bytes.size(), 64 + 4 + 8 + 10 + 2 + 5 + 5 + 5 + 6 + 5 + 5 + 2 + 4 + 8u);
}

// Version 1 (absolute addresses) is still read, with the same nodes.
TEST(ChainFile, ReadsVersionOne) {
  const profiledb::ChainProfile profile = sample_profile();
  const std::vector<uint8_t> v2 = profiledb::encode_chains(profile);
  const uint32_t header_bytes = 64 + 4 + 8 + 10;
  std::vector<uint8_t> v1(v2.begin(), v2.begin() + header_bytes);
  const uint32_t version = 1;
  std::memcpy(v1.data() + 8, &version, sizeof version);
  for (uint32_t i = 0; i < profile.nodes.size(); ++i) {
    const ChainNode& node = profile.nodes[i];
    if (node.kind == profiledb::kChainRoot) {
      profiledb::put_varint(v1, 0);
      profiledb::put_varint(v1, node.stop);
      continue;
    }
    profiledb::put_varint(v1, i - node.parent);
    profiledb::put_varint(v1, uint64_t{node.image} + 1);
    profiledb::put_varint(v1, node.address);
    profiledb::put_varint(v1, node.samples);
  }
  v1.insert(v1.end(), v2.end() - 8, v2.end());  // CRC (resealed below) and trailer magic
  reseal(v1);
  const profiledb::ChainProfile back = profiledb::decode_chains(v1, "v1.cct");
  ASSERT_EQ(back.nodes.size(), profile.nodes.size());
  for (size_t i = 0; i < back.nodes.size(); ++i) {
    EXPECT_EQ(back.nodes[i].address, profile.nodes[i].address) << i;
    EXPECT_EQ(back.nodes[i].parent, profile.nodes[i].parent) << i;
  }
  std::vector<uint8_t> v3 = v2;
  const uint32_t future = 3;
  std::memcpy(v3.data() + 8, &future, sizeof future);
  EXPECT_NE(error_of(v3).find("unsupported chains file version 3"), std::string::npos)
      << error_of(v3);
}

TEST(ChainFile, RefusesBrokenStructure) {
  auto damaged = [](auto change) {
    profiledb::ChainProfile p = sample_profile();
    change(p);
    std::vector<uint8_t> bytes = profiledb::encode_chains(p);
    return error_of(bytes);
  };
  EXPECT_NE(damaged([](auto& p) { p.nodes[3].parent = 5; }).find("parent does not come before"),
            std::string::npos);
  EXPECT_NE(damaged([](auto& p) { p.nodes[7].stop = 99; }).find("unknown stop"), std::string::npos);
  EXPECT_NE(damaged([](auto& p) { p.nodes[2].image = 4; }).find("image index out of range"),
            std::string::npos);
  // A root keeps no samples: the header's total then disagrees with the nodes'.
  EXPECT_NE(damaged([](auto& p) { p.nodes[0].samples = 1; }).find("do not add up"),
            std::string::npos);
  // The header's total must be the nodes' sum.
  std::vector<uint8_t> bytes = profiledb::encode_chains(sample_profile());
  bytes[32] ^= 1;
  reseal(bytes);
  EXPECT_NE(error_of(bytes).find("do not add up"), std::string::npos);
}

TEST(ChainFile, EveryFlippedByteIsAnErrorOrAValidFile) {
  const std::vector<uint8_t> good = profiledb::encode_chains(sample_profile());
  std::mt19937 random(28);
  for (size_t i = 0; i < good.size(); ++i) {
    for (bool resealed : {false, true}) {
      std::vector<uint8_t> bytes = good;
      bytes[i] ^= static_cast<uint8_t>(1u << (random() % 8));
      if (resealed && i + 8 < bytes.size()) reseal(bytes);
      try {
        profiledb::decode_chains(bytes, "c.cct");
      } catch (const ProfileFormatError& error) {
        EXPECT_EQ(std::string(error.what()).rfind("c.cct: at offset ", 0), 0u) << error.what();
      }
    }
  }
  for (size_t n = 0; n < good.size(); n += 7) {
    const std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    EXPECT_FALSE(error_of(cut).empty()) << "truncated to " << n;
  }
}

TEST(ChainTree, SampledTreeKeepsTruncatedChainsApart) {
  ImageResolver resolver(std::vector<std::filesystem::path>{});
  ContextTree tree;
  ChainTreeStats stats;
  add_chain_profile(tree, sample_profile(), resolver, &stats);
  compute_totals(tree);
  EXPECT_TRUE(tree.sampled);
  EXPECT_EQ(tree.nodes[0].total.samples, 100u);
  // [all] -> 0x1000 (_start) and [truncated: stack slice too short].
  ASSERT_EQ(tree.nodes[0].children.size(), 2u);
  const ContextTreeNode& truncated = tree.nodes[tree.nodes[0].children[1]];
  EXPECT_EQ(truncated.name, "[truncated: stack slice too short]");
  EXPECT_EQ(truncated.total.samples, 1u);
  const std::vector<ContextNeighbour> callers = context_callers(tree, "0x5000");
  ASSERT_EQ(callers.size(), 3u);
  EXPECT_EQ(callers[0].name, "0x4000");  // dear: 90 samples of work
  EXPECT_EQ(callers[0].costs.samples, 90u);
  EXPECT_EQ(callers[1].costs.samples, 8u);
  EXPECT_EQ(stats.samples, 100u);
  EXPECT_EQ(stats.dropped, 3u);
  EXPECT_EQ(stats.stops["complete"], 99u);
  EXPECT_EQ(stats.truncated_in["/bin/calls"], 1u);
}

// The exact tree the chains above sample: thread root, main, cheap/dear, work.
ContextTree exact_tree(uint64_t cheap_work, uint64_t dear_work) {
  ContextTree tree;
  auto add = [&tree](uint32_t parent, const std::string& name, uint64_t cycles) {
    ContextTreeNode node;
    node.name = name;
    node.parent = parent;
    node.self.cycles = node.self.instructions = cycles;
    tree.nodes.push_back(node);
    const auto index = static_cast<uint32_t>(tree.nodes.size() - 1);
    if (index != 0) tree.nodes[parent].children.push_back(index);
    return index;
  };
  add(0, "[all]", 0);
  const uint32_t thread = add(0, "pid 7 /bin/calls", 0);
  const uint32_t main = add(thread, "0x2000", 1);
  add(add(main, "0x3000", 0), "0x5000", cheap_work);
  add(add(main, "0x4000", 0), "0x5000", dear_work);
  compute_totals(tree);
  return tree;
}

TEST(ChainScore, ComparesCallersWithTheExactTree) {
  ImageResolver resolver(std::vector<std::filesystem::path>{});
  ContextTree sampled;
  add_chain_profile(sampled, sample_profile(), resolver);
  compute_totals(sampled);
  const ChainScore score = score_chains(exact_tree(8, 91), sampled, 8);
  EXPECT_EQ(score.user_samples, 100u);
  EXPECT_EQ(score.matched, 99u);  // the truncated one is not unwound
  EXPECT_EQ(score.not_unwound, 1u);
  EXPECT_NEAR(score.overlap, 0.99, 0.001);
  // A split by call counts (90 % cheap) would be far off: the score sees it.
  const ChainScore wrong = score_chains(exact_tree(90, 9), sampled, 8);
  EXPECT_LT(wrong.overlap, 0.2);
}

// Kernel chains now go on into user frames (issue 28 item 2, kernel half):
// a kernel leaf under main is still a kernel-mode sample, left out of the
// user score, as a leaf-only kernel chain of an older database is.
TEST(ChainScore, KernelLeavesAreLeftOutWithTheirUserCallers) {
  ImageResolver resolver(std::vector<std::filesystem::path>{});
  ContextTree sampled;
  add_chain_profile(sampled, sample_profile(), resolver);
  auto add = [&sampled](uint32_t parent, const std::string& name, const std::string& image,
                        uint64_t samples) {
    ContextTreeNode node;
    node.name = name, node.image = image, node.parent = parent;
    node.self.samples = samples;
    sampled.nodes.push_back(node);
    const auto index = static_cast<uint32_t>(sampled.nodes.size() - 1);
    sampled.nodes[parent].children.push_back(index);
    return index;
  };
  const uint32_t main = add(0, "0x2000", "/bin/calls", 0);
  add(add(main, "entry_system_call", "kernel.elf", 0), "memcpy", "kernel.elf", 7);
  add(add(0, "[truncated: kernel (no unwind tables)]", "", 0), "memcpy", "kernel.elf", 4);
  compute_totals(sampled);
  const ChainScore score = score_chains(exact_tree(8, 91), sampled, 8);
  EXPECT_EQ(score.user_samples, 100u);
  EXPECT_EQ(score.kernel_samples, 11u);
  EXPECT_EQ(score.matched, 99u);
}

// A tree of named frames, outermost first, for the score's edge cases.
struct NamedTree {
  ContextTree tree;
  NamedTree() { tree.nodes.push_back(ContextTreeNode{}); }
  uint32_t add(uint32_t parent, const std::string& name, uint64_t cost) {
    ContextTreeNode node;
    node.name = name, node.image = "/lib/liblzma.so.5", node.parent = parent;
    (tree.sampled ? node.self.samples : node.self.cycles) = cost;
    tree.nodes.push_back(node);
    const auto index = static_cast<uint32_t>(tree.nodes.size() - 1);
    tree.nodes[parent].children.push_back(index);
    return index;
  }
  uint32_t chain(uint32_t parent, std::initializer_list<std::string> names, uint64_t cost) {
    for (const std::string& name : names) parent = add(parent, name, 0);
    (tree.sampled ? tree.nodes[parent].self.samples : tree.nodes[parent].self.cycles) = cost;
    return parent;
  }
};

// xz's workers (issue 28): the exact tree's thread starts at start_thread
// (unnamed in Debian's libc: 0xa1f20); a complete chain goes on to clone's
// child half (0x12f130), the thread's entry, the exact tree's root. With
// exactly `depth` frames the score kept that frame and missed.
TEST(ChainScore, AThreadsEntryFrameIsTheRootAtAnyDepth) {
  NamedTree exact;
  exact.chain(exact.add(0, "pid 9 tid 10 /bin/xz", 0), {"0xa1f20", "worker", "encode"}, 50);
  NamedTree sampled;
  sampled.tree.sampled = true;
  sampled.chain(0, {"0x12f130", "0xa1f20", "worker", "encode"}, 5);
  compute_totals(exact.tree), compute_totals(sampled.tree);
  const ChainScore score = score_chains(exact.tree, sampled.tree, 4);
  EXPECT_EQ(score.user_samples, 5u);
  EXPECT_EQ(score.matched, 5u);
}

// lua's coroutines (issue 28): resume → luaD_rawrunprotected folds onto the
// outer luaD_rawrunprotected, so a chain cut above luaD_pcall folds to four
// frames whose callers the slice did not hold: not unwound, not a mismatch.
TEST(ChainScore, ATruncatedChainThatFoldsShortIsNotUnwound) {
  NamedTree exact;
  exact.chain(exact.add(0, "pid 3 /bin/lua", 0),
              {"main", "pcall", "run", "precall", "resume", "unroll", "execute"}, 50);
  NamedTree sampled;
  sampled.tree.sampled = true;
  const uint32_t cut = sampled.add(0, "[truncated: stack slice too short]", 0);
  sampled.chain(cut, {"pcall", "run", "precall", "resume", "run", "unroll", "execute"}, 3);
  compute_totals(exact.tree), compute_totals(sampled.tree);
  const ChainScore score = score_chains(exact.tree, sampled.tree, 5);
  EXPECT_EQ(score.user_samples, 3u);
  EXPECT_EQ(score.not_unwound, 3u);
  EXPECT_EQ(score.matched, 0u);
}

}  // namespace
}  // namespace dcpi
