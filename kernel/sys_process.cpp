// Process and thread system calls (issue 29): clone/fork/vfork, execve,
// exit and exit_group, wait4/waitid (also of stopped and continued
// children, kernel/job_control.h), identities, process groups, futex, and
// sleeping.
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/futex.h"
#include "kernel/irq_lock.h"
#include "kernel/job_control.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/syscall_handlers.h"
#include "kernel/text.h"
#include "kernel/udiv.h"

namespace kernel::sys {
namespace {

constexpr uint64_t kCloneVm = 0x100, kCloneVfork = 0x4000;
constexpr uint64_t kTimerAbstime = 1;
// waitid (linux/wait.h)
constexpr uint64_t kPAll = 0, kPPid = 1, kPPgid = 2;
using signals::kCldContinued;
using signals::kCldDumped;
using signals::kCldExited;
using signals::kCldKilled;
using signals::kCldStopped;

int64_t sleep_until(Process* self, uint64_t deadline) {
  IrqLockGuard guard(sched::lock);
  while (clock::cycles() < deadline) {
    if (signals::interrupted(self)) return error(EINTR);
    sched::sleep_locked(deadline);
  }
  return 0;
}

}  // namespace

int64_t vector_from_user(Process* self, uint64_t va, const char** out, uint64_t max, char* strings,
                         uint64_t capacity, uint64_t* used) {
  if (va == 0) return 0;
  for (uint64_t n = 0;; ++n) {
    uint64_t pointer;
    if (!copy_from_user(self->space(), &pointer, va + n * 8, 8)) return error(EFAULT);
    if (pointer == 0) return static_cast<int64_t>(n);
    if (n == max) return error(E2BIG);
    const int64_t length =
        string_from_user(self->space(), strings + *used, pointer, capacity - *used);
    if (length < 0) return error(translate_user(self->space(), pointer, false) ? E2BIG : EFAULT);
    out[n] = strings + *used;
    *used += static_cast<uint64_t>(length) + 1;
  }
}

int64_t timespec_cycles(Process* self, uint64_t va, uint64_t* cycles) {
  int64_t ts[2];
  if (!copy_from_user(self->space(), ts, va, sizeof ts)) return error(EFAULT);
  if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1'000'000'000) return error(EINVAL);
  *cycles = static_cast<uint64_t>(ts[0]) * clock::kCyclesPerSecond +
            udiv(static_cast<uint64_t>(ts[1]), 1'000'000'000 / clock::kCyclesPerSecond);
  return 0;
}

int64_t timespec_deadline(Process* self, uint64_t va, uint64_t* deadline) {
  *deadline = 0;
  if (va == 0) return 0;
  uint64_t cycles;
  if (const int64_t e = timespec_cycles(self, va, &cycles); e < 0) return e;
  *deadline = cycles == 0 ? 1 : clock::cycles() + cycles;
  return 0;
}

int64_t sys_clone(Process*, TrapFrame* frame, const Args& args) {
  const int64_t tid =
      clone_current(frame, CloneRequest{args.a[0], args.a[1], args.a[2], args.a[3], args.a[4]});
  frame->reg(20) = 0;  // a4 = 0 in the parent (the child gets 1)
  return tid;
}

int64_t sys_fork(Process* self, TrapFrame* frame, const Args&) {
  return sys_clone(self, frame, Args{{signals::kSigChld, 0, 0, 0, 0}});
}

int64_t sys_vfork(Process* self, TrapFrame* frame, const Args&) {
  return sys_clone(self, frame, Args{{kCloneVm | kCloneVfork | signals::kSigChld, 0, 0, 0, 0}});
}

int64_t sys_execve(Process* self, TrapFrame* frame, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, args.a[0], path); e < 0) return e;
  const uint64_t buffer = pages::allocate(kArgPages);
  if (buffer == 0) return error(ENOMEM);
  auto* strings = reinterpret_cast<char*>(buffer);
  const uint64_t capacity = kArgPages << pages::kPageShift;
  const char* argv[64];
  const char* envp[64];
  uint64_t used = 0;
  int64_t argc = vector_from_user(self, args.a[1], argv, 64, strings, capacity, &used);
  const int64_t envc =
      argc < 0 ? 0 : vector_from_user(self, args.a[2], envp, 64, strings, capacity, &used);
  int64_t result = argc < 0 ? argc : envc;
  if (result >= 0) {
    if (argc == 0) argv[argc++] = path;  // as Linux 6.x: argv[0] is never missing
    result = exec_current(frame, path, argv, static_cast<uint64_t>(argc), envp,
                          static_cast<uint64_t>(envc));
  }
  pages::release(buffer, kArgPages);
  return result < 0 ? result : kRegistersSet;
}

