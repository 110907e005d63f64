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
// The maximum, 16 KB (issue 28): a slice stops at the thread's stack base,
// so a shallow program pays only for its depth (default mix +1.47 % at
// 16 KB and at 2 KB, one paired run each, every chain kept), and bzip2's
// 10 KB frame is unwound (real mix 99.8 % matched, 73 % at 2 KB; it costs
// the real mix +6.05 %, +3.58 % at 2 KB; docs/reports.md). Less than ~1.9 KB cuts ld.so's
// start-up short (7-9 % of a short program's samples at 1 KB).
inline constexpr uint32_t kDefaultChainStackBytes = 16384;
// At most 2048 quadwords (format 4's 12-bit counts hold up to 4095):
// bzip2's testStream keeps a 10,096-byte frame (two 5,000-byte buffers) and
// its callers' return addresses lie above it, so ~10.5 KB of slice reach
// main; 8184 bytes, format 3's limit (10-bit counts), reached none of its
// samples (issue 28, docs/reports.md).
inline constexpr uint32_t kMaxChainStackBytes = 16384;
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
// mode, a ChainUserPart (issue 28 item 2, kernel frames); 4: the head's
// first quadword and the user part's counts repacked for 12-bit counts
// (slices up to 16 KB). Readers accept 2 to 4 (a format 2 kernel sample is
// a leaf without stack).
inline constexpr uint32_t kChainsFormat = 4;
inline constexpr uint32_t kChainsOldestFormat = 2;

enum ChainFlags : uint8_t {
  kChainUser = 1u << 0,  // interrupted in user mode: sp is the user sp, memory the process's
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
  uint64_t first;  // chain_head_first(): pid, flags, sequence, counts (format 4 layout below)
  uint64_t pc;     // the interrupted PC (the sample's)
  uint64_t sp;     // r30 at the interrupt: the address of the first stack quadword
  uint64_t ra;     // r26
  uint64_t fp;     // r15 (the CFA register of frames that keep a frame pointer)
  uint64_t t9;     // r23: the return address of the division millicode (__divqu, __remqu, ...:
                   // RA column 23 in their CFI)
};
static_assert(sizeof(ChainSampleHead) == 48);

// Format 3, a kernel-mode sample: the head's slice is the kernel stack in
// use, from the interrupted kernel sp up to the top of the thread's kernel
// stack, at most kKernelChainStackBytes (kChainStackEnd in the head: the slice
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
  uint64_t second;  // chain_user_part_second(): counts (bits 0-35) | flags << 36 (bits 36-39)
};
static_assert(sizeof(ChainUserPart) == 16);
inline constexpr uint32_t kChainUserPartWords = sizeof(ChainUserPart) / 8;
inline constexpr uint32_t kChainHeadWords = sizeof(ChainSampleHead) / 8;

// Format 4's packing. The head's first quadword: pid (bits 0-15), flags
// (16-19), sequence (20-27), counts (28-63); the user part's second: counts
// (0-35), flags (36-39), zero above. Counts: low (bits 0-11), reused
// (12-23), high (24-35) quadwords. Formats 2 and 3 (read, no longer
// written): pid (0-15), flags (16-23), sequence (24-31), counts (32-61:
// 10 bits each, 62-63 zero); the user part's counts in bits 0-29 and flags
// in bits 32-63.
inline constexpr uint32_t kChainCountBits = 12;  // low, reused, high: each < 4096
inline constexpr uint64_t kChainCountMask = (uint64_t{1} << kChainCountBits) - 1;
inline constexpr uint32_t kChainFlagBits = 4;
static_assert(kMaxChainStackBytes / 8 <= kChainCountMask, "a whole slice in one count");
static_assert((kChainUser | kChainStackEnd | kChainUserPart) < (1u << kChainFlagBits));
constexpr uint64_t chain_counts(uint64_t low, uint64_t reused, uint64_t high) {
  return low | reused << kChainCountBits | high << 2 * kChainCountBits;
}
constexpr uint64_t chain_head_first(uint16_t pid, uint8_t flags, uint8_t sequence,
                                    uint64_t counts) {
  return uint64_t{pid} | uint64_t{flags} << 16 | uint64_t{sequence} << 20 | counts << 28;
}
constexpr uint64_t chain_user_part_second(uint64_t counts, uint8_t flags) {
  return counts | uint64_t{flags} << 3 * kChainCountBits;
}
static_assert(16 + kChainFlagBits + 8 + 3 * kChainCountBits == 64, "the head's first quadword");
static_assert(chain_head_first(0xffff, 0xf, 0xff, chain_counts(4095, 4095, 4095)) == ~uint64_t{0});

}  // namespace dcpi
