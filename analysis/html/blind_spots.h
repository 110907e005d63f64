// Samples that landed where a blind spot put them (DCPI §4.1: an overflow
// that falls where interrupts cannot be taken is delivered on the next
// instruction that can take it). On our machine (palcode/README.md,
// docs/qemu-deviations.md) that is:
//  - the instruction after a CALL_PAL that enters PALcode: overflows during
//    the PAL routine arrive when it returns (guest_blindspot measures the
//    excess: 1 + the PAL path length shares);
//  - the instruction after `call_pal swpipl`, where the kernel lowers the
//    IPL: overflows held back while it ran at IPL >= 5 arrive there
//    (guest_iplspot).
// Found from the listing: the word before each sampled address. CALL_PALs
// that QEMU executes inline (imb, rduniq, ...) never enter PALcode and hide
// nothing, so samples after them are not counted. Deferred overflows that
// a return from interrupt (rti) releases land wherever it returns to and
// cannot be told apart this way.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/samples/sample_set.h"
#include "symbols/image_resolver.h"

namespace dcpi::html {

enum class BlindSpotKind { kAfterCallPal, kAfterIplDrop };

struct BlindSpotSite {
  BlindSpotKind kind = BlindSpotKind::kAfterCallPal;
  std::string image;      // display name
  std::string procedure;  // empty if no symbol covers it
  uint64_t address = 0;   // the instruction that received the samples
  std::string call_pal;   // "call_pal 0x83" before it
  uint64_t samples = 0;
};

struct BlindSpotSummary {
  uint64_t after_call_pal = 0;       // samples on instructions after a PAL-entering CALL_PAL
  uint64_t after_ipl_drop = 0;       // samples on instructions after swpipl
  uint64_t examined = 0;             // samples in images whose code was available
  uint64_t not_examined = 0;         // samples in images without an ELF (or unknown)
  std::vector<BlindSpotSite> sites;  // most samples first
};

// The CALL_PAL function of `word`, if it is one (opcode 0).
std::optional<uint32_t> call_pal_function(uint32_t word);
// True for the functions QEMU's translator runs inline (palcode/README.md).
bool qemu_runs_inline(uint32_t function);

// Over the first event's samples (cycles) of `samples`.
BlindSpotSummary find_blind_spots(const SampleSet& samples, ImageResolver& resolver);

}  // namespace dcpi::html
