// System calls (callsys). The ABI and the numbers, shared with user
// programs, are firmware/syscalls.h's; the semantics are in kernel/README.md.
#pragma once
#include <cstdint>

#include "firmware/syscalls.h"
#include "kernel/traps.h"

namespace kernel::sys {

// Handles the system call in `frame` (entered from user mode).
void dispatch(TrapFrame* frame);

// Prints which unimplemented system calls programs made, and how often
// (nothing if none): the kernel calls it when init exits, before DCPI-DONE.
void report_unimplemented();

// Clock ticks of times(): 1000 per second (newlib's CLOCKS_PER_SEC), from
// the 250 MHz cycle counter.
inline constexpr uint64_t kTicksPerSecond = 1000;

}  // namespace kernel::sys
