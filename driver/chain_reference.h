// The reference slices of call-chain capture (issue 28 item 2): a sample
// sends only the quadwords of its stack slice that differ from the
// previous slice of the same kind (user, or kernel since kernel frames)
// that this CPU recorded, which the host holds too (firmware/call_chains.h,
// ChainSampleHead: low | reused | high). Why: copying and checksumming 1 KB
// per sample into the ring cost ~6 % of the guest's time at the default
// period, and a loop's (or a system call's) outer frames rarely change
// between samples.
//
// The reference is kept by address (the quadword at a lives in
// words[a / 8 mod kWords]), so a new slice is compared where it lies (the
// user stack through KSEG, the kernel stack in place) and only the
// quadwords that changed are copied: no copy of the whole slice first
// (which, with the compare, was most of the handler's cost). Guest only;
// driver/chain_sampler.cpp's.
#pragma once
#include <cstdint>

#include "firmware/call_chains.h"
#include "firmware/memory_map.h"

namespace dcpi::driver {

// Where a slice's quadwords are readable: up to three runs of contiguous
// kernel addresses (a user slice of at most 16 KB touches at most three
// 8 KB pages; a kernel slice is one run), in address order.
struct SliceSource {
  struct Run {
    uint64_t va;            // the first quadword's address in the sampled context
    const uint64_t* words;  // where the kernel reads it
    uint32_t n;
  };
  static constexpr uint32_t kMaxRuns = 3;
  static_assert(kMaxChainStackBytes <= 2 * kPageBytes, "a slice touches at most 3 pages");
  Run runs[kMaxRuns];
  uint32_t count = 0;

  void add(uint64_t va, const uint64_t* words, uint32_t n) { runs[count++] = {va, words, n}; }
  // Calls fn(va, words, n) for the runs of [from, to), in address order.
  template <typename Fn>
  void for_each(uint64_t from, uint64_t to, Fn fn) const {
    for (uint32_t r = 0; r < count; ++r) {
      const Run& run = runs[r];
      const uint64_t end = run.va + uint64_t{run.n} * 8;
      const uint64_t lo = from > run.va ? from : run.va;
      const uint64_t hi = to < end ? to : end;
      if (lo < hi) fn(lo, run.words + (lo - run.va) / 8, static_cast<uint32_t>((hi - lo) / 8));
    }
  }
};

struct Reuse {
  uint32_t low = 0, reused = 0;
};

// Where the sent quadwords go, in order: a ring of quadwords (the per-CPU
// chain buffer), written in the same pass that updates the reference.
struct WordSink {
  uint64_t* words;
  uint64_t mask;  // the ring's size - 1
  uint64_t at;    // the next quadword's position
  void put(uint64_t word) { words[at++ & mask] = word; }
};

// One kind's previous recorded slice, by address.
struct ChainReference {
  // The smallest power of two that holds the largest slice (2048
  // quadwords), so that a slice's addresses map onto words[] by a mask.
  static constexpr uint32_t kWords = [] {
    uint32_t words = 1;
    while (words < kMaxChainStackBytes / 8) words *= 2;
    return words;
  }();
  static_assert((kWords & (kWords - 1)) == 0, "addresses map onto words[] by a mask");
  static_assert(kWords >= kMaxChainStackBytes / 8, "a slice's addresses do not collide");
  uint64_t words[kWords];
  uint64_t lo = 0, hi = 0;  // the previous slice [lo, hi); lo == hi: none (a new thread, a drop)

  void forget() { lo = hi = 0; }
  static uint32_t index(uint64_t va) { return static_cast<uint32_t>(va / 8) & (kWords - 1); }

  // The run of the new slice [sp, sp + 8n) that equals the previous slice
  // at the same addresses: the overlap's highest run (the outer frames,
  // which the code deeper down does not touch), as low | reused. Quadwords
  // above the previous slice's top are sent again.
  Reuse unchanged_run(const SliceSource& source, uint64_t sp, uint32_t n) const {
    const uint64_t end = sp + uint64_t{n} * 8;
    const uint64_t top = end < hi ? end : hi;
    const uint64_t bottom = sp > lo ? sp : lo;
    if (lo == hi || top <= bottom) return {n, 0};
    uint64_t equal_from = top;  // [equal_from, top) matched so far
    for (uint32_t r = source.count; r-- > 0 && equal_from > bottom;) {
      const SliceSource::Run& run = source.runs[r];
      const uint64_t run_lo = run.va > bottom ? run.va : bottom;
      if (equal_from <= run_lo) continue;                    // the run lies above
      if (equal_from > run.va + uint64_t{run.n} * 8) break;  // runs are contiguous: never
      if (!match_down(run, run_lo, equal_from)) break;
    }
    const auto low = static_cast<uint32_t>((equal_from - sp) / 8);
    return {low, static_cast<uint32_t>((top - equal_from) / 8)};
  }