int64_t sys_exit(Process*, TrapFrame*, const Args& args) {
  exit_thread(static_cast<int64_t>((args.a[0] & 0xff) << 8));
}

int64_t sys_exit_group(Process*, TrapFrame*, const Args& args) {
  exit_current(static_cast<int64_t>((args.a[0] & 0xff) << 8));
}

// As Linux, a bad status pointer is found only after the child was reaped:
// EFAULT, and the child is gone.
int64_t sys_wait4(Process* self, TrapFrame*, const Args& args) {
  const uint64_t status_va = args.a[1];
  const auto pid = static_cast<int64_t>(args.a[0]);
  int64_t status = 0;
  // pid > 0: that child; -1: any; 0: one of our process group; < -1: of group -pid.
  const WaitFor who = pid > 0     ? WaitFor{WaitFor::kPid, static_cast<uint32_t>(pid)}
                      : pid == -1 ? WaitFor{WaitFor::kAny, 0}
                      : pid == 0  ? WaitFor{WaitFor::kGroup, self->group->pgid}
                                  : WaitFor{WaitFor::kGroup, static_cast<uint32_t>(-pid)};
  const uint64_t options =
      (args.a[2] & (kWaitNohang | kWaitUntraced | kWaitContinued)) | kWaitExited;
  const int64_t reaped = wait_child(who, &status, options);
  if (reaped > 0 && status_va != 0) {
    const int32_t s = static_cast<int32_t>(status);
    if (!copy_to_user(self->space(), status_va, &s, sizeof s)) return error(EFAULT);
  }
  return reaped;
}

namespace {
// The siginfo waitid writes for a wait status (si_code, si_status).
void child_info(int64_t status, int32_t* code, int32_t* child_status) {
  const auto signal = static_cast<int32_t>(status & 0x7f);
  if (status == jobs::kContinuedStatus) {
    *code = kCldContinued;
    *child_status = signals::kSigCont;
  } else if (signal == 0x7f) {
    *code = kCldStopped;
    *child_status = static_cast<int32_t>((status >> 8) & 0xff);
  } else {
    *code = signal == 0 ? kCldExited : (status & 0x80) ? kCldDumped : kCldKilled;
    *child_status = signal == 0 ? static_cast<int32_t>((status >> 8) & 0xff) : signal;
  }
}
}  // namespace

// waitid(idtype, id, infop, options, rusage): P_ALL, P_PID and P_PGID (id
// 0: the caller's group, as Linux 5.4+) with WEXITED, WSTOPPED and/or
// WCONTINUED (one at least); WNOHANG; WNOWAIT leaves the child's state (a
// zombie, a stop, a continuation) for a later wait.
int64_t sys_waitid(Process* self, TrapFrame*, const Args& args) {
  const uint64_t type = args.a[0], id = args.a[1];
  const uint64_t kinds = args.a[3] & (kWaitExited | kWaitUntraced | kWaitContinued);
  if ((type != kPAll && type != kPPid && type != kPPgid) || kinds == 0 ||
      (type == kPPid && (id == 0 || id > 0x7fffffff)) || (type == kPPgid && id > 0x7fffffff))
    return error(EINVAL);
  const uint64_t info_va = args.a[2];
  int64_t status = 0;
  const WaitFor who = type == kPPid    ? WaitFor{WaitFor::kPid, static_cast<uint32_t>(id)}
                      : type == kPPgid ? WaitFor{WaitFor::kGroup,
                                                 id ? static_cast<uint32_t>(id) : self->group->pgid}
                                       : WaitFor{WaitFor::kAny, 0};
  const int64_t reaped =
      wait_child(who, &status, kinds | (args.a[3] & (kWaitNohang | kWaitNowait)));
  if (reaped < 0 || info_va == 0) return reaped < 0 ? reaped : 0;
  int32_t info[32] = {};  // siginfo_t: signo, errno, code, pad, pid, uid, status
  if (reaped > 0) {
    info[0] = signals::kSigChld;
    info[4] = static_cast<int32_t>(reaped);
    child_info(status, &info[2], &info[6]);
  }
  return copy_to_user(self->space(), info_va, info, sizeof info) ? 0 : error(EFAULT);
}

