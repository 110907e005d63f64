// Who runs next, for the plugins that key their truth by address space
// (firmware/truth_format.h version 5): PAL's swpctx loads the new page-table
// base from the new process control block (pal.S: `ldq p1, 16(a0)`, the
// OSF/1 PCB), so a memory callback on that load gets the base (its value)
// and the PCB (its address), and the PCB holds the process id
// (firmware/process_block.h). Needs QEMU's real qemu-plugin.h.
#pragma once
#include <glib.h>

#include <cstdint>
#include <cstring>

#include "firmware/process_block.h"
#include "isa/decode.h"
#include "qemu/machine/plugins/qemu_plugin.h"

namespace dcpi::plugins {

// Whether PAL instruction `word` is swpctx's load of the page-table base.
inline bool loads_page_table_base(uint32_t word) {
  constexpr uint8_t kA0 = 16;
  const isa::Instruction in = isa::decode(word, isa::DecodeMode::kPalcode);
  return in.is(isa::Operation::kLdq) && in.rb == kA0 && in.displacement == DCPI_PCB_PTBR_OFFSET;
}

// The `T` at `offset` in the PCB at `pcb`; 0 when it cannot be read.
// `buffer`: the caller's.
template <typename T>
T pcb_field(uint64_t pcb, uint64_t offset, GByteArray* buffer) {
  g_byte_array_set_size(buffer, 0);
  T value = 0;
  if (qemu_plugin_read_memory_vaddr(pcb + offset, buffer, sizeof value) &&
      buffer->len >= sizeof value)
    std::memcpy(&value, buffer->data, sizeof value);
  return value;
}

// The process id in the PCB whose page-table base was loaded from
// `ptbr_address`; 0 when it cannot be read. `buffer`: the caller's.
inline uint32_t process_of_pcb_load(uint64_t ptbr_address, GByteArray* buffer) {
  return pcb_field<uint32_t>(ptbr_address - DCPI_PCB_PTBR_OFFSET, DCPI_PCB_TGID_OFFSET, buffer);
}

}  // namespace dcpi::plugins
