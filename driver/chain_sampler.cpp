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
// slice was too short". Kernel-mode samples carry the kernel stack from sp
// up to the thread's kernel stack top (bounded by the same size), which the
// host unwinds with the kernel's own .eh_frame; when the thread entered the
// kernel from user mode, also the user sp (PALcode's usp: the TrapFrame has
// no sp) and a user slice, so the chain continues into the user frames the
// trap interrupted (format 3, docs/transfer-format.md "kChains records").
#include "driver/chain_sampler.h"

#include "driver/buffer_move.h"
#include "driver/chain_layout.h"
#include "driver/chain_reference.h"
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "driver/percpu.h"

namespace dcpi::driver {

// The translation of the last user stack page a slice began in, kept per
// CPU across samples: a page-table walk (translate_user) was ~50
// instructions a sample, its check is a few (issue 28's cost). Right while
// the PTE slot holds the same PTE (an unmap, remap or protection change
// rewrites it) and no page table was freed since (the slot's table could
// then be another's): kernel::user_read_pte.
struct StackPageCache {
  const kernel::AddressSpace* space = nullptr;
  uint64_t page = 0;
  const uint64_t* slot = nullptr;
  uint64_t pte = 0;
  uint64_t kseg_page = 0;
  uint64_t tables_freed = 0;
};

// Per CPU: single producer (this CPU's handler), single consumer (the
// daemon), whole samples in their wire form, as ValueBuffer. The ring's
// quadwords are a separate array and the rest is padded to a power of two,
// so that a CPU's buffer is one shift away: with sizes that were not, GCC
// recomputed `g_chains[cpu]` with a multiply sequence at each use, ~35
// instructions a sample (issue 28's cost).
struct alignas(64 * 1024) ChainBuffer {
  uint64_t head;  // quadwords; written by the owning CPU's handler
  uint64_t pad0[7];
  uint64_t tail;  // written by the daemon
  uint64_t dropped_taken;
  uint64_t pad1[6];
  uint64_t dropped;           // samples lost because the buffer was full
  uint32_t stack_words;       // this CPU's copy of the configuration
  uint16_t user_pid;          // the thread of `user`
  uint8_t sequence;           // recorded samples, mod 256 (the host checks continuity)
  StackPageCache stack_page;  // the last user stack page's translation
  ChainReference user;        // the previous recorded user slice (user samples' or user parts')
  ChainReference kernel;      // the previous recorded kernel slice
};
static_assert(sizeof(ChainBuffer) == 64 * 1024, "one shift from a CPU's number to its buffer");
static_assert((kChainBufferWords & (kChainBufferWords - 1)) == 0);
// The largest sample (format 3 on, kernel-mode with a user part: two slices).
static_assert(kChainHeadWords + kChainUserPartWords + 2 * (kMaxChainStackBytes / 8) <
              kChainBufferWords / 4);

// What driver/fast_handler.S's chain fast path reads and writes
// (driver/chain_layout.h).
static_assert(offsetof(ChainBuffer, head) == CB_HEAD && offsetof(ChainBuffer, tail) == CB_TAIL &&
              offsetof(ChainBuffer, user_pid) == CB_USER_PID &&
              offsetof(ChainBuffer, sequence) == CB_SEQUENCE);
static_assert(
    offsetof(ChainBuffer, stack_page) + offsetof(StackPageCache, space) == CB_PAGE_SPACE &&
    offsetof(ChainBuffer, stack_page) + offsetof(StackPageCache, page) == CB_PAGE_PAGE &&
    offsetof(ChainBuffer, stack_page) + offsetof(StackPageCache, slot) == CB_PAGE_SLOT &&
    offsetof(ChainBuffer, stack_page) + offsetof(StackPageCache, pte) == CB_PAGE_PTE &&
    offsetof(ChainBuffer, stack_page) + offsetof(StackPageCache, kseg_page) == CB_PAGE_KSEG &&
    offsetof(ChainBuffer, stack_page) + offsetof(StackPageCache, tables_freed) == CB_PAGE_FREED);
static_assert(offsetof(ChainBuffer, user) + offsetof(ChainReference, words) == CB_USER_WORDS &&
              offsetof(ChainBuffer, user) + offsetof(ChainReference, lo) == CB_USER_LO &&
              offsetof(ChainBuffer, user) + offsetof(ChainReference, hi) == CB_USER_HI &&
              ChainReference::kWords - 1 == CB_REFERENCE_MASK);
static_assert(sizeof(ChainBuffer) == 1u << CHAIN_BUFFER_SHIFT &&
              kChainBufferWords == CHAIN_RING_WORDS &&
              kChainBufferWords * 8 == 1u << CHAIN_RING_SHIFT &&
              ChainReference::kScanBelowWords == CHAIN_SCAN_BELOW_WORDS &&
              kMaxChainStackBytes / 8 == CHAIN_MAX_SLICE_WORDS);

}  // namespace dcpi::driver

