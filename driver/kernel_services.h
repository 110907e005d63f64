// Everything the driver uses from the kernel, and nothing else (issue 13):
// the driver's translation units include this header and no kernel/ one.
// The kernel implements the functions declared here (kernel/console.cpp,
// clock.cpp, address_space.cpp, scheduler.cpp, uart.cpp, switch.S, each of which
// includes this header so that the compiler checks the two agree); the
// other way round the kernel reaches the driver only through
// driver/driver.h.
//
// What the driver needs, by job:
//   console        kprintf (a CPU that does not answer a request)
//   serial         the serial transport's raw bytes on COM2
//   clock          the 64-bit cycle count (daemon flush interval, epochs)
//                  and each CPU's cycles running threads (kStats)
//   preemption     off while the daemon's lock is held (preemption_off)
//   locks, IPL,    firmware/spin_lock.h and the CALL_PAL wrappers of
//   IPIs, counter  firmware/pal_calls.h (swpipl, wripir, wtint, whami,
//                  rpcc, wrperfmon, rdusp, wrusp): shared with the kernel,
//                  inline because the handler runs them on every sample
//   trap frame     firmware/trap_frame.h (the full-frame handler variants
//                  and the value sampler read and advance it)
//   call chains    the running thread's kernel stack bounds
//   value sampler  the interrupted process's address space and user page
//                  translation (seed 001 §2.1.2: user memory is reached
//                  through the page tables, never by a faulting access),
//                  and the FP register save/restore of kernel/switch.S
// Guest only.
#pragma once
#include <cstdint>

#include "firmware/memory_map.h"
#include "firmware/pal_calls.h"
#include "firmware/spin_lock.h"
#include "firmware/trap_frame.h"

namespace kernel {

struct AddressSpace;

// Console on COM1: a small printf, serialized across CPUs.
void kprintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// COM2 (ISA port 0x2f8): raw bytes, no newline translation. The DCPI serial
// transport (docs/transfer-format.md "Serial stream"); kernel/uart.cpp.
void uart2_write_bytes(const uint8_t* bytes, uint64_t length);

namespace clock {
// Cycles since boot, 64 bits (RPCC extended; kernel/clock.h).
uint64_t cycles();
}  // namespace clock

namespace sched {
// The scheduler tick does not preempt this CPU between the two (they
// nest). For a spin lock held at IPL 0: a preempted holder leaves a waiter
// on its CPU spinning, and the boot CPU's idle context, which is not
// requeued, runs again only when its CPU has nothing else to run -- the
// daemon spun on its lock for the whole run (no samples) when the tick
// preempted the boot context inside start_all.
void preemption_off();
void preemption_on();

// Since boot: the cycles `cpu` ran a thread other than its idle loop, and
// those cycles each divided by the number of CPUs running threads at the
// time (its own share of -icount's one virtual clock; kernel/cpu_time.h).
struct CpuTimes {
  uint64_t thread_cycles;
  uint64_t own_cycles;
};
CpuTimes cpu_times(uint32_t cpu);
}  // namespace sched

// The address space of the process running on this CPU (nullptr if none).
// Called at IPL 6, for an interrupted user-mode context.
const AddressSpace* current_user_space();
// The running thread's address space (as current_user_space) and where its
// user stack began (its outermost frame's sp at exec or clone; 0 if
// unknown): call chains copy no stack above it. One call, one lookup of the
// running process, for every chain sample (issue 28's cost).
struct UserStack {
  const AddressSpace* space;
  uint64_t base;
};
UserStack current_user_stack();
// The kernel stack that kernel-mode `sp` of the running thread is on (call
// chains, issue 28 item 2): its top (one past its highest quadword; 0 when
// sp is on no stack the kernel knows) and whether the thread has a user
// context, so that the TrapFrame of its latest entry from user mode lies
// just below that top. Called at IPL 6.
struct KernelStack {
  uint64_t top;
  bool user_context;
};
KernelStack current_kernel_stack(uint64_t sp);
// KSEG address that user `va` maps to if user mode may access it (write
// access if `write`), else 0. Walks the page table; never faults.
uint64_t translate_user(const AddressSpace& space, uint64_t va, bool write);
// The PTE slot and page of user `va` if user mode may read it (slot nullptr
// otherwise), and how many times page tables were freed: a translation kept
// across samples is right while the slot holds the same PTE and no table
// was freed since (the call-chain sampler's stack page cache).
struct UserPte {
  const uint64_t* slot;
  uint64_t pte;
  uint64_t kseg_page;
};
UserPte user_read_pte(const AddressSpace& space, uint64_t va);
extern uint64_t page_tables_freed;  // a variable: read at IPL 6 on every chain sample

}  // namespace kernel

extern "C" {
// The process each CPU runs (kernel::sched's running[]), for the call-chain
// fast path in assembly (driver/fast_handler.S chain_capture), which reads
// its mm and user_stack_base as current_user_stack does, at the offsets of
// driver/chain_layout.h (kernel/scheduler.cpp static_asserts them).
extern const void* const dcpi_running_processes;
// f0-f31 then the FPCR: 33 quadwords (kernel/switch.S). fp_save clobbers f0.
void fp_save(uint64_t* area);
void fp_restore(const uint64_t* area);
// f0 alone from the area: undoes fp_save when nothing else changed.
void fp_restore_f0(const uint64_t* area);
}
