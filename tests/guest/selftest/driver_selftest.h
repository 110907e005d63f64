// Guest self-tests of the DCPI driver (tests/guest/selftest/driver_selftest.cpp).
#pragma once
#include <cstdint>

namespace kernel::driver_selftest {

// Runs the test called `name` if it is one of the driver's; false if not.
bool run(const char* name, uint64_t samples);

}  // namespace kernel::driver_selftest