int64_t sys_getxpid(Process* self, TrapFrame* frame, const Args&) {
  frame->reg(20) = sys_getppid(self, frame, Args{});  // a4
  return self->tgid;
}

// The process's parent, also from a thread (threads have none of their own).
int64_t sys_getppid(Process* self, TrapFrame*, const Args&) {
  IrqLockGuard guard(sched::lock);
  const Process* leader = find_process_locked(self->tgid);
  return leader ? leader->parent_pid : 0;
}

int64_t sys_gettid(Process* self, TrapFrame*, const Args&) { return self->pid; }

// pthread_join's word: zeroed and woken when this thread exits.
int64_t sys_set_tid_address(Process* self, TrapFrame*, const Args& args) {
  self->clear_child_tid = args.a[0];
  return self->pid;
}

// Robust futex lists: accepted and kept nowhere. glibc registers one per
// thread; only a thread that dies holding a robust mutex would need it.
int64_t sys_set_robust_list(Process*, TrapFrame*, const Args& args) {
  return args.a[1] == 24 ? 0 : error(EINVAL);  // sizeof(struct robust_list_head)
}

int64_t sys_futex(Process* self, TrapFrame*, const Args& args) {
  return futex::call(self, args.a[0], args.a[1], args.a[2], args.a[3], args.a[4], args.a[5]);
}

// Process groups and sessions (ThreadGroup::pgid, sid), as Linux keeps
// them for kill(-pgid), kill(0), wait4(0 or -pgid) and waitid(P_PGID);
// there is no terminal, so no foreground group (stops: kernel/job_control.h).
namespace {
// The process `pid` names (0: the caller's), under sched::lock.
Process* process_named_locked(Process* self, uint64_t pid) {
  if (pid == 0) return find_process_locked(self->tgid);
  if (pid > 0x7fffffff) return nullptr;
  Process* p = find_process_locked(static_cast<uint32_t>(pid));
  return p != nullptr && p->group != nullptr ? p : nullptr;
}
int64_t group_field(Process* self, uint64_t pid, uint32_t ThreadGroup::*field) {
  IrqLockGuard guard(sched::lock);
  const Process* p = process_named_locked(self, pid);
  return p != nullptr ? p->group->*field : error(ESRCH);
}
}  // namespace

int64_t sys_getpgrp(Process* self, TrapFrame*, const Args&) { return self->group->pgid; }
int64_t sys_getpgid(Process* self, TrapFrame*, const Args& args) {
  return group_field(self, args.a[0], &ThreadGroup::pgid);
}
int64_t sys_getsid(Process* self, TrapFrame*, const Args& args) {
  return group_field(self, args.a[0], &ThreadGroup::sid);
}
// setpgid(pid, pgid), Linux's rules: the caller or a child of it (ESRCH),
// not a session leader and in the caller's session (EPERM), into a group
// of its own (pgid = pid) or an existing group of that session (EPERM).
int64_t sys_setpgid(Process* self, TrapFrame*, const Args& args) {
  const uint64_t pid = args.a[0] ? args.a[0] : self->tgid;
  const uint64_t pgid = args.a[1] ? args.a[1] : pid;
  if (static_cast<int64_t>(args.a[1]) < 0 || pgid > 0x7fffffff) return error(EINVAL);
  IrqLockGuard guard(sched::lock);
  Process* p = process_named_locked(self, pid);
  if (p == nullptr || (p->tgid != self->tgid && p->parent_pid != self->tgid)) return error(ESRCH);
  const uint32_t sid = self->group->sid;
  if (p->group->sid == p->tgid || p->group->sid != sid) return error(EPERM);
  if (pgid != p->tgid && !group_in_session_locked(static_cast<uint32_t>(pgid), sid))
    return error(EPERM);
  p->group->pgid = static_cast<uint32_t>(pgid);
  return 0;
}
// setsid: a new session and group led by the caller; EPERM for a group leader.
int64_t sys_setsid(Process* self, TrapFrame*, const Args&) {
  IrqLockGuard guard(sched::lock);
  if (self->group->pgid == self->tgid || group_in_session_locked(self->tgid, 0))
    return error(EPERM);
  self->group->pgid = self->group->sid = self->tgid;
  return self->tgid;
}

