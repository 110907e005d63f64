#include "kernel/trap_entries.h"

#include <cstdint>

#include "firmware/pal_abi.h"
#include "kernel/palcalls.h"

extern "C" {
void entry_interrupt();
void entry_arithmetic();
void entry_memory_fault();
void entry_instruction_fault();
void entry_unaligned();
void entry_system_call();
}

namespace kernel {

// wrent and wrkgp set PALcode per-CPU state: every CPU calls this.
void install_trap_entries() {
  uint64_t gp;
  asm("mov $29, %0" : "=r"(gp));
  pal::wrkgp(gp);
  pal::wrent(entry_interrupt, ENT_INT);
  pal::wrent(entry_arithmetic, ENT_ARITH);
  pal::wrent(entry_memory_fault, ENT_MM);
  pal::wrent(entry_instruction_fault, ENT_IF);
  pal::wrent(entry_unaligned, ENT_UNA);
  pal::wrent(entry_system_call, ENT_SYS);
}

}  // namespace kernel
