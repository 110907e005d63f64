// Signal system calls (issue 29): dispositions, masks, sending, and the
// return from a handler. Delivery itself is kernel/signals.cpp.
#include "kernel/clock.h"
#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

using signals::bit;
using signals::kUnblockable;

constexpr uint64_t kSigBlock = 1, kSigUnblock = 2, kSigSetmask = 3;  // Linux/Alpha's values
constexpr uint64_t kSigsetBytes = 8;

// The struct sigaction of Linux/Alpha's rt_sigaction: handler, flags (an
// unsigned long in the kernel, an unsigned int padded to 8 in glibc's
// kernel_sigaction: the low half is the flags), mask.
struct UserSigaction {
  uint64_t handler;
  uint64_t flags;
  uint64_t mask;
};
static_assert(sizeof(UserSigaction) == 24);

// kill(pid > 0) and tgkill's target checks (process groups and -1:
// signal_process_group). `source`: its siginfo (nullptr: SI_USER from the caller).
int64_t send_to_process(uint32_t pid, int64_t sig, const SignalSource* source = nullptr) {
  IrqLockGuard guard(sched::lock);
  Process* leader = find_process_locked(pid);
  if (leader == nullptr || leader->group == nullptr || leader->group->threads == 0)
    return error(ESRCH);
  if (sig != 0) signals::send_group_locked(leader, static_cast<int>(sig), source);
  return 0;
}

int64_t send_to_thread(uint32_t tgid, uint32_t tid, int64_t sig,
                       const SignalSource* source = nullptr) {
  IrqLockGuard guard(sched::lock);
  Process* thread = find_thread_locked(tid);
  if (thread == nullptr || (tgid != 0 && thread->tgid != tgid)) return error(ESRCH);
  if (sig != 0) signals::send_thread_locked(thread, static_cast<int>(sig), source);
  return 0;
}

// SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK `set` into the caller's blocked
// signals (never SIGKILL or SIGSTOP); false for another `how` (EINVAL).
bool change_blocked(Process* self, uint64_t how, uint64_t set) {
  switch (how) {
    case kSigBlock:
      self->blocked |= set;
      break;
    case kSigUnblock:
      self->blocked &= ~set;
      break;
    case kSigSetmask:
      self->blocked = set;
      break;
    default:
      return false;
  }
  self->blocked &= ~kUnblockable;
  return true;
}

}  // namespace

// rt_sigaction(sig, act, oact, sigsetsize, restorer): glibc passes its
// sigreturn stub as the fifth argument (Linux/Alpha's ka_restorer).
int64_t sys_rt_sigaction(Process* self, TrapFrame*, const Args& args) {
  const auto sig = static_cast<int64_t>(args.a[0]);
  if (!signals::valid(sig) || args.a[3] != kSigsetBytes) return error(EINVAL);
  UserSigaction act{};
  if (args.a[1] != 0 && !copy_from_user(self->space(), &act, args.a[1], sizeof act))
    return error(EFAULT);
  if (args.a[1] != 0 && (sig == signals::kSigKill || sig == signals::kSigStop))
    return error(EINVAL);
  SignalAction& slot = self->group->actions[sig - 1];
  SignalAction old;
  {
    IrqLockGuard guard(sched::lock);
    old = slot;
    if (args.a[1] != 0) {
      slot = SignalAction{act.handler, act.flags & 0xffffffff, act.mask & ~kUnblockable, args.a[4]};
      // A signal now ignored is discarded if pending (POSIX).
      if (act.handler == signals::kSigIgn) self->group->pending &= ~bit(static_cast<int>(sig));
    }
  }
  if (args.a[2] != 0) {
    const UserSigaction out{old.handler, old.flags, old.mask};
    if (!copy_to_user(self->space(), args.a[2], &out, sizeof out)) return error(EFAULT);
  }
  return 0;
}

