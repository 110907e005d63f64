// The walking skeleton's default job: a mix of kernel loops run with
// sampling on every CPU, for hostdump to read and attribute.
#pragma once
#include <cstdint>

namespace kernel::workload {

// Runs the mix on every online CPU until each took `samples` samples.
void profile_all_cpus(uint64_t samples);
// One pass of the mix on this CPU's buffers (about 360K instructions);
// returns the new sink. For the driver's benchmark (kernel/driver_selftest.cpp).
uint64_t mix_iteration(uint32_t cpu, uint64_t sink);

}  // namespace kernel::workload
