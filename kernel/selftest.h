// The kernel's one hook into the guest self-tests, selected by the kernel
// command line ("test=NAME"). The self-tests live under tests/guest/selftest
// (a library the guest build links into kernel.elf); each prints
// "DCPI-TEST ..." lines that tests/guest asserts on.
#pragma once
#include <cstdint>

namespace kernel::selftest {

// Runs the test called `name` (with its `samples=N` argument), then
// returns; the kernel halts after it.
void run(const char* name, uint64_t samples);

}  // namespace kernel::selftest