int64_t sys_rt_sigprocmask(Process* self, TrapFrame*, const Args& args) {
  if (args.a[3] != kSigsetBytes) return error(EINVAL);
  const uint64_t old = self->blocked;
  if (args.a[1] != 0) {
    uint64_t set;
    if (!copy_from_user(self->space(), &set, args.a[1], 8)) return error(EFAULT);
    if (!change_blocked(self, args.a[0], set)) return error(EINVAL);
  }
  if (args.a[2] != 0 && !copy_to_user(self->space(), args.a[2], &old, 8)) return error(EFAULT);
  return 0;
}

// osf_sigprocmask(how, newmask): OSF/1's form, which glibc's getcontext,
// setcontext and swapcontext use on Alpha (before, ENOSYS: a context's
// signal mask was neither saved nor restored). The old mask is the result
// in v0 whatever its top bit (Linux's force_successful_syscall_return),
// so the registers are written here.
int64_t sys_osf_sigprocmask(Process* self, TrapFrame* frame, const Args& args) {
  const uint64_t old = self->blocked;
  if (!change_blocked(self, args.a[0], args.a[1])) return error(EINVAL);
  frame->reg(0) = old;
  frame->reg(19) = 0;  // a3: no error
  return kRegistersSet;
}

int64_t sys_rt_sigpending(Process* self, TrapFrame*, const Args& args) {
  if (args.a[1] != kSigsetBytes) return error(EINVAL);
  const uint64_t set = (self->pending | self->group->pending) & self->blocked;
  return copy_to_user(self->space(), args.a[0], &set, 8) ? 0 : error(EFAULT);
}

// rt_sigsuspend(mask, size): sleeps with `mask` until a signal is to be
// handled; the handler runs with the old mask saved in its frame.
int64_t sys_rt_sigsuspend(Process* self, TrapFrame*, const Args& args) {
  if (args.a[1] != kSigsetBytes) return error(EINVAL);
  uint64_t mask;
  if (!copy_from_user(self->space(), &mask, args.a[0], 8)) return error(EFAULT);
  const uint64_t old = self->blocked;
  self->blocked = mask & ~kUnblockable;
  {
    IrqLockGuard guard(sched::lock);
    while (!signals::interrupted(self)) sched::sleep_locked(0);
  }
  // Delivered on the way out (kernel/traps.cpp) with this mask in force;
  // the frame must restore the old one.
  signals::deliver_with_saved_mask(self, old);
  return error(EINTR);
}

// rt_sigtimedwait(set, info or NULL, timeout or NULL, size): sigwait,
// sigwaitinfo and sigtimedwait. Takes a pending signal of `set` (blocked, as
// sigwait requires) and returns its number, with si_signo, si_code
// (SI_USER) and si_pid; EAGAIN when the timeout passes; EINTR when a signal
// outside the set is to be handled.
int64_t sys_rt_sigtimedwait(Process* self, TrapFrame*, const Args& args) {
  if (args.a[3] != kSigsetBytes) return error(EINVAL);
  uint64_t set;
  if (!copy_from_user(self->space(), &set, args.a[0], 8)) return error(EFAULT);
  set &= ~kUnblockable;
  uint64_t deadline;
  if (const int64_t e = timespec_deadline(self, args.a[2], &deadline); e < 0) return e;
  int sig = 0;
  {
    IrqLockGuard guard(sched::lock);
    for (;;) {
      sig = signals::take_waited_locked(self, set);
      if (sig != 0) break;
      if (signals::interrupted(self)) return error(EINTR);
      if (deadline == 1 || (deadline != 0 && clock::cycles() >= deadline)) return error(EAGAIN);
      self->waited_signals = set;
      sched::sleep_locked(deadline);
      self->waited_signals = 0;
    }
  }
  if (args.a[1] != 0) {
    signals::SigInfo info;
    signals::write_siginfo(sig, signals::source_of(self, sig), &info);
    if (!copy_to_user(self->space(), args.a[1], &info, sizeof info)) return error(EFAULT);
  }
  return sig;
}

