// Trap and interrupt dispatch: where PALcode's deliveries land in C++.
#include "kernel/traps.h"

#include "driver/driver.h"
#include "kernel/console.h"
#include "kernel/fp_completion.h"
#include "kernel/itimers.h"
#include "kernel/palcalls.h"
#include "kernel/posix_timers.h"
#include "kernel/process.h"
#include "kernel/profiler.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/smp.h"
#include "kernel/syscalls.h"

namespace kernel {

namespace {
TrapRecord* recorder = nullptr;
uint64_t recorder_capacity = 0;
uint64_t recorded = 0;
}  // namespace

void arm_trap_recorder(TrapRecord* records, uint64_t capacity) {
  recorded = 0;
  recorder_capacity = capacity;
  recorder = records;
}

uint64_t disarm_trap_recorder() {
  recorder = nullptr;
  return recorded;
}

// Returns true if the trap was recorded; the frame then resumes at `resume`.
bool record_trap(uint64_t entry, uint64_t a0, TrapFrame* frame, uint64_t resume) {
  if (recorder == nullptr || recorded == recorder_capacity) return false;
  recorder[recorded++] = TrapRecord{entry, a0, frame->pc};
  frame->pc = resume;
  return true;
}

}  // namespace kernel

using kernel::panic;
using kernel::record_trap;
using kernel::TrapFrame;

namespace {

// Linux/Alpha signal numbers for faults (SIGBUS is 10 on Alpha, not 7).
using kernel::signals::kSigBus;
using kernel::signals::kSigFpe;
using kernel::signals::kSigIll;
using kernel::signals::kSigSegv;
using kernel::signals::kSigTrap;

bool from_user(const TrapFrame* frame) { return (frame->ps & PS_USER_MODE) != 0; }

// Every trap that returns to user mode passes here: pending signals are
// acted on (a handler's frame is built, or the process ends).
void return_to_user(TrapFrame* frame) {
  if (!from_user(frame)) return;
  kernel::sched::preempt_if_ticked();
  kernel::signals::deliver(frame);
}

// A user fault: its handler runs if the program installed one (and does
// not block the signal); else the process is killed with the console line.
bool fault_handled(TrapFrame* frame, int signal) {
  if (!kernel::signals::fault_to_handler(signal)) return false;
  return_to_user(frame);
  return true;
}

}  // namespace

// Counter 0 never arrives here: PALcode's dedicated delivery jumps to the
// driver's handler entry (driver/fast_handler.S, driver/handler.cpp).
// Counters 1 and 2 (the ev5 machine) do, as OSF/1's INT_PERFCTR.
extern "C" void handle_interrupt(uint64_t type, uint64_t a1, uint64_t, TrapFrame* frame) {
  switch (type) {
    case INT_CLOCK:
      kernel::smp::clock_tick();
      kernel::profiler::tick();
      kernel::itimers::tick(frame);
      kernel::posix_timers::tick();
      kernel::sched::tick(frame);
      return_to_user(frame);
      return;
    case INT_IPI:
      kernel::smp::handle_ipi();
      return_to_user(frame);
      return;
    case INT_PERFCTR:  // counters 1 and 2 (ev5); counter 0 never comes here
      dcpi::driver::event_counter_interrupt(a1, frame->pc);
      return_to_user(frame);
      return;
    default:
      panic("unexpected interrupt type %lu (a1=%lx) at pc %lx", type, a1, frame->pc);
  }
}

// Arithmetic traps are imprecise: the frame's PC is already past the trap.
extern "C" void handle_arithmetic_trap(uint64_t summary, uint64_t mask, uint64_t,
                                       TrapFrame* frame) {
  // An IEEE exception of a /S instruction is completed as Linux does (the
  // result, the status in the control word) and the program goes on,
  // unless it enabled that trap. At the user's IPL 0, as a memory fault
  // (Linux's entArith leaves the IPL alone): the completion is kernel time
  // the samples see, not a blind spot charged to the next user instruction.
  if (from_user(frame)) kernel::pal::swpipl(0);
  if (from_user(frame) && kernel::fp::complete_trap(kernel::current(), summary, mask, frame)) {
    return_to_user(frame);
    return;
  }
  if (from_user(frame) && fault_handled(frame, kSigFpe)) return;
  if (from_user(frame))
    kernel::kill_current(kSigFpe, "arithmetic trap", "summary", summary, frame->pc);
  if (record_trap(ENT_ARITH, summary, frame, frame->pc)) return;
  panic("arithmetic trap in kernel: summary %lx mask %lx pc %lx", summary, mask, frame->pc);
}

extern "C" void handle_memory_fault(uint64_t address, uint64_t mmcsr, uint64_t cause,
                                    TrapFrame* frame) {
  // The PC is the faulting instruction's: returning retries it. PALcode
  // enters at IPL 7; a user fault is handled at the user's IPL 0, as on
  // Linux/Alpha (entMM leaves the IPL alone): a first touch's zeroing is
  // kernel time the samples see, not a blind spot charged to the faulting
  // instruction. trap_return's rti restores the user's PS.
  if (from_user(frame)) {
    kernel::pal::swpipl(0);
    if (kernel::fault_in_demand_zero(address, mmcsr, cause)) return;
    if (kernel::grow_user_stack(address, mmcsr)) return;
    if (fault_handled(frame, kSigSegv)) return;
    kernel::kill_current(kSigSegv, "memory fault", "va", address, frame->pc);
  }
  panic("memory fault in kernel: address %lx mmcsr %lu cause %ld pc %lx", address, mmcsr,
        static_cast<int64_t>(cause), frame->pc);
}

// On QEMU every instruction fault (bpt, OPCDEC, FEN, ...) arrives with the
// PC of the next instruction (measured by the guest_traps test).
extern "C" void handle_instruction_fault(uint64_t kind, uint64_t, uint64_t, TrapFrame* frame) {
  if (from_user(frame)) {
    const uint64_t pc = frame->pc - 4;
    const int signal = kind == IF_BPT || kind == IF_BUGCHK ? kSigTrap
                       : kind == IF_GENTRAP                ? kSigFpe
                                                           : kSigIll;
    if (fault_handled(frame, signal)) return;
    switch (kind) {
      case IF_BPT:
      case IF_BUGCHK:
        kernel::kill_current(kSigTrap, "breakpoint", "va", pc, pc);
      case IF_GENTRAP:
        kernel::kill_current(kSigFpe, "gentrap", "va", pc, pc);
      case IF_FEN:
        kernel::kill_current(kSigIll, "floating point disabled", "va", pc, pc);
      default:
        kernel::kill_current(kSigIll, "illegal instruction", "va", pc, pc);
    }
  }
  if (record_trap(ENT_IF, kind, frame, frame->pc)) return;
  panic("instruction fault %lu in kernel at pc %lx", kind, frame->pc);
}

// PALcode already advanced the PC past the unaligned access (OSF/1).
extern "C" void handle_unaligned(uint64_t address, uint64_t opcode, uint64_t, TrapFrame* frame) {
  if (from_user(frame) && fault_handled(frame, kSigBus)) return;
  if (from_user(frame))
    kernel::kill_current(kSigBus, "unaligned access", "va", address, frame->pc - 4);
  if (record_trap(ENT_UNA, address, frame, frame->pc)) return;
  panic("unaligned access in kernel: address %lx opcode %lx pc %lx", address, opcode, frame->pc);
}

extern "C" void handle_system_call(uint64_t, uint64_t, uint64_t, TrapFrame* frame) {
  kernel::sys::dispatch(frame);
  return_to_user(frame);
}
