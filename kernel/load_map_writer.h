// The kernel's side of the load map (firmware/load_map.h, symbol
// `dcpi_load_map`): appends in order under a spin lock at IPL 7 (never from
// the counter interrupt), and the boot records for kernel and PALcode.
#pragma once
#include <cstdint>

#include "firmware/load_map.h"

namespace kernel {

void load_map_init();  // magic, capacity, kKernel and kPalcode records
void load_map_append(const dcpi::LoadMapRecord& record);  // sets `time`
uint64_t load_map_count();
// Copy of record i (i < count, not yet overwritten); false otherwise.
bool load_map_read(uint64_t i, dcpi::LoadMapRecord* record);
// One console line per record ("dcpi-kernel: loadmap ...").
void load_map_print();

}  // namespace kernel
