// Guest self-tests selected by the kernel command line ("test=NAME"). Each
// prints "DCPI-TEST ..." lines that tests/guest asserts on.
#pragma once
#include <cstdint>

namespace kernel::selftest {

void run(const char* name, uint64_t samples);

}  // namespace kernel::selftest
