// Signals (issue 29): Linux/Alpha's numbers and flags, per-thread masks and
// pending sets, per-group dispositions, and delivery on the way back to user
// mode with the Linux/Alpha signal frames (arch/alpha/kernel/signal.c:
// struct sigframe and struct rt_sigframe, whose layout glibc's unwinder and
// sigreturn stubs know). Syscalls that block may end with EINTR; none is
// restarted (SA_RESTART is accepted and ignored).
#pragma once
#include <cstdint>

#include "kernel/process.h"
#include "kernel/signal_frame.h"

namespace kernel::signals {

// Linux/Alpha signal numbers (asm/signal.h): several differ from i386's.
inline constexpr int kSigHup = 1, kSigQuit = 3, kSigIll = 4, kSigTrap = 5, kSigAbrt = 6,
                     kSigEmt = 7, kSigFpe = 8, kSigKill = 9, kSigBus = 10, kSigSegv = 11,
                     kSigSys = 12, kSigUrg = 16, kSigStop = 17, kSigTstp = 18, kSigCont = 19,
                     kSigChld = 20, kSigTtin = 21, kSigTtou = 22, kSigXcpu = 24, kSigXfsz = 25,
                     kSigWinch = 28, kSigAlrm = 14, kSigVtalrm = 26, kSigProf = 27;
// sa_flags (asm/signal.h).
inline constexpr uint64_t kSaRestart = 0x2, kSaNodefer = 0x8, kSaResethand = 0x10,
                          kSaSiginfo = 0x40, kSaOnstack = 0x1, kSaNocldstop = 0x4;
inline constexpr uint64_t kSigDfl = 0, kSigIgn = 1;

inline constexpr uint64_t bit(int sig) { return uint64_t{1} << (sig - 1); }
inline constexpr uint64_t kUnblockable = bit(kSigKill) | bit(kSigStop);
inline constexpr bool valid(int64_t sig) {
  return sig >= 1 && sig <= static_cast<int64_t>(kSignals);
}

// Sends `sig` to one thread (tgkill, a fault) or to a whole process (kill:
// any thread that does not block it takes it). With sched::lock held. A
// signal its process ignores is discarded; a sleeping thread that may take
// it is woken (its system call ends with EINTR). Stop signals and SIGCONT
// act on the process when sent (kernel/job_control.h).
// `source`: what its siginfo says (nullptr: SI_USER from the calling
// process, as kill and the kernel's own signals).
void send_thread_locked(Process* target, int sig, const SignalSource* source = nullptr);
void send_group_locked(Process* leader, int sig, const SignalSource* source = nullptr);

// sigaltstack's flags for `sp`: SS_DISABLE (none), SS_ONSTACK (sp is on
// it) or 0, as Linux's sas_ss_flags.
inline constexpr int32_t kSsOnstack = 1, kSsDisable = 2;
int32_t altstack_flags(const Process* self, uint64_t sp);

// rt_sigtimedwait: the lowest signal of `set` pending for the thread (its
// own first, then its process's), taken off; 0 if none. With sched::lock.
int take_waited_locked(Process* self, uint64_t set);
// Who sent `sig` last, and how.
const SignalSource& source_of(const Process* self, int sig);
// The siginfo of `sig` from `source` (a handler's frame, rt_sigtimedwait).
void write_siginfo(int sig, const SignalSource& source, SigInfo* info);
// SIGCHLD's source for the end of child `pid` with `wait_status` (Linux's
// encoding): CLD_EXITED and the exit code, or CLD_KILLED / CLD_DUMPED and
// the signal.
SignalSource child_end(uint32_t pid, int64_t wait_status);

// True when the current thread has an unblocked signal waiting, or its
// process is ending: what a blocking call checks to return EINTR.
bool interrupted(const Process* self);

// On every return to user mode (kernel/traps.cpp): ends the thread if its
// process is exiting, then acts on one pending unblocked signal: its
// handler (the frame is built and the trap returns into the handler), or its
// default action (ignore, stop, or end the process: exit_current, no
// return). A thread of a stopped process parks here until continued.
void deliver(TrapFrame* frame);

// rt_sigsuspend: `mask` (the one the call replaced) comes back at the next
// delivery, and is the mask the handler's frame restores.
void deliver_with_saved_mask(Process* self, uint64_t mask);

// sigreturn (rt = false: a0 is the struct sigcontext) and rt_sigreturn (a0
// is the struct rt_sigframe): the registers, FP state and mask come back
// from user memory. False if it is unreadable (the caller sends SIGSEGV).
bool restore(TrapFrame* frame, uint64_t frame_va, bool rt);

// A fault in user mode with a handler installed and not blocked: queued
// (delivered on the way out, true); else false and the caller kills.
bool fault_to_handler(int sig);

// True for the signals whose default action dumps core.
bool dumps_core(int sig);
// The wait status of a process `sig` kills: | 0x80 ("core dumped") when the
// signal dumps core and RLIMIT_CORE's soft limit is not 0, as Linux sets it
// (its default limit is 0, so a plain abort() reads "not dumped"); no core
// file is ever written.
int death_status(const Process* self, int sig);

}  // namespace kernel::signals
