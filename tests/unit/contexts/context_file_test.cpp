// The calling-context file: what the plugin writes (raw) is what the
// database reader reads, the attributed form round-trips, and damaged files
// fail with one ProfileFormatError each, never a crash (issue 18: every
// reader has a fuzzer).
#include "profiledb/context_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "firmware/crc32c.h"
#include "profiledb/profile_db.h"
#include "qemu/machine/plugins/contexts/contexts_file_writer.h"

namespace dcpi {
namespace {

contexts::ThreadContexts sample_tree() {
  contexts::ThreadContexts tree;
  tree.user_instruction(0x120000000, 1);
  tree.call(0x120000000, 1000);
  tree.user_instruction(0x120000100, 1);
  tree.kernel_instruction(1);
  tree.ret(1000);
  tree.user_instruction(0x120000004, 1);
  return tree;
}

std::vector<uint8_t> plugin_file() {
  static const contexts::ThreadContexts a = sample_tree(), b = sample_tree();
  return contexts::encode_contexts(
      DCPI_CONTEXTS_MACHINE_QEMU,
      {{7, DCPI_CONTEXTS_NO_CPU, 0xfffffc0000200000, &a}, {0, 1, 0, &b}});
}

// Recomputes the trailer's CRC so that a change reaches the body checks.
void reseal(std::vector<uint8_t>& bytes) {
  const uint32_t crc = crc32c(bytes.data(), bytes.size() - 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &crc, sizeof crc);
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    profiledb::decode_contexts(bytes, "f.cct");
  } catch (const ProfileFormatError& error) {
    return error.what();
  }
  return "";
}

TEST(ContextFile, ThePluginsFileReadsBack) {
  const profiledb::ContextProfile profile = profiledb::decode_contexts(plugin_file(), "f.cct");
  ASSERT_EQ(profile.threads.size(), 2u);
  EXPECT_EQ(profile.threads[0].pid, 7u);
  EXPECT_EQ(profile.threads[1].cpu, 1u);
  ASSERT_EQ(profile.nodes.size(), 6u);  // root, callee, its [kernel], twice
  EXPECT_FALSE(profile.attributed);
  EXPECT_EQ(profile.nodes[1].address, 0x120000100u);
  EXPECT_EQ(profile.nodes[1].call_site, 0x120000000u);
  EXPECT_EQ(profile.nodes[4].parent, 3u);  // the second thread's nodes follow its root
  EXPECT_EQ(profile.nodes[2].kind, DCPI_CONTEXT_KERNEL);
}

TEST(ContextFile, AttributedProfilesRoundTrip) {
  profiledb::ContextProfile profile = profiledb::decode_contexts(plugin_file(), "f.cct");
  profile.attributed = true;
  profile.images = {{"0123abcd", "/bin/copy"}, {"", "kernel.elf"}};
  profile.nodes[1].image = 0;
  profile.nodes[1].site_image = 1;
  const std::vector<uint8_t> bytes = profiledb::encode_contexts(profile);
  const profiledb::ContextProfile back = profiledb::decode_contexts(bytes, "g.cct");
  EXPECT_TRUE(back.attributed);
  ASSERT_EQ(back.images.size(), 2u);
  EXPECT_EQ(back.images[0].path, "/bin/copy");
  EXPECT_EQ(back.images[1].build_id, "");
  EXPECT_EQ(back.nodes[1].site_image, 1u);
  EXPECT_EQ(profiledb::encode_contexts(back), bytes);
}

TEST(ContextFile, InconsistentTreesAreRefusedWithOneLine) {
  const size_t nodes_at = sizeof(DcpiContextsHeader) + 2 * sizeof(DcpiContextThread);
  auto with_node = [&](uint32_t index, auto change) {
    std::vector<uint8_t> bytes = plugin_file();
    DcpiContextNode node;
    std::memcpy(&node, bytes.data() + nodes_at + index * sizeof node, sizeof node);
    change(node);
    std::memcpy(bytes.data() + nodes_at + index * sizeof node, &node, sizeof node);
    reseal(bytes);
    return error_of(bytes);
  };
  EXPECT_NE(with_node(1, [](auto& n) { n.parent = 4; }).find("parent does not come before"),
            std::string::npos);
  EXPECT_NE(with_node(1, [](auto& n) { n.kind = 9; }).find("unknown kind"), std::string::npos);
  EXPECT_NE(with_node(1, [](auto& n) { n.calls = 0; }).find("never called"), std::string::npos);
  EXPECT_NE(with_node(1, [](auto& n) { n.image = 0; }).find("image index"), std::string::npos);
  EXPECT_NE(with_node(4, [](auto& n) { n.parent = DCPI_CONTEXTS_NO_PARENT; }).find("only roots"),
            std::string::npos);
  std::vector<uint8_t> orphan = plugin_file();
  orphan.erase(orphan.begin() + sizeof(DcpiContextsHeader) + sizeof(DcpiContextThread),
               orphan.begin() + nodes_at);  // the second thread record gone
  uint32_t threads = 1;
  std::memcpy(orphan.data() + 20, &threads, sizeof threads);
  reseal(orphan);
  EXPECT_NE(error_of(orphan).find("belongs to no thread"), std::string::npos);
  std::vector<uint8_t> short_body = plugin_file();
  uint32_t nodes = 7;
  std::memcpy(short_body.data() + 24, &nodes, sizeof nodes);
  reseal(short_body);
  EXPECT_NE(error_of(short_body).find("body size"), std::string::npos);
  std::vector<uint8_t> torn = plugin_file();
  torn[100] ^= 1;
  EXPECT_NE(error_of(torn).find("checksum"), std::string::npos);
  const std::string one_line = error_of(torn);
  EXPECT_EQ(one_line.find('\n'), std::string::npos);
  EXPECT_EQ(one_line.rfind("f.cct: at offset", 0), 0u);
}

// A file of version 1 (before issue 28's events: 56-byte nodes) is the same
// file less each node's last 32 bytes; it still reads, with no events.
std::vector<uint8_t> as_version_1(const std::vector<uint8_t>& v2, size_t threads, size_t nodes) {
  const size_t nodes_at = sizeof(DcpiContextsHeader) + threads * sizeof(DcpiContextThread);
  std::vector<uint8_t> v1(v2.begin(), v2.begin() + static_cast<std::ptrdiff_t>(nodes_at));
  for (size_t i = 0; i < nodes; ++i) {
    const auto* node = v2.data() + nodes_at + i * sizeof(DcpiContextNode);
    v1.insert(v1.end(), node, node + DCPI_CONTEXT_NODE_V1_BYTES);
  }
  v1.insert(v1.end(), v2.end() - 8, v2.end());
  const uint32_t version = DCPI_CONTEXTS_VERSION_FIRST;
  std::memcpy(v1.data() + 8, &version, sizeof version);
  reseal(v1);
  return v1;
}

TEST(ContextFile, VersionOneFilesStillRead) {
  const std::vector<uint8_t> v1 = as_version_1(plugin_file(), 2, 6);
  const profiledb::ContextProfile profile = profiledb::decode_contexts(v1, "old.cct");
  ASSERT_EQ(profile.nodes.size(), 6u);
  EXPECT_EQ(profile.nodes[1].address, 0x120000100u);
  EXPECT_EQ(profile.nodes[1].cycles, 1u);
  EXPECT_EQ(profile.nodes[1].dcache_misses, 0u);
  // Rewritten, it is a version 2 file with the same tree.
  EXPECT_EQ(profiledb::encode_contexts(profile), plugin_file());
  std::vector<uint8_t> future = plugin_file();
  const uint32_t version = DCPI_CONTEXTS_VERSION + 1;
  std::memcpy(future.data() + 8, &version, sizeof version);
  reseal(future);
  EXPECT_NE(error_of(future).find("version"), std::string::npos);
}

TEST(ContextFile, EventsAreTheEv5MachinesOnly) {
  contexts::ThreadContexts tree = sample_tree();
  tree.booked(true).dcache_misses = 5;
  tree.booked(false).mispredicts = 2;
  const std::vector<contexts::ThreadEntry> threads = {{7, DCPI_CONTEXTS_NO_CPU, 0, &tree}};
  const profiledb::ContextProfile ev5 = profiledb::decode_contexts(
      contexts::encode_contexts(DCPI_CONTEXTS_MACHINE_EV5, threads), "ev5.cct");
  EXPECT_EQ(ev5.nodes[0].dcache_misses, 5u);  // the root is current again after the return
  EXPECT_EQ(ev5.nodes[3].mispredicts, 2u);    // the root's [kernel], made by booked(false)
  EXPECT_NE(error_of(contexts::encode_contexts(DCPI_CONTEXTS_MACHINE_QEMU, threads))
                .find("model events on the qemu machine"),
            std::string::npos);
}

// Random damage, resealed half of the time so it reaches the body checks:
// each copy either decodes or throws ProfileFormatError (ASan/UBSan builds
// catch what a plain run would not).
TEST(ContextFileFuzz, DamagedFilesFailCleanly) {
  const std::vector<uint8_t> good = plugin_file();
  std::mt19937 random(28);
  int refused = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<uint8_t> bytes = good;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) bytes[random() % bytes.size()] ^= 1u << (random() % 8);
    if (round % 7 == 0) bytes.resize(random() % bytes.size());
    if (round % 2 == 0 && bytes.size() >= 8) reseal(bytes);
    try {
      profiledb::decode_contexts(bytes, "fuzz.cct");
    } catch (const ProfileFormatError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 3000);
}

}  // namespace
}  // namespace dcpi