  // The new slice becomes the reference: only [sp, sp + 8 low) and the
  // quadwords above the reused run are written, each loaded once and stored
  // both here and into `out` (what the host gets is exactly what the next
  // sample is compared with).
  void take(const SliceSource& source, uint64_t sp, uint32_t n, const Reuse& reuse, WordSink& out) {
    const uint64_t reused_hi = sp + uint64_t{reuse.low + reuse.reused} * 8;
    uint64_t at = out.at;
    auto store_run = [this, &out, &at](uint64_t va, const uint64_t* from, uint32_t count) {
      store(va, from, count, out.words, out.mask, at);
    };
    source.for_each(sp, sp + uint64_t{reuse.low} * 8, store_run);
    source.for_each(reused_hi, sp + uint64_t{n} * 8, store_run);
    out.at = at;
    lo = sp;
    hi = sp + uint64_t{n} * 8;
  }

  // When the highest unchanged run leaves many quadwords below it to send
  // (bzip2's testStream: a 10 KB frame of buffers that the decompressor
  // rewrites between samples, under its callers' unchanged frames), a longer
  // unchanged run lower down, if any, is reused instead and the quadwords
  // above it go as `high` (the format allows any run: the host takes the
  // reused ones from its copy by address). Only past kScanBelowWords: the
  // scan is in aligned blocks of four (~3.5 instructions a quadword, half
  // of what sending one costs), and a shallow slice never pays for it.
  static constexpr uint32_t kScanBelowWords = 128;
  void prefer_longer_run(const SliceSource& source, uint64_t sp, Reuse& reuse) const {
    if (reuse.low > kScanBelowWords && lo != hi) scan_for_longer_run(source, sp, reuse);
  }
  // Out of line: its registers would otherwise be spilled around it on every
  // sample (~25 instructions a sample on compress, issue 28's cost).
  [[gnu::noinline]] void scan_for_longer_run(const SliceSource& source, uint64_t sp,
                                             Reuse& reuse) const {
    const uint64_t bottom = sp > lo ? sp : lo;
    // Up to the top run's start, within the previous slice (with no overlap
    // at all, low is the whole slice: words[] above hi are stale).
    const uint64_t top_run = sp + uint64_t{reuse.low} * 8;
    const uint64_t below = top_run < hi ? top_run : hi;
    uint64_t best_lo = 0, best_n = reuse.reused, run_lo = 0, run_n = 0, next_va = 0;
    // Blocks of four quadwords at 32-byte aligned addresses, so that a block
    // never straddles the wrap of words[] (kWords is a multiple of four). A
    // run goes on only from a block that ends where the next begins: a
    // source run that starts unaligned (not at a page boundary: never in
    // the guest) leaves quadwords unchecked, and a run cannot cross them.
    source.for_each(bottom, below, [&](uint64_t va, const uint64_t* from, uint32_t count) {
      for (uint32_t i = static_cast<uint32_t>(((32 - (va & 31)) & 31) / 8); i + 4 <= count;
           i += 4) {
        const uint64_t block = va + uint64_t{i} * 8;
        const uint64_t* b = words + index(block);
        if (((from[i] ^ b[0]) | (from[i + 1] ^ b[1]) | (from[i + 2] ^ b[2]) |
             (from[i + 3] ^ b[3])) != 0 ||
            block + 32 > below) {
          run_n = 0;
          continue;
        }
        if (run_n == 0 || block != next_va) run_lo = block, run_n = 0;
        run_n += 4;
        next_va = block + 32;
        if (run_n > best_n) best_n = run_n, best_lo = run_lo;
      }
    });
    if (best_lo == 0) return;
    reuse.low = static_cast<uint32_t>((best_lo - sp) / 8);
    reuse.reused = static_cast<uint32_t>(best_n);
  }

