// IEEE software completion, as Linux/Alpha's entArith and osf_{get,set}sysinfo
// (arch/alpha/kernel/traps.c, osf_sys.c, math-emu). Debian's compilers
// default to -mieee: every FP operation carries /SU (software completion),
// and an exception it raises (1.0/0.0, a NaN compare, an overflow) traps
// into the kernel, which completes the instruction with its IEEE result,
// records the exception in the thread's software control word (what glibc's
// fetestexcept reads) and sends SIGFPE only if the program enabled that
// trap there (feenableexcept). Before, every such trap killed the program.
//
// QEMU (system mode) has already written the IEEE result to the destination
// register when it traps after an operation (the trap's register mask names
// it), and has set the FPCR's status bits; only a denormal *operand* traps
// before the operation (mask 0), where Linux's math-emu computes the result
// in software. That is done here (kernel/soft_float.h) for the T-format
// operations: the compares (which isnan, fpclassify and printf of a denormal
// execute), ADDT, SUBT, MULT, DIVT, SQRTT, CVTTS and CVTTQ; any other
// (the VAX formats' never get here) still ends in SIGFPE.
#pragma once
#include <cstdint>

#include "kernel/process.h"
#include "kernel/traps.h"

namespace kernel::fp {

// osf_getsysinfo(GSI_IEEE_FP_CONTROL): the stored trap enables and mapping
// bits with the status bits read from the FPCR (Linux's EV6 rule,
// swcr_update_status: QEMU's clipper is an EV67, which keeps them there).
uint64_t read_control(const Process* self);
// osf_setsysinfo(SSI_IEEE_FP_CONTROL): stores the word and writes the FPCR
// it implies (status, trap disables, DNZ/UNDZ), keeping the dynamic rounding
// mode (Linux's ieee_swcr_to_fpcr).
void write_control(Process* self, uint64_t swcr);
// osf_setsysinfo(SSI_IEEE_RAISE_EXCEPTION): glibc's feraiseexcept. Adds the
// status bits to the word and the FPCR; true if one of them is enabled as a
// trap (the caller sends SIGFPE, as Linux does).
bool raise_exceptions(Process* self, uint64_t status);
// The FPCR a new program starts with (Linux's start_thread): round to
// nearest, every trap disabled as the control word 0 says.
uint64_t initial_fpcr();
// An arithmetic trap from user mode: true if it was completed and the
// program goes on at the frame's PC (already past the instruction); false
// if it is to be a SIGFPE (the exception enabled, or not completed here).
bool complete_trap(Process* self, uint64_t summary, uint64_t mask, TrapFrame* frame);

}  // namespace kernel::fp
