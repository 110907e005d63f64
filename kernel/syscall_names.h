// Linux/Alpha system call names, so that the kernel's report of calls it
// does not implement says `clone (312)` rather than a bare number (issue 29).
#pragma once
#include <cstdint>

namespace kernel::sys {

// The Linux/Alpha name of system call `number`, or "?" for a number Linux
// does not define (1000 and up are ours and all implemented).
const char* syscall_name(uint64_t number);

}  // namespace kernel::sys
