// The kChains payload decoder (firmware/call_chains.h, hostdump/chains/):
// format 2 records (kernel samples are leaves without stack) still decode,
// and format 3's kernel-mode samples carry a kernel slice and a user part
// (issue 28 item 2, kernel frames) that the unwinder reads as one stack.
#include "hostdump/chains/chain_payload.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace dcpi {
namespace {

constexpr uint64_t kKernelSp = 0xfffffc0000a10000;
constexpr uint64_t kUserSp = 0x11fffe000;

struct PayloadWriter {
  uint32_t format = kChainsFormat;
  std::vector<uint64_t> words;

  void head(uint8_t flags, uint8_t sequence, uint32_t counts, uint64_t sp) {
    words.push_back(uint64_t{7} | uint64_t{flags} << 16 | uint64_t{sequence} << 24 |
                    uint64_t{counts} << 32);
    for (uint64_t w : {uint64_t{0x1200001a0}, sp, uint64_t{0x120000200}, uint64_t{0}, uint64_t{0}})
      words.push_back(w);
  }
  void quadwords(uint64_t first, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) words.push_back(first + i);
  }
  std::vector<uint8_t> bytes() const {
    const ChainsPayload header{static_cast<uint32_t>(words.size()), format, 0};
    std::vector<uint8_t> out(sizeof header + words.size() * 8);
    std::memcpy(out.data(), &header, sizeof header);
    std::memcpy(out.data() + sizeof header, words.data(), words.size() * 8);
    return out;
  }
};

TEST(ChainPayload, Format2KernelSampleIsALeafWithoutStack) {
  PayloadWriter w;
  w.format = 2;
  w.head(0, 0, 0, kKernelSp);
  ChainDecoder decoder;
  std::vector<ChainSample> out;
  uint64_t dropped = 0;
  ASSERT_TRUE(decoder.decode(w.bytes(), 1, 0, out, &dropped));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].format, 2u);
  EXPECT_TRUE(out[0].stack.empty());
  EXPECT_FALSE(out[0].has_user_part());
}

TEST(ChainPayload, Format2RefusesAKernelSliceAndTheUserPart) {
  for (const uint8_t flags : {uint8_t{0}, uint8_t{kChainUserPart}}) {
    PayloadWriter w;
    w.format = 2;
    w.head(flags, 0, flags ? 0 : 2, kKernelSp);
    if (!flags) w.quadwords(1, 2);
    ChainDecoder decoder;
    std::vector<ChainSample> out;
    uint64_t dropped = 0;
    EXPECT_FALSE(decoder.decode(w.bytes(), 1, 0, out, &dropped)) << int{flags};
  }
}

TEST(ChainPayload, Format3KernelSampleReadsBothSlices) {
  PayloadWriter w;
  w.head(kChainStackEnd | kChainUserPart, 0, 4, kKernelSp);
  w.quadwords(100, 4);  // the kernel slice, up to the kernel stack's top
  w.words.push_back(kUserSp);
  w.words.push_back(uint64_t{3} | uint64_t{kChainStackEnd} << 32);  // low 3, user stack ended
  w.quadwords(200, 3);
  // A user sample next reuses the user part's quadwords (reused 2 at +8).
  w.head(kChainUser, 1, 1 | 2u << 10, kUserSp);
  w.quadwords(300, 1);
  ChainDecoder decoder;
  std::vector<ChainSample> out;
  uint64_t dropped = 0;
  ASSERT_TRUE(decoder.decode(w.bytes(), 1, 0, out, &dropped));
  ASSERT_EQ(out.size(), 2u);
  const ChainSample& k = out[0];
  EXPECT_TRUE(k.has_user_part());
  EXPECT_EQ(k.user_sp, kUserSp);
  EXPECT_EQ(k.user_flags, kChainStackEnd);
  uint64_t value = 0;
  EXPECT_TRUE(k.read(kKernelSp + 24, &value));
  EXPECT_EQ(value, 103u);
  EXPECT_FALSE(k.read(kKernelSp + 32, &value));
  EXPECT_TRUE(k.read(kUserSp + 16, &value));
  EXPECT_EQ(value, 202u);
  EXPECT_FALSE(k.read(kUserSp + 24, &value));
  const ChainSample& u = out[1];
  EXPECT_FALSE(u.reference_lost);
  EXPECT_EQ(u.stack, (std::vector<uint64_t>{300, 201, 202}));
}

// Kernel slices are sent against the previous kernel slice, user slices
// against the previous user slice (a user part included); a sequence gap
// (a lost record) makes both unusable until resent.
TEST(ChainPayload, KernelAndUserSlicesReuseTheirOwnKind) {
  PayloadWriter w;
  w.head(0, 0, 3, kKernelSp);
  w.quadwords(100, 3);
  w.head(kChainUser, 1, 2, kUserSp);
  w.quadwords(200, 2);
  w.head(0, 2, 1 | 2u << 10, kKernelSp);  // low 1, then 101 and 102 reused
  w.quadwords(110, 1);
  w.head(kChainUser, 3, 1 | 1u << 10, kUserSp);
  w.quadwords(210, 1);
  ChainDecoder decoder;
  std::vector<ChainSample> out;
  uint64_t dropped = 0;
  ASSERT_TRUE(decoder.decode(w.bytes(), 1, 0, out, &dropped));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[2].stack, (std::vector<uint64_t>{110, 101, 102}));
  EXPECT_EQ(out[3].stack, (std::vector<uint64_t>{210, 201}));
  EXPECT_EQ(decoder.references_lost(), 0u);
  PayloadWriter after_gap;
  after_gap.head(0, 9, 1 | 2u << 10, kKernelSp);  // sequence 4 was lost
  after_gap.quadwords(120, 1);
  out.clear();
  ASSERT_TRUE(decoder.decode(after_gap.bytes(), 1, 0, out, &dropped));
  EXPECT_TRUE(out[0].reference_lost);
  EXPECT_EQ(out[0].stack, (std::vector<uint64_t>{120}));
}

TEST(ChainPayload, Format3RefusesMalformedKernelSamples) {
  auto refused = [](PayloadWriter w) {
    ChainDecoder decoder;
    std::vector<ChainSample> out;
    uint64_t dropped = 0;
    return !decoder.decode(w.bytes(), 1, 0, out, &dropped) && out.empty();
  };
  PayloadWriter reserved;  // counts' bits 30-31
  reserved.head(0, 0, 1u << 30, kKernelSp);
  EXPECT_TRUE(refused(reserved));
  PayloadWriter short_part;  // the user part runs past the end
  short_part.head(kChainUserPart, 0, 0, kKernelSp);
  short_part.words.push_back(kUserSp);
  short_part.words.push_back(4);
  short_part.quadwords(1, 3);
  EXPECT_TRUE(refused(short_part));
  PayloadWriter user_with_part;  // only kernel samples have a user part
  user_with_part.head(kChainUser | kChainUserPart, 0, 0, kUserSp);
  EXPECT_TRUE(refused(user_with_part));
  PayloadWriter bad_flags;  // unknown user part flags
  bad_flags.head(kChainUserPart, 0, 0, kKernelSp);
  bad_flags.words.push_back(kUserSp);
  bad_flags.words.push_back(uint64_t{0x80} << 32);
  EXPECT_TRUE(refused(bad_flags));
  PayloadWriter future;
  future.format = kChainsFormat + 1;
  EXPECT_TRUE(refused(future));
}

}  // namespace
}  // namespace dcpi