// Named for the assembly fast path (C linkage: no mangled names there).
extern "C" {
// driver/fast_handler.S: a user slice in one page; chain_counts(low,
// reused, high), or ~0 having written nothing.
uint64_t dcpi_chain_user_capture(dcpi::driver::ChainBuffer* cb, uint64_t sp, uint64_t* ring,
                                 uint64_t room, uint64_t cpu);
dcpi::driver::ChainBuffer dcpi_chain_buffers[dcpi::kMaxCpus];
alignas(64) uint64_t dcpi_chain_words[dcpi::kMaxCpus][dcpi::driver::kChainBufferWords];
}

namespace dcpi::driver {
namespace {

ChainBuffer* const g_chains = dcpi_chain_buffers;
uint64_t (*const g_chain_words)[kChainBufferWords] = dcpi_chain_words;
uint32_t g_stack_bytes = 0;

[[gnu::noinline]] uint64_t refill_stack_page(StackPageCache& cache,
                                             const kernel::AddressSpace& space, uint64_t va,
                                             uint64_t tables_freed) {
  const kernel::UserPte pte = kernel::user_read_pte(space, va);
  if (pte.slot == nullptr) {
    cache.space = nullptr;  // matches no space: the hit test never reads a null slot
    return 0;
  }
  cache = {&space, va & ~(kPageBytes - 1), pte.slot, pte.pte, pte.kseg_page, tables_freed};
  return pte.kseg_page + (va & (kPageBytes - 1));
}

// The KSEG address of user `va` if user mode may read it, else 0: from the
// cache when it still holds, else by a walk that refills it.
[[gnu::always_inline]] inline uint64_t stack_page_kseg(StackPageCache& cache,
                                                       const kernel::AddressSpace& space,
                                                       uint64_t va) {
  const uint64_t tables_freed = __atomic_load_n(&kernel::page_tables_freed, __ATOMIC_ACQUIRE);
  const uint64_t page = va & ~(kPageBytes - 1);
  if (&space == cache.space && page == cache.page && tables_freed == cache.tables_freed &&
      *cache.slot == cache.pte)
    return cache.kseg_page + (va - page);
  return refill_stack_page(cache, space, va, tables_freed);
}

// Where the user stack's first `limit` quadwords from `sp` are readable
// (the first page through the cache, the others by translate_user), page by
// page; sets `ended` when an unreadable page cut the slice short. Returns
// how many quadwords are.
[[gnu::always_inline]] inline uint32_t find_user_stack(SliceSource& source, StackPageCache& cache,
                                                       const kernel::AddressSpace* space,
                                                       uint64_t sp, uint32_t limit, bool* ended) {
  uint32_t found = 0;
  while (found < limit) {
    const uint64_t va = sp + uint64_t{found} * 8;
    // (space is never null in the cache: its hit test needs no null test.)
    const uint64_t k = space == nullptr ? 0
                       : found == 0     ? stack_page_kseg(cache, *space, va)
                                        : kernel::translate_user(*space, va, false);
    if (k == 0) {
      *ended = true;
      return found;
    }
    // The rest of this page, in one run.
    uint32_t n = static_cast<uint32_t>((kPageBytes - (va & (kPageBytes - 1))) / 8);
    if (n > limit - found) n = limit - found;
    source.add(va, reinterpret_cast<const uint64_t*>(k), n);
    found += n;
  }
  return found;
}

}  // namespace

void chain_configure(uint32_t stack_bytes) {
  if (stack_bytes > kMaxChainStackBytes) stack_bytes = kMaxChainStackBytes;
  g_stack_bytes = stack_bytes & ~7u;
}

uint32_t chain_stack_bytes() { return g_stack_bytes; }

void chain_apply(uint32_t cpu) { g_chains[cpu].stack_words = g_stack_bytes / 8; }

namespace {

// A user slice (a user-mode sample's, or the user context a kernel-mode
// sample's thread entered the kernel from), against the previous user slice.
[[gnu::always_inline]] inline SentSlice user_slice(ChainBuffer& cb, uint16_t pid, uint64_t sp,
                                                   WordSink& out) {
  bool ended = false;
  SliceSource source;
  // No further than the thread's stack base: above it lie argv and the
  // environment (a main thread) or the thread's TCB, never a frame; a
  // shallow program then copies and compares a few dozen quadwords, not
  // the whole slice (issue 28's cost). An sp off that stack (a coroutine's,
  // a signal stack) keeps the whole slice.
  uint32_t limit = cb.stack_words;
  const kernel::UserStack stack = kernel::current_user_stack();
  const uint64_t base = stack.base;
  if (base > sp && (base - sp) / 8 <= limit) {
    limit = static_cast<uint32_t>((base - sp) / 8);
    ended = true;  // kChainStackEnd: the stack ends there
  }
  const uint32_t got =
      (sp & 7) == 0 ? find_user_stack(source, cb.stack_page, stack.space, sp, limit, &ended) : 0;
  if (pid != cb.user_pid) cb.user.forget();
  cb.user_pid = pid;
  return diff_and_take(cb.user, source, sp, got, ended, out);
}

// A kernel-mode sample's stack (format 3): the part of the kernel stack in
// use, from sp up to its top, at most kKernelChainStackBytes whatever the user
// slice's size: a system call's kernel frames need more than the user
// slice's default 1 KB (write's bounce buffer alone is 592 bytes, and the
// TrapFrame 256), a kernel stack is small (16 KB) and mostly shallow, and
// only kernel-mode samples pay for it. Sent against the previous kernel
// slice (a system call's outer frames and its TrapFrame stay put). Also
// whether the thread's user TrapFrame (at the top) says it entered the
// kernel from user mode.
[[gnu::always_inline]] inline SentSlice kernel_slice(ChainBuffer& cb, uint64_t sp, bool* from_user,
                                                     WordSink& out) {
  constexpr uint64_t kMaxWords = kKernelChainStackBytes / 8;
  const kernel::KernelStack stack = kernel::current_kernel_stack(sp);
  *from_user = false;
  SliceSource source;
  if (stack.top == 0 || (sp & 7) != 0) return diff_and_take(cb.kernel, source, sp, 0, false, out);
  const uint64_t to_top = (stack.top - sp) / 8;
  const auto n = static_cast<uint32_t>(to_top < kMaxWords ? to_top : kMaxWords);
  source.add(sp, reinterpret_cast<const uint64_t*>(sp), n);
  const auto* entry = reinterpret_cast<const TrapFrame*>(stack.top) - 1;
  *from_user = stack.user_context && (entry->ps & PS_USER_MODE) != 0;
  return diff_and_take(cb.kernel, source, sp, n, n == to_top, out);
}

}  // namespace

namespace {

// The head, stored straight into the ring word by word (ChainSampleHead's
// order: no array and no copy loop, ~40 instructions a sample less), then
// published; wakes the daemon at half full (as value_sample does), once per
// crossing.
[[gnu::always_inline]] inline void finish_sample(ChainBuffer& cb, const CpuHot& hot,
                                                 const TrapFrame* frame, uint64_t sp,
                                                 uint64_t before, uint64_t tail, WordSink& out,
                                                 uint8_t flags, const SentSlice& own) {
  const uint64_t head = out.at;
  static_assert(kChainHeadWords == 6, "the stores below");
  out.at = before;
  out.put(chain_head_first(hot.pid, flags, cb.sequence, own.counts()));
  out.put(frame->pc);
  out.put(sp);
  out.put(frame->r19_to_r28[26 - 19]);
  out.put(frame->r0_to_r15[15]);
  out.put(frame->r19_to_r28[23 - 19]);
  ++cb.sequence;
  __asm__ volatile("wmb" ::: "memory");
  __atomic_store_n(&cb.head, head, __ATOMIC_RELAXED);
  constexpr uint64_t kWakeLevel = kChainBufferWords / 2;
  if (before - tail < kWakeLevel && head - tail >= kWakeLevel) signal_daemon(hot.cpu, true);
}

// Room for the largest sample: written whole or dropped whole.
[[gnu::always_inline]] inline bool room_for(ChainBuffer& cb, uint64_t before, uint64_t tail,
                                            uint64_t largest) {
  if (before - tail + largest <= kChainBufferWords) return true;
  ++cb.dropped;
  cb.user.forget();  // the host will not have it: the next ones go whole
  cb.kernel.forget();
  return false;
}

// The user part's slice by driver/fast_handler.S's dcpi_chain_user_capture
// (the user-mode samples' capture: a slice in one page, the stack page
// cached, few low quadwords), which writes nothing when it cannot: then
// false, and user_slice does it. ~4x fewer instructions than user_slice
// compiled (issue 28's cost).
[[gnu::always_inline]] inline bool user_slice_fast(ChainBuffer& cb, const CpuHot& hot, uint64_t sp,
                                                   WordSink& out, SentSlice& part) {
  if (hot.pid != cb.user_pid) return false;  // user_slice forgets the reference
  const uint64_t at = out.at & (kChainBufferWords - 1);
  const uint64_t counts = dcpi_chain_user_capture(&cb, sp, &g_chain_words[hot.cpu][at],
                                                  kChainBufferWords - at, hot.cpu);
  if (counts == ~uint64_t{0}) return false;
  part.reuse = {static_cast<uint32_t>(counts & kChainCountMask),
                static_cast<uint32_t>(counts >> kChainCountBits & kChainCountMask)};
  part.high = static_cast<uint32_t>(counts >> 2 * kChainCountBits & kChainCountMask);
  part.ended = true;
  out.at += part.sent();
  return true;
}

// A kernel-mode sample (format 3 on): its kernel slice and, when the thread
// entered the kernel from user mode, a ChainUserPart and a user slice. Out
// of line: most samples are user-mode ones, whose path then keeps its
// registers (issue 28's cost).
[[gnu::noinline]] void kernel_sample(ChainBuffer& cb, const CpuHot& hot, const TrapFrame* frame,
                                     uint64_t sp, uint64_t before, uint64_t tail) {
  if (!room_for(
          cb, before, tail,
          kChainHeadWords + kKernelChainStackBytes / 8 + kChainUserPartWords + cb.stack_words))
    return;
  WordSink out{g_chain_words[hot.cpu], kChainBufferWords - 1, before + kChainHeadWords};
  bool user_part = false;
  const SentSlice own = kernel_slice(cb, sp, &user_part, out);
  if (user_part) {
    static_assert(kChainUserPartWords == 2, "the stores below");
    const uint64_t user_sp = pal::rdusp();
    const uint64_t part_at = out.at;
    out.at += kChainUserPartWords;
    SentSlice part;
    if (!user_slice_fast(cb, hot, user_sp, out, part)) part = user_slice(cb, hot.pid, user_sp, out);
    const uint64_t end = out.at;
    out.at = part_at;
    out.put(user_sp);
    out.put(chain_user_part_second(part.counts(), part.ended ? kChainStackEnd : 0));
    out.at = end;
  }
  const auto flags =
      static_cast<uint8_t>((own.ended ? kChainStackEnd : 0) | (user_part ? kChainUserPart : 0));
  finish_sample(cb, hot, frame, sp, before, tail, out, flags, own);
}

}  // namespace

void chain_sample(CpuHot& hot, const TrapFrame* frame, uint64_t sp) {
  ChainBuffer& cb = g_chains[hot.cpu];
  const uint64_t tail = __atomic_load_n(&cb.tail, __ATOMIC_ACQUIRE);
  const uint64_t before = cb.head;
  if ((frame->ps & PS_USER_MODE) == 0) return kernel_sample(cb, hot, frame, sp, before, tail);
  if (!room_for(cb, before, tail, kChainHeadWords + cb.stack_words)) return;
  // The slice's changed quadwords go straight into the buffer after the
  // head's place (the head needs their counts, so it is written last).
  WordSink out{g_chain_words[hot.cpu], kChainBufferWords - 1, before + kChainHeadWords};
  const SentSlice own = user_slice(cb, hot.pid, sp, out);
  finish_sample(cb, hot, frame, sp, before, tail, out,
                static_cast<uint8_t>(kChainUser | (own.ended ? kChainStackEnd : 0)), own);
}

}  // namespace dcpi::driver

