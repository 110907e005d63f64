// The guest's reference slices for call chains (driver/chain_reference.h,
// issue 28): kept by address and compared in place, a new slice's
// low | reused | high split, with the sent quadwords read back from the
// reference as the handler does, must rebuild exactly the slice the stack
// holds, from what the host kept of the previous one; and the reused run
// must be the overlap's whole highest equal run, or a longer one lower down
// when the highest leaves more than kScanBelowWords to send. Random stacks, moves and
// changes; slices split into runs at arbitrary "page" boundaries and
// wrapping the reference's words[].
#include "driver/chain_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <vector>

namespace dcpi::driver {
namespace {

constexpr uint64_t kStackBase = 0x11fff0000;  // the simulated stack's lowest address
constexpr uint32_t kStackWords = 4096;

struct Stack {
  std::vector<uint64_t> words = std::vector<uint64_t>(kStackWords);
  uint64_t at(uint64_t va) const { return words[(va - kStackBase) / 8]; }
  const uint64_t* pointer(uint64_t va) const { return &words[(va - kStackBase) / 8]; }
};

// The slice [sp, sp + 8n) as up to three runs, cut where `cuts` say.
SliceSource source_of(const Stack& stack, uint64_t sp, uint32_t n, std::mt19937& random) {
  SliceSource source;
  uint32_t done = 0;
  while (done < n) {
    uint32_t run = n - done;
    if (source.count < 2 && run > 1 && random() % 2) run = 1 + random() % (run - 1);
    source.add(sp + uint64_t{done} * 8, stack.pointer(sp + uint64_t{done} * 8), run);
    done += run;
  }
  return source;
}

TEST(ChainReference, SentWordsRebuildEverySliceFromTheHostsCopy) {
  std::mt19937 random(28);
  Stack stack;
  for (uint64_t& w : stack.words) w = random();
  ChainReference reference;
  std::map<uint64_t, uint64_t> host;  // what the host holds of the previous slice, by address
  uint64_t sp = kStackBase + 2048 * 8;
  for (int sample = 0; sample < 3000; ++sample) {
    // The program runs: the stack moves and some quadwords change, mostly
    // near sp (the inner frames), now and then anywhere.
    const int move = static_cast<int>(random() % 129) - 64;
    // (A whole slice, up to kWords quadwords, stays inside the simulated stack.)
    sp = std::clamp<uint64_t>(sp + static_cast<int64_t>(move) * 8, kStackBase + 8,
                              kStackBase + (kStackWords - ChainReference::kWords - 64) * 8);
    for (int k = random() % 6; k > 0; --k)
      stack.words[(sp - kStackBase) / 8 + random() % 24] = random();
    if (random() % 8 == 0) stack.words[random() % kStackWords] = random();
    if (random() % 50 == 0) reference.forget(), host.clear();  // a drop or a new thread
    const uint32_t n = random() % 10 == 0 ? 0 : 1 + random() % ChainReference::kWords;

    const SliceSource source = source_of(stack, sp, n, random);
    // What goes out: the low quadwords, then the high ones, into a small
    // ring as the per-CPU buffer (wrapping).
    std::vector<uint64_t> ring(4096);  // more than a whole slice (kWords)
    const uint64_t start = random() % ring.size();
    WordSink out{ring.data(), ring.size() - 1, start};
    const SentSlice sent = diff_and_take(reference, source, sp, n, false, out);
    ASSERT_EQ(sent.reuse.low + sent.reuse.reused + sent.high, n);
    ASSERT_EQ(out.at - start, sent.sent());
    ASSERT_LE(sent.sent(), ring.size()) << "the test's ring is too small for this slice";
    std::vector<uint64_t> wire;
    for (uint64_t i = start; i < out.at; ++i) wire.push_back(ring[i & (ring.size() - 1)]);
    // Every quadword sent is the reference's now (the next sample's compare).
    for (uint32_t i = 0; i < sent.reuse.low; ++i)
      ASSERT_EQ(wire[i], reference.words[ChainReference::index(sp + uint64_t{i} * 8)]);
    // The host rebuilds: sent, reused from its copy at the same addresses, sent.
    std::map<uint64_t, uint64_t> rebuilt;
    size_t next = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t va = sp + uint64_t{i} * 8;
      const bool reused = i >= sent.reuse.low && i < sent.reuse.low + sent.reuse.reused;
      if (reused) {
        ASSERT_TRUE(host.count(va))
            << "sample " << sample << ": reused " << va << " the host lacks";
        rebuilt[va] = host[va];
      } else {
        rebuilt[va] = wire[next++];
      }
      ASSERT_EQ(rebuilt[va], stack.at(va)) << "sample " << sample << " quadword " << i;
    }
    // The highest equal run of the overlap, from the host's copy.
    uint64_t top = sp + uint64_t{n} * 8;
    while (top > sp && !host.count(top - 8)) top -= 8;
    uint64_t equal_from = top;
    while (equal_from > sp && host.count(equal_from - 8) &&
           host[equal_from - 8] == stack.at(equal_from - 8))
      equal_from -= 8;
    const auto highest_low = static_cast<uint32_t>((equal_from - sp) / 8);
    const auto highest_n = static_cast<uint32_t>((top - equal_from) / 8);
    if (sent.reuse.reused != 0 && sent.reuse.low + sent.reuse.reused != n &&
        sent.reuse.low + sent.reuse.reused < (top - sp) / 8) {
      // A run below the highest: only when that left many to send, and longer.
      EXPECT_GT(highest_low, ChainReference::kScanBelowWords) << "sample " << sample;
      EXPECT_GT(sent.reuse.reused, highest_n) << "sample " << sample;
    } else if (sent.reuse.reused != 0 || highest_n != 0) {
      EXPECT_EQ(sent.reuse.low, highest_low) << "sample " << sample;
      EXPECT_EQ(sent.reuse.reused, highest_n) << "sample " << sample;
    }
    host = rebuilt;
  }
}

// bzip2's case (issue 28): unchanged callers at the top, a rewritten buffer
// under them, a longer unchanged stretch below, changed inner frames at
// the bottom. The highest run (the callers) would send ~800 quadwords; the
// longer run below is reused instead and only the two changed parts go out.
TEST(ChainReference, ALongerUnchangedRunBelowTheHighestIsReused) {
  Stack stack;
  for (uint64_t i = 0; i < kStackWords; ++i) stack.words[i] = i * 977;
  const uint64_t sp = kStackBase + 64 * 8;  // a multiple of 32 bytes: blocks align
  constexpr uint32_t kN = 1000;
  ChainReference reference;
  std::vector<uint64_t> ring(4096);
  WordSink first{ring.data(), ring.size() - 1, 0};
  const SliceSource whole = source_of(stack, sp, kN, *std::make_unique<std::mt19937>(1));
  diff_and_take(reference, whole, sp, kN, true, first);
  // Changed: [0, 192) the inner frames, [800, 990) the buffer; the callers
  // [990, 1000) and [192, 800) are as before.
  for (uint32_t i = 0; i < 192; ++i) stack.words[64 + i] += 1;
  for (uint32_t i = 800; i < 990; ++i) stack.words[64 + i] += 1;
  WordSink out{ring.data(), ring.size() - 1, 0};
  std::mt19937 random(2);
  const SentSlice sent =
      diff_and_take(reference, source_of(stack, sp, kN, random), sp, kN, true, out);
  EXPECT_EQ(sent.reuse.low, 192u);
  EXPECT_EQ(sent.reuse.reused, 608u);
  EXPECT_EQ(sent.high, 200u);
  EXPECT_EQ(sent.sent(), 392u);
}

}  // namespace
}  // namespace dcpi::driver
