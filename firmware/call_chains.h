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
// default (perf's default is 8 KB on x86-64; Alpha -O2 frames are small and
// the copy is paid on every sample, so 1 KB); at most kMaxChainStackBytes.
inline constexpr uint32_t kDefaultChainStackBytes = 1024;
inline constexpr uint32_t kMaxChainStackBytes = 4096;

// ---- The kChains payload: ChainsPayload, then `words` quadwords of chain
// samples, each a ChainSampleHead and then stack_words quadwords of stack
// (the quadwords at sp, sp + 8, ...).
struct ChainsPayload {
  uint32_t words;    // quadwords of samples that follow
  uint32_t format;   // kChainsFormat
  uint64_t dropped;  // chain samples lost on this CPU since the previous record (buffer full)
};
static_assert(sizeof(ChainsPayload) == 16);
inline constexpr uint32_t kChainsFormat = 1;

enum ChainFlags : uint8_t {
  kChainUser = 1u << 0,      // interrupted in user mode: sp is the user sp, memory the process's
  kChainStackEnd = 1u << 1,  // the slice stopped early at an unmapped page or the stack's top
};

// One sample's registers. `words` counts the whole sample: the head's 6
// quadwords plus stack_words.
struct ChainSampleHead {
  uint16_t pid;   // the sampled thread (CpuHot::pid)
  uint8_t flags;  // ChainFlags
  uint8_t reserved;
  uint16_t stack_words;  // quadwords of stack that follow the head
  uint16_t reserved2;
  uint64_t pc;  // the interrupted PC (the sample's)
  uint64_t sp;  // r30 at the interrupt: the address of the first stack quadword
  uint64_t ra;  // r26
  uint64_t fp;  // r15 (the CFA register of frames that keep a frame pointer)
  uint64_t gp;  // r29 (for completeness: CFI never needs it, a reader may)
};
static_assert(sizeof(ChainSampleHead) == 48);
inline constexpr uint32_t kChainHeadWords = sizeof(ChainSampleHead) / 8;

}  // namespace dcpi
