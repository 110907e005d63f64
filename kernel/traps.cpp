// Trap and interrupt dispatch: where PALcode's deliveries land in C++.
#include "kernel/traps.h"

#include "driver/sampler.h"
#include "kernel/console.h"
#include "kernel/palcalls.h"
#include "kernel/smp.h"

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

using kernel::panic;
using kernel::TrapFrame;

extern "C" void handle_interrupt(uint64_t type, uint64_t a1, uint64_t a2, TrapFrame* frame) {
  switch (type) {
    case INT_PERFCTR:
      dcpi::driver::sampler_overflow(frame->pc, frame->ps, a2);
      return;
    case INT_CLOCK:
      kernel::smp::clock_tick();
      return;
    case INT_IPI:
      kernel::smp::handle_ipi();
      return;
    default:
      panic("unexpected interrupt type %lu (a1=%lx) at pc %lx", type, a1, frame->pc);
  }
}

extern "C" void handle_arithmetic_trap(uint64_t summary, uint64_t mask, uint64_t,
                                       TrapFrame* frame) {
  panic("arithmetic trap in kernel: summary %lx mask %lx pc %lx", summary, mask, frame->pc);
}

extern "C" void handle_memory_fault(uint64_t address, uint64_t mmcsr, uint64_t cause,
                                    TrapFrame* frame) {
  panic("memory fault in kernel: address %lx mmcsr %lu cause %ld pc %lx", address, mmcsr,
        static_cast<int64_t>(cause), frame->pc);
}

extern "C" void handle_instruction_fault(uint64_t kind, uint64_t, uint64_t, TrapFrame* frame) {
  panic("instruction fault %lu in kernel at pc %lx", kind, frame->pc);
}

extern "C" void handle_unaligned(uint64_t address, uint64_t opcode, uint64_t, TrapFrame* frame) {
  panic("unaligned access in kernel: address %lx opcode %lx pc %lx", address, opcode, frame->pc);
}

extern "C" void handle_system_call(uint64_t, uint64_t, uint64_t, TrapFrame* frame) {
  panic("system call with no user processes, pc %lx", frame->pc);
}