int64_t sys_sched_yield(Process*, TrapFrame*, const Args&) {
  IrqLockGuard guard(sched::lock);
  sched::schedule_locked();
  return 0;
}

int64_t sys_nanosleep(Process* self, TrapFrame*, const Args& args) {
  uint64_t cycles;
  if (const int64_t e = timespec_cycles(self, args.a[0], &cycles); e < 0) return e;
  return sleep_until(self, clock::cycles() + cycles);
}

// clock_nanosleep(clock, flags, request, remain): TIMER_ABSTIME is a time
// on that clock: the wall clock's (clock::is_wall_clock) or one since boot.
int64_t sys_clock_nanosleep(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] > 11) return error(EINVAL);
  uint64_t cycles;
  if (const int64_t e = timespec_cycles(self, args.a[2], &cycles); e < 0) return e;
  if (!(args.a[1] & kTimerAbstime)) return sleep_until(self, clock::cycles() + cycles);
  return sleep_until(
      self, clock::is_wall_clock(args.a[0]) ? clock::boot_cycles_of_realtime(cycles) : cycles);
}

}  // namespace kernel::sys

namespace kernel::sys {
namespace {
constexpr uint64_t kPrSetName = 15, kPrGetName = 16;  // Linux's prctl options
}  // namespace

// prctl: a thread's name (PR_SET_NAME, PR_GET_NAME; glibc's
// pthread_setname_np/getname_np for the calling thread), which the process
// table records (issue 29). Other options are refused (EINVAL) and named.
// ptrace: no tracing here. Refused with EPERM, as a Linux with Yama's
// ptrace_scope 3 refuses every request (PTRACE_TRACEME included), so that a
// program that probes for a debugger, or a test of one, takes its "not
// permitted" path rather than an ENOSYS no Linux gives; said once a process.
int64_t sys_ptrace(Process* self, TrapFrame*, const Args& args) {
  if (!self->group->ptrace_refused) {
    self->group->ptrace_refused = true;
    kprintf("dcpi-kernel: pid %u (%s): ptrace request %lu refused (EPERM): no tracing here\n",
            self->tgid, self->name, args.a[0]);
  }
  return error(EPERM);
}

int64_t sys_prctl(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kPrSetPdeathsig = 1, kPrGetPdeathsig = 2, kPrGetDumpable = 3,
                     kPrSetDumpable = 4;
  switch (args.a[0]) {
    case kPrSetPdeathsig:  // the signal when the parent ends (0: none)
      if (args.a[1] != 0 && !signals::valid(static_cast<int64_t>(args.a[1]))) return error(EINVAL);
      self->group->parent_death_signal = static_cast<uint32_t>(args.a[1]);
      return 0;
    case kPrGetPdeathsig: {
      const int32_t sig = static_cast<int32_t>(self->group->parent_death_signal);
      return copy_to_user(self->space(), args.a[1], &sig, sizeof sig) ? 0 : error(EFAULT);
    }
    case kPrGetDumpable:
      return self->group->dumpable;
    case kPrSetDumpable:  // 0 or 1 (SUID_DUMP_USER); nothing is dumped here anyway
      if (args.a[1] > 1) return error(EINVAL);
      self->group->dumpable = static_cast<uint32_t>(args.a[1]);
      return 0;
    default:
      break;
  }
  if (args.a[0] == kPrGetName)
    return copy_to_user(self->space(), args.a[1], self->comm, sizeof self->comm) ? 0
                                                                                 : error(EFAULT);
  if (args.a[0] != kPrSetName) {
    kprintf("dcpi-kernel: pid %u (%s): prctl option %lu is not implemented (EINVAL)\n", self->tgid,
            self->name, args.a[0]);
    return error(EINVAL);
  }
  // As Linux: at most 15 characters are taken, a longer name is cut.
  char name[sizeof self->comm] = {};
  for (uint64_t i = 0; i + 1 < sizeof name; ++i) {
    if (!copy_from_user(self->space(), &name[i], args.a[1] + i, 1)) return error(EFAULT);
    if (name[i] == 0) break;
  }
  copy_name(self->comm, sizeof self->comm, name);
  record_thread(dcpi::LoadKind::kThreadName, self, 0);
  return 0;
}

}  // namespace kernel::sys
