// Where PALcode delivers traps and interrupts: the kernel's entry stubs
// (kernel/entry.S), which call the dispatch in kernel/traps.cpp.
//
// Boot code on every CPU calls this (kernel_main in main.cpp, secondary_main
// in smp.cpp): wrent and wrkgp set per-CPU PALcode state. It is apart from
// traps.cpp so that the dependency between traps and SMP goes one way:
// traps.cpp dispatches the clock and IPI interrupts to smp.cpp's handlers,
// and smp.cpp's start-up needs only this header (kernel/README.md).
#pragma once

namespace kernel {

void install_trap_entries();

}  // namespace kernel