// signalfd4(fd, mask, size, flags): a signalfd reading the signals of
// `mask` (kernel/signalfd.h; never SIGKILL or SIGSTOP), or with fd != -1 a
// new mask for the signalfd at fd (EINVAL if it is another file);
// SFD_CLOEXEC, SFD_NONBLOCK (O_CLOEXEC's and O_NONBLOCK's values).
int64_t sys_signalfd4(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kSfdCloexec = LINUX_O_CLOEXEC, kSfdNonblock = LINUX_O_NONBLOCK;
  if (args.a[2] != kSigsetBytes) return error(EINVAL);
  uint64_t mask;
  if (!copy_from_user(self->space(), &mask, args.a[1], 8)) return error(EFAULT);
  if (args.a[3] & ~(kSfdCloexec | kSfdNonblock)) return error(EINVAL);
  mask &= ~kUnblockable;
  const auto fd = static_cast<int32_t>(args.a[0]);
  if (fd == -1) {
    OpenFile reader{};
    reader.kind = OpenFile::kSignalfd;
    reader.flags = static_cast<uint32_t>(LINUX_O_RDWR | (args.a[3] & kSfdNonblock));
    reader.signal_mask = mask;
    return open_description(self->fds, reader, args.a[3] & kSfdCloexec);
  }
  int64_t e;
  OpenFile* reader = file_of_kind(self->fds, fd < 0 ? kMaxFiles : static_cast<uint64_t>(fd),
                                  OpenFile::kSignalfd, EINVAL, &e);
  if (reader == nullptr) return e;
  IrqLockGuard guard(sched::lock);  // a reader may be taking signals by the old mask
  reader->signal_mask = mask;
  return fd;
}

int64_t sys_signalfd(Process* self, TrapFrame* frame, const Args& args) {
  return sys_signalfd4(self, frame, Args{{args.a[0], args.a[1], args.a[2], 0}});
}

// No alternate signal stacks: handlers run on the thread's stack.
// sigaltstack(ss, old): the thread's alternate signal stack, as Linux's
// do_sigaltstack: the old one is reported as it was (SS_ONSTACK while a
// handler runs on it), a change while on it is EPERM, flags other than
// SS_DISABLE, SS_ONSTACK (taken as 0) and SS_AUTODISARM are EINVAL, a
// stack smaller than Alpha's MINSIGSTKSZ (4096) ENOMEM. SS_AUTODISARM is
// accepted and not acted on (the stack stays armed in the handler).
int64_t sys_sigaltstack(Process* self, TrapFrame*, const Args& args) {
  constexpr int32_t kSsAutodisarm = INT32_MIN;
  constexpr uint64_t kMinSigStackBytes = 4096;
  const uint64_t usp = pal::rdusp();
  const signals::StackT old{self->altstack_sp, signals::altstack_flags(self, usp), 0,
                            self->altstack_size};
  if (args.a[0] != 0) {
    signals::StackT ss;
    if (!copy_from_user(self->space(), &ss, args.a[0], sizeof ss)) return error(EFAULT);
    if (old.ss_flags == signals::kSsOnstack) return error(EPERM);
    const int32_t mode = ss.ss_flags & ~kSsAutodisarm;
    if (mode != 0 && mode != signals::kSsDisable && mode != signals::kSsOnstack)
      return error(EINVAL);
    if (mode == signals::kSsDisable) {
      self->altstack_sp = self->altstack_size = 0;
    } else {
      if (ss.ss_size < kMinSigStackBytes) return error(ENOMEM);
      self->altstack_sp = ss.ss_sp;
      self->altstack_size = ss.ss_size;
    }
  }
  if (args.a[1] != 0 && !copy_to_user(self->space(), args.a[1], &old, sizeof old))
    return error(EFAULT);
  return 0;
}

int64_t sys_kill(Process* self, TrapFrame*, const Args& args) {
  const auto pid = static_cast<int64_t>(args.a[0]), sig = static_cast<int64_t>(args.a[1]);
  if (sig != 0 && !signals::valid(sig)) return error(EINVAL);
  // 0: our process group; -1: every process but init and us; < -1: group -pid.
  if (pid <= 0)
    return signal_process_group(self, pid == 0 || pid == -1 ? pid : -pid, static_cast<int>(sig));
  if (pid > 0xffffffff) return error(ESRCH);
  return send_to_process(static_cast<uint32_t>(pid), sig);
}

