// ProfileMe's issue -> completion on the host (issue 27 item 1): a load's is
// its data's return, which the records carry (pm_load_cycles); any other
// instruction's is its unit latency in every record (the model's
// PROFILEME_LAT2_COMPLETE, qemu/machine/plugins/ev5/block_timing.cpp), which
// the driver does not sum (firmware/profileme.h PROFILEME_BIT_LOAD) and the
// reports multiply out of its retired records.
#pragma once
#include <cstdint>
#include <optional>

#include "isa/decode.h"
#include "isa/ev5.h"
#include "isa/operands.h"

namespace dcpi {

// The unit latency of the instruction `word`, or nothing for a load (its
// completion is dynamic). Decoded as the model decodes (PALcode mode: the
// opcodes only PALcode may run decode as what they are there).
inline std::optional<uint32_t> profileme_unit_latency(uint32_t word) {
  const isa::Instruction in = isa::decode(word, isa::DecodeMode::kPalcode);
  const isa::Ev5Class ev5_class = isa::ev5_class(in);
  if (isa::ev5_is_load(ev5_class) && isa::operands(in).memory.bytes != 0) return std::nullopt;
  return isa::ev5_timing(ev5_class).latency;
}

}  // namespace dcpi
