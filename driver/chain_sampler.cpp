// Call-chain capture in the counter-overflow handler (issue 28 item 2), at
// IPL 6 on the interrupted context's full TrapFrame. Like `perf
// --call-graph dwarf`: no frame walk in the guest (Alpha -O2 code keeps no
// frame pointer), only a copy of sp, ra, fp, gp, the PC and the stack above
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
  uint32_t pad2[13];
  uint64_t words[kChainBufferWords];
};
static_assert((kChainBufferWords & (kChainBufferWords - 1)) == 0);
static_assert(kMaxChainStackBytes / 8 + kChainHeadWords < kChainBufferWords / 4);

ChainBuffer g_chains[kMaxCpus];
uint32_t g_stack_bytes = 0;

// Copies up to `limit` quadwords of user stack from `sp` into the buffer
// at `head` (wrapping); returns how many were readable, and sets `ended`
// when an unreadable page cut the slice short.
uint32_t copy_user_stack(ChainBuffer& cb, uint64_t head, uint64_t sp, uint32_t limit, bool* ended) {
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
    const auto* from = reinterpret_cast<const volatile uint64_t*>(k);
    for (uint32_t i = 0; i < n; ++i)
      cb.words[(head + copied + i) & (kChainBufferWords - 1)] = from[i];
    copied += n;
  }
  return copied;
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
    return;
  }
  bool ended = false;
  const uint32_t got = want ? copy_user_stack(cb, before + kChainHeadWords, sp, want, &ended) : 0;
  const uint8_t flags =
      static_cast<uint8_t>((user ? kChainUser : 0) | (ended ? kChainStackEnd : 0));
  const uint64_t head_words[kChainHeadWords] = {
      uint64_t{hot.pid} | uint64_t{flags} << 16 | uint64_t{got} << 32,
      frame->pc,
      sp,
      frame->r19_to_r28[26 - 19],
      frame->r0_to_r15[15],
      frame->gp};
  for (uint32_t i = 0; i < kChainHeadWords; ++i)
    cb.words[(before + i) & (kChainBufferWords - 1)] = head_words[i];
  const uint64_t head = before + kChainHeadWords + got;
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