int64_t sys_tgkill(Process* self, TrapFrame*, const Args& args) {
  const auto tgid = static_cast<int64_t>(args.a[0]), tid = static_cast<int64_t>(args.a[1]),
             sig = static_cast<int64_t>(args.a[2]);
  if ((sig != 0 && !signals::valid(sig)) || tgid <= 0 || tid <= 0) return error(EINVAL);
  const SignalSource source{.pid = self->tgid, .code = signals::kSiTkill};
  return send_to_thread(static_cast<uint32_t>(tgid), static_cast<uint32_t>(tid), sig, &source);
}

namespace {

// rt_sigqueueinfo(tgid, sig, info) and rt_tgsigqueueinfo(tgid, tid, sig,
// info): sigqueue() and pthread_sigqueue(), a signal with a value. As
// Linux: another process may be sent only a negative si_code other than
// SI_TKILL (EPERM); si_pid is the caller's, si_value the info's.
int64_t queued_source(Process* self, uint64_t info_va, uint32_t target, SignalSource* source) {
  signals::SigInfo info;
  if (!copy_from_user(self->space(), &info, info_va, sizeof info)) return error(EFAULT);
  if ((info.si_code >= 0 || info.si_code == signals::kSiTkill) && target != self->tgid)
    return error(EPERM);
  *source = SignalSource{.pid = self->tgid, .code = info.si_code};
  __builtin_memcpy(&source->value, info.u.bytes + 8, sizeof source->value);
  return 0;
}

}  // namespace

int64_t sys_rt_sigqueueinfo(Process* self, TrapFrame*, const Args& args) {
  const auto tgid = static_cast<int64_t>(args.a[0]), sig = static_cast<int64_t>(args.a[1]);
  if ((sig != 0 && !signals::valid(sig)) || tgid <= 0 || tgid > 0xffffffff) return error(EINVAL);
  SignalSource source;
  if (const int64_t e = queued_source(self, args.a[2], static_cast<uint32_t>(tgid), &source); e < 0)
    return e;
  return send_to_process(static_cast<uint32_t>(tgid), sig, &source);
}

int64_t sys_rt_tgsigqueueinfo(Process* self, TrapFrame*, const Args& args) {
  const auto tgid = static_cast<int64_t>(args.a[0]), tid = static_cast<int64_t>(args.a[1]),
             sig = static_cast<int64_t>(args.a[2]);
  if ((sig != 0 && !signals::valid(sig)) || tgid <= 0 || tid <= 0 || tgid > 0xffffffff ||
      tid > 0xffffffff)
    return error(EINVAL);
  SignalSource source;
  if (const int64_t e = queued_source(self, args.a[3], static_cast<uint32_t>(tgid), &source); e < 0)
    return e;
  return send_to_thread(static_cast<uint32_t>(tgid), static_cast<uint32_t>(tid), sig, &source);
}

int64_t sys_tkill(Process*, TrapFrame*, const Args& args) {
  const auto tid = static_cast<int64_t>(args.a[0]), sig = static_cast<int64_t>(args.a[1]);
  if ((sig != 0 && !signals::valid(sig)) || tid <= 0) return error(EINVAL);
  return send_to_thread(0, static_cast<uint32_t>(tid), sig);
}

int64_t sys_sigreturn(Process*, TrapFrame* frame, const Args& args) {
  if (!signals::restore(frame, args.a[0], false))
    kill_current(signals::kSigSegv, "bad sigreturn frame", "va", args.a[0], frame->pc);
  return kRegistersSet;
}

int64_t sys_rt_sigreturn(Process*, TrapFrame* frame, const Args& args) {
  if (!signals::restore(frame, args.a[0], true))
    kill_current(signals::kSigSegv, "bad rt_sigreturn frame", "va", args.a[0], frame->pc);
  return kRegistersSet;
}

}  // namespace kernel::sys
