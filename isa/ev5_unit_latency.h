// The 21164's completion latency of an instruction (issue 27 item 1,
// ProfileMe's issue -> completion on the host): a load's is its data's
// return, which ProfileMe's records carry (pm_load_cycles); any other
// instruction's is its unit latency in every execution (the model's
// PROFILEME_LAT2_COMPLETE, qemu/machine/plugins/ev5/block_timing.cpp), which
// the driver does not sum (firmware/profileme.h PROFILEME_BIT_LOAD) and the
// host multiplies out of the retired records. Here, in isa/, because the
// sample tables and dcpi calc's scoring both need it.
#pragma once
#include <cstdint>
#include <optional>

#include "isa/decode.h"
#include "isa/ev5.h"
#include "isa/operands.h"

namespace dcpi::isa {

// The unit latency of the instruction `word`, or nothing for a load (its
// completion is dynamic). Decoded as the model decodes (PALcode mode: the
// opcodes only PALcode may run decode as what they are there).
inline std::optional<uint32_t> ev5_unit_latency(uint32_t word) {
  const Instruction in = decode(word, DecodeMode::kPalcode);
  const Ev5Class ev5_class = isa::ev5_class(in);
  if (ev5_is_load(ev5_class) && operands(in).memory.bytes != 0) return std::nullopt;
  return ev5_timing(ev5_class).latency;
}

}  // namespace dcpi::isa
