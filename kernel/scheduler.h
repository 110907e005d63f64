// One run queue for all CPUs under one spin lock (held at IPL 7, also
// across the context switch: the thread switched to releases it, as in
// xv6). Round robin, preempted by the PALcode scheduler tick (10 ms) when
// the tick interrupts IPL 0 code (user mode, kernel threads, idle loops).
#pragma once
#include <cstdint>

#include "kernel/process.h"
#include "kernel/spinlock.h"

namespace kernel::sched {

extern SpinLock lock;

// Per CPU, at boot: the boot context becomes this CPU's idle thread.
void init_cpu(uint32_t cpu);
// The shared kernel-only page table that kernel threads run on.
uint64_t kernel_ptbr();

// With `lock` held (IPL 7). Not a thread parked in a group stop
// (Process::stopped): it stays blocked until continued.
void make_ready_locked(Process* p);
// Gives the CPU away: re-queues the current thread if it is still running,
// switches to the next one. Returns (with `lock` held) when it runs again.
void schedule_locked();
// Counting mode (issue 26 item 4): adds what this CPU counted since the last
// take to `p`'s process (at every switch, and at a thread's exit). IPL >= 5.
void take_counts(Process* p);
// Blocks the current thread (with `lock` held) until someone makes it ready
// or, if `deadline` (cycles) is not 0, until the tick after it passes;
// interruptible: a signal wakes it too. Returns with `lock` held.
void sleep_locked(uint64_t deadline);
// The scheduler tick: preempt if the interrupted code ran at IPL 0.
void tick(const TrapFrame* frame);
// On a return to user mode: the preemption a tick put off because it
// landed in this process's system call or trap (tick).
void preempt_if_ticked();
// Each CPU's idle loop (never returns); idle_step runs queued work once.
[[noreturn]] void idle_loop();
void idle_step();
void finish_switch();

Process* current_locked_unsafe(uint32_t cpu);

// An IPI to the CPU running `p` (if another): it passes through the trap
// return path, where signals are delivered (kernel/signals.h).
void kick_locked(const Process* p);

// After changing PTEs of `mm`: flushes this CPU's TLB and, by IPI, that of
// every other CPU now running a thread of `mm` (waiting until they have).
void flush_tlb(const Mm* mm);

}  // namespace kernel::sched