// The capture from the chain variant's fast path (driver/fast_handler.S
// chain_capture), on this CPU's chain stack: `frame` holds PS, PC, ra, fp
// and t9; `sp` is the interrupted sp (a user-mode one too: PALcode switched
// no stack).
extern "C" void dcpi_chain_capture(dcpi::driver::CpuHot* hot, const dcpi::TrapFrame* frame,
                                   uint64_t sp) {
  dcpi::driver::chain_sample(*hot, frame, sp);
}

namespace dcpi::driver {

uint32_t chain_pending_words(uint32_t cpu, bool* dropped_since) {
  const ChainBuffer& cb = g_chains[cpu];
  *dropped_since = cb.dropped != cb.dropped_taken;
  return static_cast<uint32_t>(__atomic_load_n(&cb.head, __ATOMIC_ACQUIRE) - cb.tail);
}

void chain_take(uint32_t cpu, uint8_t* payload, uint32_t words, RecordChecksum& sum) {
  ChainBuffer& cb = g_chains[cpu];
  const uint64_t dropped = cb.dropped - cb.dropped_taken;
  cb.dropped_taken += dropped;
  move_into_record(payload, ChainsPayload{words, kChainsFormat, dropped}, g_chain_words[cpu],
                   kChainBufferWords, cb.tail, words, sum);
}

}  // namespace dcpi::driver
