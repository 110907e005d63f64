// The reference slices of call-chain capture (issue 28 item 2): a sample
// sends only the quadwords of its stack slice that differ from the
// previous slice of the same kind (user, or kernel since kernel frames)
// that this CPU recorded, which the host holds too (firmware/call_chains.h,
// ChainSampleHead: low | reused | high). Why: copying and checksumming 1 KB
// per sample into the ring cost ~6 % of the guest's time at the default
// period, and a loop's (or a system call's) outer frames rarely change
// between samples. Guest only; driver/chain_sampler.cpp's.
#pragma once
#include <cstdint>

#include "firmware/call_chains.h"

namespace dcpi::driver {

// The handler's loops are the cost of chains (bench_chains.py): pointers,
// unrolled, and no call to the kernel's memcpy.
[[gnu::optimize("no-tree-loop-distribute-patterns")]] inline void copy_words(uint64_t* to,
                                                                             const uint64_t* from,
                                                                             uint32_t n) {
#pragma GCC unroll 4
  for (uint32_t i = 0; i < n; ++i) to[i] = from[i];
}

struct Reuse {
  uint32_t low = 0, reused = 0;
};

// One kind's previous recorded slice. Two slices, swapped, so nothing is
// copied twice: a new sample is copied into the spare one and compared.
struct ChainReference {
  uint64_t slices[2][kMaxChainStackBytes / 8];
  uint64_t sp;       // the previous slice's first address
  uint32_t current;  // index of the previous slice in `slices`
  uint32_t words;    // 0: none (first sample, after a drop, a new thread)

  uint64_t* spare() { return slices[current ^ 1]; }
  // The spare slice (its first n quadwords, at sp) becomes the previous one.
  void take(uint64_t new_sp, uint32_t n) { current ^= 1, words = n, sp = new_sp; }

  // The run of quadwords [low, low + reused) of `slice` (n quadwords at
  // `slice_sp`) that equal the previous slice's at the same addresses: the
  // overlap's highest run (the outer frames, which the code deeper down
  // does not touch). Quadwords above the previous slice's top are sent again.
  Reuse unchanged_run(const uint64_t* slice, uint64_t slice_sp, uint32_t n) const {
    Reuse r{n, 0};
    if (words == 0) return r;
    const uint64_t previous_end = sp + uint64_t{words} * 8;
    if (previous_end <= slice_sp || sp >= slice_sp + uint64_t{n} * 8) return r;
    const uint32_t begin = sp > slice_sp ? static_cast<uint32_t>((sp - slice_sp) / 8) : 0;
    const uint64_t end_words = (previous_end - slice_sp) / 8;
    const uint32_t end = end_words < n ? static_cast<uint32_t>(end_words) : n;
    const int64_t shift = static_cast<int64_t>(slice_sp - sp) / 8;  // slice i = previous i + shift
    const uint64_t* a = slice + end;
    const uint64_t* b = slices[current] + (static_cast<int64_t>(end) + shift);
    const uint64_t* const stop = slice + begin;
    // Four at a time while all four are equal (one branch for four
    // compares: the loop is the handler's main cost once frames stay put,
    // as a thread in a system call leaves its user stack), then one by one.
    while (a - stop >= 4 &&
           ((a[-1] ^ b[-1]) | (a[-2] ^ b[-2]) | (a[-3] ^ b[-3]) | (a[-4] ^ b[-4])) == 0)
      a -= 4, b -= 4;
    while (a != stop && a[-1] == b[-1]) --a, --b;
    const auto i = static_cast<uint32_t>(a - slice);
    r.low = i;
    r.reused = end - i;
    return r;
  }
};

// A slice as it goes out: its quadwords (the spare reference slice) and
// which of them are sent.
struct SentSlice {
  const uint64_t* words = nullptr;
  Reuse reuse;
  uint32_t high = 0;
  bool ended = false;  // kChainStackEnd: the slice reached the stack's end
  uint32_t counts() const { return reuse.low | reuse.reused << 10 | high << 20; }
  uint32_t sent() const { return reuse.low + high; }
};

// Compares the spare slice (n quadwords at sp) with `reference`, then makes
// it the reference.
inline SentSlice diff_and_take(ChainReference& reference, uint64_t sp, uint32_t n, bool ended) {
  SentSlice s;
  s.words = reference.spare();
  s.reuse = reference.unchanged_run(s.words, sp, n);
  s.high = n - s.reuse.low - s.reuse.reused;
  s.ended = ended;
  reference.take(sp, n);
  return s;
}

}  // namespace dcpi::driver
