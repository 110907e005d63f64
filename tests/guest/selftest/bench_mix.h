// The kernel-mode mix the driver benchmark runs on every CPU with sampling
// off and on (tests/bench/bench_driver.py, DCPI Tables IV and VI).
#pragma once
#include <cstdint>

namespace kernel::bench_mix {

// One pass of the mix on this CPU's buffers (about 360K instructions):
// copy 2, checksum 1, multiply 1, spread_loop 1 (by instructions). Returns
// the new sink.
uint64_t iteration(uint32_t cpu, uint64_t sink);

}  // namespace kernel::bench_mix
