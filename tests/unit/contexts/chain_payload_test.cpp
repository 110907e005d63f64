// The kChains payload decoder (firmware/call_chains.h, hostdump/chains/):
// format 2 records (kernel samples are leaves without stack) still decode,
// format 3's kernel-mode samples carry a kernel slice and a user part
// (issue 28 item 2, kernel frames) that the unwinder reads as one stack,
// and format 4 packs 12-bit counts (slices up to 16 KB) and still reads 3.
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

  // The counts as `format` packs them.
  uint64_t counts(uint64_t low, uint64_t reused = 0, uint64_t high = 0) const {
    const uint32_t bits = format >= 4 ? kChainCountBits : 10;
    return low | reused << bits | high << 2 * bits;
  }
  void head(uint8_t flags, uint8_t sequence, uint64_t counts, uint64_t sp) {
    words.push_back(format >= 4 ? chain_head_first(7, flags, sequence, counts)
                                : uint64_t{7} | uint64_t{flags} << 16 | uint64_t{sequence} << 24 |
                                      counts << 32);
    for (uint64_t w : {uint64_t{0x1200001a0}, sp, uint64_t{0x120000200}, uint64_t{0}, uint64_t{0}})
      words.push_back(w);
  }
  void user_part(uint64_t sp, uint64_t counts, uint8_t flags) {
    words.push_back(sp);
    words.push_back(format >= 4 ? chain_user_part_second(counts, flags)
                                : counts | uint64_t{flags} << 32);
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

TEST(ChainPayload, Format3And4KernelSampleReadsBothSlices) {
  for (const uint32_t format : {3u, 4u}) {
    SCOPED_TRACE(format);
    PayloadWriter w;
    w.format = format;
    w.head(kChainStackEnd | kChainUserPart, 0, w.counts(4), kKernelSp);
    w.quadwords(100, 4);  // the kernel slice, up to the kernel stack's top
    w.user_part(kUserSp, w.counts(3), kChainStackEnd);  // low 3, user stack ended
    w.quadwords(200, 3);
    // A user sample next reuses the user part's quadwords (reused 2 at +8).
    w.head(kChainUser, 1, w.counts(1, 2), kUserSp);
    w.quadwords(300, 1);
    ChainDecoder decoder;
    std::vector<ChainSample> out;
    uint64_t dropped = 0;
    ASSERT_TRUE(decoder.decode(w.bytes(), 1, 0, out, &dropped));
    ASSERT_EQ(out.size(), 2u);
    const ChainSample& k = out[0];
    EXPECT_EQ(k.pid, 7u);
    EXPECT_EQ(k.sequence, 0u);
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
    EXPECT_EQ(u.sequence, 1u);
    EXPECT_TRUE(u.user());
    EXPECT_FALSE(u.reference_lost);
    EXPECT_EQ(u.stack, (std::vector<uint64_t>{300, 201, 202}));
  }
}

// Format 4's counts reach 2048 quadwords (16 KB) in a part: bzip2's
// 10 KB frame (issue 28); format 3's 10-bit counts could not say 1024.
TEST(ChainPayload, Format4CarriesA16KBSliceInParts) {
  PayloadWriter w;
  w.head(kChainUser, 0, w.counts(1500, 0, 548), kUserSp);
  w.quadwords(0, 2048);
  w.head(kChainUser, 1, w.counts(1, 2047), kUserSp);  // all but the lowest reused
  w.quadwords(5000, 1);
  ChainDecoder decoder;
  std::vector<ChainSample> out;
  uint64_t dropped = 0;
  ASSERT_TRUE(decoder.decode(w.bytes(), 1, 0, out, &dropped));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].stack.size(), 2048u);
  ASSERT_EQ(out[1].stack.size(), 2048u);
  EXPECT_EQ(out[1].stack[0], 5000u);
  EXPECT_EQ(out[1].stack[2047], 2047u);
  EXPECT_FALSE(out[1].reference_lost);
  PayloadWriter too_long;  // more than kMaxChainStackBytes in one slice
  too_long.head(kChainUser, 0, too_long.counts(2049), kUserSp);
  too_long.quadwords(0, 2049);
  out.clear();
  EXPECT_FALSE(ChainDecoder{}.decode(too_long.bytes(), 1, 0, out, &dropped));
}

// Kernel slices are sent against the previous kernel slice, user slices
// against the previous user slice (a user part included); a sequence gap
// (a lost record) makes both unusable until resent.
TEST(ChainPayload, KernelAndUserSlicesReuseTheirOwnKind) {
  PayloadWriter w;
  w.head(0, 0, w.counts(3), kKernelSp);
  w.quadwords(100, 3);
  w.head(kChainUser, 1, w.counts(2), kUserSp);
  w.quadwords(200, 2);
  w.head(0, 2, w.counts(1, 2), kKernelSp);  // low 1, then 101 and 102 reused
  w.quadwords(110, 1);
  w.head(kChainUser, 3, w.counts(1, 1), kUserSp);
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
  after_gap.head(0, 9, after_gap.counts(1, 2), kKernelSp);  // sequence 4 was lost
  after_gap.quadwords(120, 1);
  out.clear();
  ASSERT_TRUE(decoder.decode(after_gap.bytes(), 1, 0, out, &dropped));
  EXPECT_TRUE(out[0].reference_lost);
  EXPECT_EQ(out[0].stack, (std::vector<uint64_t>{120}));
}

TEST(ChainPayload, RefusesMalformedKernelSamples) {
  auto refused = [](PayloadWriter w) {
    ChainDecoder decoder;
    std::vector<ChainSample> out;
    uint64_t dropped = 0;
    return !decoder.decode(w.bytes(), 1, 0, out, &dropped) && out.empty();
  };
  PayloadWriter reserved3;  // format 3: counts' bits 30-31
  reserved3.format = 3;
  reserved3.head(0, 0, uint64_t{1} << 30, kKernelSp);
  EXPECT_TRUE(refused(reserved3));
  PayloadWriter flags4;  // format 4: only 4 flag bits, and bit 3 is unknown
  flags4.head(8, 0, 0, kKernelSp);
  EXPECT_TRUE(refused(flags4));
  for (const uint32_t format : {3u, 4u}) {
    SCOPED_TRACE(format);
    PayloadWriter short_part;  // the user part runs past the end
    short_part.format = format;
    short_part.head(kChainUserPart, 0, 0, kKernelSp);
    short_part.user_part(kUserSp, short_part.counts(4), 0);
    short_part.quadwords(1, 3);
    EXPECT_TRUE(refused(short_part));
    PayloadWriter user_with_part;  // only kernel samples have a user part
    user_with_part.format = format;
    user_with_part.head(kChainUser | kChainUserPart, 0, 0, kUserSp);
    EXPECT_TRUE(refused(user_with_part));
    PayloadWriter bad_flags;  // unknown user part flags
    bad_flags.format = format;
    bad_flags.head(kChainUserPart, 0, 0, kKernelSp);
    bad_flags.user_part(kUserSp, 0, 0x8);
    EXPECT_TRUE(refused(bad_flags));
  }
  PayloadWriter future;
  future.format = kChainsFormat + 1;
  EXPECT_TRUE(refused(future));
}

}  // namespace
}  // namespace dcpi