  // unchanged_run and take for a slice that is one run, `from` holding its
  // n quadwords: every kernel slice, and a user slice within one page (a
  // shallow program's). The same split and the same quadwords sent; without
  // the runs' bookkeeping, which was about a third of a shallow program's
  // chain cost (issue 28).
  Reuse unchanged_run(const uint64_t* from, uint64_t sp, uint32_t n) const {
    const uint64_t end = sp + uint64_t{n} * 8;
    const uint64_t top = end < hi ? end : hi;
    const uint64_t bottom = sp > lo ? sp : lo;
    if (lo == hi || top <= bottom) return {n, 0};
    uint64_t equal_from = top;
    match_down(SliceSource::Run{sp, from, n}, bottom, equal_from);
    return {static_cast<uint32_t>((equal_from - sp) / 8),
            static_cast<uint32_t>((top - equal_from) / 8)};
  }
  void take(const uint64_t* from, uint64_t sp, uint32_t n, const Reuse& reuse, WordSink& out) {
    uint64_t at = out.at;
    store(sp, from, reuse.low, out.words, out.mask, at);
    const uint32_t reused_hi = reuse.low + reuse.reused;
    store(sp + uint64_t{reused_hi} * 8, from + reused_hi, n - reused_hi, out.words, out.mask, at);
    out.at = at;
    lo = sp;
    hi = sp + uint64_t{n} * 8;
  }

 private:
  // Stores count quadwords from `from` (at va in the sampled context) into
  // the reference and the ring at `at`, each loaded once. The position in
  // a local: through a WordSink the compiler reloaded and stored it on
  // every quadword (it may alias words[]).
  void store(uint64_t va, const uint64_t* from, uint32_t count, uint64_t* ring, uint64_t mask,
             uint64_t& at) {
    uint32_t r = index(va);
    uint64_t to = at;
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t word = from[i];
      words[r] = word;
      r = (r + 1) & (kWords - 1);
      ring[to++ & mask] = word;
    }
    at = to;
  }

  // Moves `equal_from` down over [run_lo, equal_from) of `run` while its
  // quadwords equal the reference's; false at the first difference.
  bool match_down(const SliceSource::Run& run, uint64_t run_lo, uint64_t& equal_from) const {
    while (equal_from > run_lo) {
      // The reference's words[] wraps: compare down to its start at most.
      const uint32_t last = index(equal_from - 8);
      const uint64_t span = uint64_t{last + 1} * 8;
      const uint64_t chunk_lo = equal_from - run_lo > span ? equal_from - span : run_lo;
      const uint64_t* a = run.words + (equal_from - run.va) / 8;
      const uint64_t* b = words + last + 1;
      const uint64_t* const stop = a - (equal_from - chunk_lo) / 8;
      // Four at a time while all four are equal (one branch for four
      // compares: the loop is the handler's main cost once frames stay
      // put), then one by one.
      while (a - stop >= 4 &&
             ((a[-1] ^ b[-1]) | (a[-2] ^ b[-2]) | (a[-3] ^ b[-3]) | (a[-4] ^ b[-4])) == 0)
        a -= 4, b -= 4;
      while (a != stop && a[-1] == b[-1]) --a, --b;
      equal_from = run.va + static_cast<uint64_t>(a - run.words) * 8;
      if (a != stop) return false;
    }
    return true;
  }
};

// A slice as it went out: which of its quadwords were sent.
struct SentSlice {
  Reuse reuse;
  uint32_t high = 0;
  bool ended = false;  // kChainStackEnd: the slice reached the stack's end
  uint64_t counts() const { return chain_counts(reuse.low, reuse.reused, high); }
  uint32_t sent() const { return reuse.low + high; }
};

// diff_and_take's slices of several runs (a user slice across pages): out
// of line, so that the one-run path (every kernel slice, a shallow user
// slice) keeps its registers (issue 28's cost).
[[gnu::noinline]] inline SentSlice diff_and_take_runs(ChainReference& reference,
                                                      const SliceSource& source, uint64_t sp,
                                                      uint32_t n, bool ended, WordSink& out) {
  SentSlice s;
  s.ended = ended;
  s.reuse = reference.unchanged_run(source, sp, n);
  reference.prefer_longer_run(source, sp, s.reuse);
  s.high = n - s.reuse.low - s.reuse.reused;
  reference.take(source, sp, n, s.reuse, out);
  return s;
}

// Compares the slice (n quadwords at sp, readable through `source`) with
// `reference`, makes it the reference and sends the quadwords that changed
// (its low ones, then its high ones) to `out`.
[[gnu::always_inline]] inline SentSlice diff_and_take(ChainReference& reference,
                                                      const SliceSource& source, uint64_t sp,
                                                      uint32_t n, bool ended, WordSink& out) {
  if (!(source.count == 1 && source.runs[0].va == sp && source.runs[0].n == n))
    return diff_and_take_runs(reference, source, sp, n, ended, out);
  SentSlice s;
  s.ended = ended;
  const uint64_t* from = source.runs[0].words;
  s.reuse = reference.unchanged_run(from, sp, n);
  reference.prefer_longer_run(source, sp, s.reuse);
  s.high = n - s.reuse.low - s.reuse.reused;
  reference.take(from, sp, n, s.reuse, out);
  return s;
}

}  // namespace dcpi::driver
