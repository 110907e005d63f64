// Call-chain capture in the counter-overflow handler (issue 28 item 2), at
// IPL 6 on the interrupted context's full TrapFrame. Like `perf
// --call-graph dwarf`: no frame walk in the guest (Alpha -O2 code keeps no
// frame pointer), only a copy of sp, ra, fp, t9, the PC and the stack above
// sp; the host unwinds with the images' CFI (symbols/cfi_unwinder.h).
//
// User stacks are read through the page tables of the interrupted process
// (translate_user, never a faulting access), page by page: the slice stops
// at the first page user mode may not read (the stack's top, or a guard),
// flagged kChainStackEnd so the host can tell "the stack ended" from "the
// slice was too short". Kernel-mode samples carry their registers only: the
// kernel is built without unwind tables, so the host reports their chains
// as ending in the kernel instead of guessing (docs/transfer-format.md).
#include "driver/chain_sampler.h"

#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "driver/percpu.h"

namespace dcpi::driver {
namespace {

// Per CPU: single producer (this CPU's handler), single consumer (the
// daemon), whole samples in their wire form, as ValueBuffer.
struct alignas(64) ChainBuffer {
  uint64_t head;  // quadwords; written by the owning CPU's handler
  uint64_t pad0[7];
  uint64_t tail;  // written by the daemon
  uint64_t dropped_taken;
  uint64_t pad1[6];
  uint64_t dropped;      // samples lost because the buffer was full
  uint32_t stack_words;  // this CPU's copy of the configuration
  // The previous recorded user sample's slice (what the host holds too):
  // a new sample sends only the quadwords below the part that is unchanged
  // (firmware/call_chains.h, ChainSampleHead). Two slices, swapped, so nothing is
  // copied twice.
  uint32_t previous;        // index of the previous slice in `slices`
  uint32_t previous_words;  // 0: no previous (first sample, after a drop, new pid)
  uint16_t previous_pid;
  uint8_t sequence;  // recorded samples, mod 256 (the host checks continuity)
  uint8_t pad2[41];
  uint64_t previous_sp;
  uint64_t slices[2][kMaxChainStackBytes / 8];
  uint64_t words[kChainBufferWords];
};
static_assert((kChainBufferWords & (kChainBufferWords - 1)) == 0);
static_assert(kMaxChainStackBytes / 8 + kChainHeadWords < kChainBufferWords / 4);
static_assert(kMaxChainStackBytes / 8 < 1024, "low, reused and high are 10 bits each");

ChainBuffer g_chains[kMaxCpus];
uint32_t g_stack_bytes = 0;

// The handler's loops are the cost of chains (bench_chains.py): pointers,
// unrolled, and no call to the kernel's memcpy.
[[gnu::optimize("no-tree-loop-distribute-patterns")]] void copy_words(uint64_t* to,
                                                                      const uint64_t* from,
                                                                      uint32_t n) {
#pragma GCC unroll 4
  for (uint32_t i = 0; i < n; ++i) to[i] = from[i];
}

// Copies up to `limit` quadwords of user stack from `sp` into `to`;
// returns how many were readable, and sets `ended` when an unreadable page
// cut the slice short.
uint32_t copy_user_stack(uint64_t* to, uint64_t sp, uint32_t limit, bool* ended) {
  const kernel::AddressSpace* space = kernel::current_user_space();
  uint32_t copied = 0;
  while (copied < limit) {
    const uint64_t va = sp + uint64_t{copied} * 8;
    const uint64_t k = space != nullptr ? kernel::translate_user(*space, va, false) : 0;
    if (k == 0) {
      *ended = true;
      return copied;
    }
    // The rest of this page, in one run.
    uint32_t n = static_cast<uint32_t>((kPageBytes - (va & (kPageBytes - 1))) / 8);
    if (n > limit - copied) n = limit - copied;
    copy_words(to + copied, reinterpret_cast<const uint64_t*>(k), n);
    copied += n;
  }
  return copied;
}

// Appends n quadwords at buffer position `at` (wrapping at most once).
void put_words(ChainBuffer& cb, uint64_t at, const uint64_t* from, uint32_t n) {
  const auto offset = static_cast<uint32_t>(at & (kChainBufferWords - 1));
  const uint32_t first = n < kChainBufferWords - offset ? n : kChainBufferWords - offset;
  copy_words(cb.words + offset, from, first);
  copy_words(cb.words, from + first, n - first);
}

// The run of quadwords [low, low + reused) of the slice that equal the
// previous slice's at the same addresses: the overlap's highest run (the
// outer frames, which a loop deeper down does not touch). Quadwords above
// the previous slice's top (sp moved up) are sent again.
struct Reuse {
  uint32_t low = 0, reused = 0;
};
Reuse unchanged_run(const ChainBuffer& cb, const uint64_t* slice, uint64_t sp, uint32_t n) {
  Reuse r{n, 0};
  if (cb.previous_words == 0) return r;
  const uint64_t previous_end = cb.previous_sp + uint64_t{cb.previous_words} * 8;
  if (previous_end <= sp || cb.previous_sp >= sp + uint64_t{n} * 8) return r;
  const uint32_t begin = cb.previous_sp > sp ? static_cast<uint32_t>((cb.previous_sp - sp) / 8) : 0;
  const uint64_t end_words = (previous_end - sp) / 8;
  const uint32_t end = end_words < n ? static_cast<uint32_t>(end_words) : n;
  const uint64_t* previous = cb.slices[cb.previous];
  const int64_t shift =
      static_cast<int64_t>(sp - cb.previous_sp) / 8;  // slice i = previous i + shift
  const uint64_t* a = slice + end;
  const uint64_t* b = previous + (static_cast<int64_t>(end) + shift);
  const uint64_t* const stop = slice + begin;
  while (a != stop && a[-1] == b[-1]) --a, --b;
  const auto i = static_cast<uint32_t>(a - slice);
  r.low = i;
  r.reused = end - i;
  return r;
}

}  // namespace

void chain_configure(uint32_t stack_bytes) {
  if (stack_bytes > kMaxChainStackBytes) stack_bytes = kMaxChainStackBytes;
  g_stack_bytes = stack_bytes & ~7u;
}

uint32_t chain_stack_bytes() { return g_stack_bytes; }

void chain_apply(uint32_t cpu) { g_chains[cpu].stack_words = g_stack_bytes / 8; }

void chain_sample(CpuHot& hot, const TrapFrame* frame) {
  ChainBuffer& cb = g_chains[hot.cpu];
  const bool user = (frame->ps & PS_USER_MODE) != 0;
  const uint64_t sp = user ? pal::rdusp() : reinterpret_cast<uint64_t>(frame + 1);
  const uint32_t want = user && (sp & 7) == 0 ? cb.stack_words : 0;
  const uint64_t tail = __atomic_load_n(&cb.tail, __ATOMIC_ACQUIRE);
  const uint64_t before = cb.head;
  // Room for the largest sample: written whole or dropped whole.
  if (before - tail + kChainHeadWords + want > kChainBufferWords) {
    ++cb.dropped;
    cb.previous_words = 0;  // the host will not have it: the next one goes whole
    return;
  }
  bool ended = false;
  uint64_t* slice = cb.slices[cb.previous ^ 1];
  const uint32_t got = want ? copy_user_stack(slice, sp, want, &ended) : 0;
  Reuse reuse{got, 0};
  if (user) {
    if (hot.pid != cb.previous_pid) cb.previous_words = 0;
    reuse = unchanged_run(cb, slice, sp, got);
    cb.previous ^= 1, cb.previous_words = got, cb.previous_sp = sp, cb.previous_pid = hot.pid;
  }
  const uint32_t high = got - reuse.low - reuse.reused;
  const uint32_t sent = reuse.low + high;
  const uint8_t flags =
      static_cast<uint8_t>((user ? kChainUser : 0) | (ended ? kChainStackEnd : 0));
  const uint64_t head_words[kChainHeadWords] = {
      uint64_t{hot.pid} | uint64_t{flags} << 16 | uint64_t{cb.sequence} << 24 |
          uint64_t{reuse.low} << 32 | uint64_t{reuse.reused} << 42 | uint64_t{high} << 52,
      frame->pc,
      sp,
      frame->r19_to_r28[26 - 19],
      frame->r0_to_r15[15],
      frame->r19_to_r28[23 - 19]};
  ++cb.sequence;
  for (uint32_t i = 0; i < kChainHeadWords; ++i)
    cb.words[(before + i) & (kChainBufferWords - 1)] = head_words[i];
  put_words(cb, before + kChainHeadWords, slice, reuse.low);
  put_words(cb, before + kChainHeadWords + reuse.low, slice + reuse.low + reuse.reused, high);
  const uint64_t head = before + kChainHeadWords + sent;
  __asm__ volatile("wmb" ::: "memory");
  __atomic_store_n(&cb.head, head, __ATOMIC_RELAXED);
  // Half full: wake the daemon now (as value_sample does), once per crossing.
  constexpr uint64_t kWakeLevel = kChainBufferWords / 2;
  if (before - tail < kWakeLevel && head - tail >= kWakeLevel) signal_daemon(hot.cpu, true);
}

uint32_t chain_pending_words(uint32_t cpu, bool* dropped_since) {
  const ChainBuffer& cb = g_chains[cpu];
  *dropped_since = cb.dropped != cb.dropped_taken;
  return static_cast<uint32_t>(__atomic_load_n(&cb.head, __ATOMIC_ACQUIRE) - cb.tail);
}

uint64_t chain_take(uint32_t cpu, uint64_t* out, uint32_t words) {
  ChainBuffer& cb = g_chains[cpu];
  __asm__ volatile("mb" ::: "memory");  // the handler's words before our reads (head was read)
  const uint64_t tail = cb.tail;
  const uint32_t offset = static_cast<uint32_t>(tail & (kChainBufferWords - 1));
  const uint32_t first = words < kChainBufferWords - offset ? words : kChainBufferWords - offset;
  __builtin_memcpy(out, &cb.words[offset], first * sizeof(uint64_t));
  __builtin_memcpy(out + first, &cb.words[0], (words - first) * sizeof(uint64_t));
  __asm__ volatile("mb" ::: "memory");
  __atomic_store_n(&cb.tail, tail + words, __ATOMIC_RELEASE);
  const uint64_t dropped = cb.dropped - cb.dropped_taken;
  cb.dropped_taken += dropped;
  return dropped;
}

}  // namespace dcpi::driver
