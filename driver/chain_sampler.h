// Sampled call chains (issue 28 item 2): the `chain` handler variant copies,
// at every counter interrupt, the registers an unwinder needs and a bounded
// slice of the interrupted stack into a per-CPU buffer, in their wire form
// (firmware/call_chains.h); the daemon moves them into the transfer ring
// and the host unwinds them with the images' DWARF CFI. Guest only.
#pragma once
#include <cstdint>

#include "firmware/call_chains.h"
#include "firmware/record_checksum.h"
#include "firmware/trap_frame.h"

namespace dcpi::driver {

struct CpuHot;

// Per CPU (256 KB: about 240 samples of 1 KB; the daemon is woken at half).
inline constexpr uint32_t kChainBufferWords = 32 * 1024;

// From the chain handler (IPL 6) on every interrupt, after the sample is
// recorded: copy the registers and the stack slice of `frame`, whose
// context's sp was `sp`. Of the frame only PS, PC, ra, fp and t9 are read
// (fast_handler.S chain_capture fills no more).
void chain_sample(CpuHot& hot, const TrapFrame* frame, uint64_t sp);
// Bytes of stack to copy per sample (0: chains off); multiple of 8, at most
// kMaxChainStackBytes. Copied into each CPU by chain_apply (apply_config).
void chain_configure(uint32_t stack_bytes);
uint32_t chain_stack_bytes();
void chain_apply(uint32_t cpu);
// The daemon, as value_pending_words / value_take: quadwords of whole
// samples waiting, then the kChains payload into a begun ring record: its
// ChainsPayload (with the samples dropped since the previous take) and
// exactly `words` quadwords, copied and added to the record's `sum` in one
// pass (RingWriter::begun_sum / commit(sum)).
uint32_t chain_pending_words(uint32_t cpu, bool* dropped_since);
void chain_take(uint32_t cpu, uint8_t* payload, uint32_t words, RecordChecksum& sum);

}  // namespace dcpi::driver
