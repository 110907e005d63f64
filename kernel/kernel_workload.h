// The walking skeleton's default job: a mix of kernel loops run with
// sampling on every CPU, for hostdump to read and attribute.
#pragma once
#include <cstdint>

namespace kernel::workload {

// Runs the mix on every online CPU until each took `samples` samples.
void profile_all_cpus(uint64_t samples);

}  // namespace kernel::workload
