// Sampled call chains (issue 28 item 2): what the `chain` handler variant
// captures at every counter interrupt when call chains are on (`dcpi run
// -g`), carried to the host in kChains records of the transfer ring
// (RecordType::kChains). Shared by the guest writer (driver/chain_sampler)
// and the host decoder (hostdump/chains/); documented in
// docs/transfer-format.md ("kChains records").
//
// Alpha programs built -O2 keep no frame pointer, so the guest does not
// walk frames: like `perf --call-graph dwarf`, it copies the registers an
// unwinder needs and a bounded slice of the stack above sp, and the host
// unwinds with each image's DWARF CFI (.eh_frame / .debug_frame). A chain
// the slice or the CFI cannot finish is kept, marked as truncated, never
// guessed.
#pragma once
#include <cstdint>

namespace dcpi {

// The stack slice: `dcpi run -g` copies this many bytes above sp by
// default, at most kMaxChainStackBytes (perf's default is 8 KB on x86-64).
// 2 KB: ld.so's start-up needs ~1.9 KB to reach its entry code (1 KB left
// 7-9 % of a short program's samples unwound short), and since a slice
// stops at the thread's stack base a shallow program pays only for its
// depth (default mix +1.96 % at 2 KB, +1.94 % at 1 KB; docs/reports.md).
inline constexpr uint32_t kDefaultChainStackBytes = 2048;
// At most 1023 quadwords: the head's counts hold each of low, reused and
// high in 10 bits (kChainCountBits). 8 KB less a quadword, so that bzip2's
// testStream (a 5,000-byte buffer on its stack) and sqlite3's shell (frames
// above 4 KB) can be unwound when asked for (issue 28, docs/reports.md).
inline constexpr uint32_t kMaxChainStackBytes = 8184;
// A kernel-mode sample's kernel slice: at most 4 KB, as before the user
// maximum grew (its cost is the default's, whatever --stack-bytes says).
inline constexpr uint32_t kKernelChainStackBytes = 4096;
static_assert(kKernelChainStackBytes <= kMaxChainStackBytes && kKernelChainStackBytes % 8 == 0);

// ---- The kChains payload: ChainsPayload, then `words` quadwords of chain
// samples, each a ChainSampleHead and then low + high quadwords of stack.
struct ChainsPayload {
  uint32_t words;    // quadwords of samples that follow
  uint32_t format;   // kChainsFormat
  uint64_t dropped;  // chain samples lost on this CPU since the previous record (buffer full)
};
static_assert(sizeof(ChainsPayload) == 16);
// 1: whole slices; 2: + sequence, low/reused/high; 3: kernel-mode samples
// carry a kernel stack slice and, when the kernel was entered from user
// mode, a ChainUserPart (issue 28 item 2, kernel frames). Readers accept 2
// and 3 (a format 2 kernel sample is a leaf without stack).
inline constexpr uint32_t kChainsFormat = 3;
inline constexpr uint32_t kChainsOldestFormat = 2;

enum ChainFlags : uint8_t {
  kChainUser = 1u << 0,      // interrupted in user mode: sp is the user sp, memory the process's
  // The slice stopped early at an unmapped page, the stack's top, or (user
  // slices) the thread's stack base: the sp its outermost frame began at.
  kChainStackEnd = 1u << 1,
  // Format 3, kernel-mode samples only: a ChainUserPart and its slice follow
  // the kernel slice (the thread entered the kernel from user mode).
  kChainUserPart = 1u << 2,
};

// One sample's registers, then low + high quadwords of stack. The slice
// is low + reused + high quadwords long, from sp up: the `reused` ones in
// the middle are the previous sample's (same CPU) at the same addresses,
// which it does not repeat; the `high` ones above them follow the `low`
// ones. Why: copying 1 KB per sample into the ring (and checksumming it)
// cost ~6 % of the guest's time at the default period (compress, 1 CPU),
// and a loop's outer frames rarely change between samples. `reused` is
// nonzero only when the previous user slice of this CPU (a user sample's
// or, format 3, a kernel sample's user part) was recorded (not dropped), by
// the same thread; a kernel slice reuses the previous kernel slice the same
// way (format 3). `sequence` counts the CPU's recorded samples mod 256, so
// the host knows whether it holds that sample: after a gap it trusts
// neither reference.
struct ChainSampleHead {
  uint16_t pid;      // the sampled thread (CpuHot::pid)
  uint8_t flags;     // ChainFlags
  uint8_t sequence;  // this CPU's recorded chain samples before this one, mod 256
  uint32_t counts;   // low | reused << 10 | high << 20 (quadwords; bits 30-31 zero)
  uint64_t pc;       // the interrupted PC (the sample's)
  uint64_t sp;       // r30 at the interrupt: the address of the first stack quadword
  uint64_t ra;       // r26
  uint64_t fp;       // r15 (the CFA register of frames that keep a frame pointer)
  uint64_t t9;       // r23: the return address of the division millicode (__divqu, __remqu, ...:
                     // RA column 23 in their CFI)
};
static_assert(sizeof(ChainSampleHead) == 48);

// Format 3, a kernel-mode sample: the head's slice is the kernel stack in
// use, from the interrupted kernel sp up to the top of the thread's kernel
// stack, at most kMaxChainStackBytes (kChainStackEnd in the head: the slice
// reaches the top, so the user TrapFrame there is in it), sent against the
// previous kernel slice (low | reused | high).
// The kernel's .eh_frame (kept by kernel/kernel.ld) unwinds it, through the
// entry stubs' hand-written CFI (kernel/entry.S) into the interrupted
// context's registers. When that context was user mode (system call, page
// fault, interrupt), its sp is not in the TrapFrame but in PALcode's usp:
// this part carries it and the user stack above it, as a user sample's
// slice (low | reused | high against the CPU's previous user slice).
struct ChainUserPart {
  uint64_t sp;      // the user sp (rdusp) of the context the kernel was entered from
  uint32_t counts;  // low | reused << 10 | high << 20 (quadwords; bits 30-31 zero)
  uint32_t flags;   // kChainStackEnd: the user slice stopped at an unreadable page or the base
};
static_assert(sizeof(ChainUserPart) == 16);
inline constexpr uint32_t kChainUserPartWords = sizeof(ChainUserPart) / 8;
inline constexpr uint32_t kChainHeadWords = sizeof(ChainSampleHead) / 8;
inline constexpr uint32_t kChainCountBits = 10;  // low, reused, high: each < 1024
static_assert(kMaxChainStackBytes / 8 < (1u << kChainCountBits));

}  // namespace dcpi
