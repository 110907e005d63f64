#include "kernel/signals.h"

#include "driver/kernel_services.h"
#include "kernel/console.h"
#include "kernel/irq_lock.h"
#include "kernel/job_control.h"
#include "kernel/palcalls.h"
#include "kernel/scheduler.h"
#include "kernel/signal_frame.h"
#include "kernel/syscalls.h"

namespace kernel::signals {

int32_t altstack_flags(const Process* self, uint64_t sp) {
  if (self->altstack_size == 0) return kSsDisable;
  // Linux's on_sig_stack: the stack grows down, so its top is outside.
  return sp > self->altstack_sp && sp - self->altstack_sp <= self->altstack_size ? kSsOnstack : 0;
}

namespace {

enum class Default { kIgnore, kTerminate, kCore, kStop };

// Linux's default actions (signal(7)); SIGCONT's continuing is done when
// it is sent, whatever its disposition (jobs::prepare_locked).
Default default_action(int sig) {
  switch (sig) {
    case kSigChld:
    case kSigUrg:
    case kSigWinch:
    case kSigCont:
      return Default::kIgnore;
    case kSigStop:
    case kSigTstp:
    case kSigTtin:
    case kSigTtou:
      return Default::kStop;
    default:
      return dumps_core(sig) ? Default::kCore : Default::kTerminate;
  }
}

bool ignored(const ThreadGroup* group, int sig) {
  const uint64_t handler = group->actions[sig - 1].handler;
  return handler == kSigIgn || (handler == kSigDfl && default_action(sig) == Default::kIgnore);
}

// A stop signal with the default action acts when sent (job_control.h)
// if a thread may take it; a blocked one waits, pending, like any other.
bool stops_by_default(const ThreadGroup* group, int sig) {
  return jobs::is_stop_signal(sig) && group->actions[sig - 1].handler == kSigDfl;
}

// The signals every live thread of `group` blocks (a process's signal is
// taken by any thread that does not block it).
uint64_t blocked_by_all_locked(const ThreadGroup* group) {
  uint64_t blocked = ~uint64_t{0};
  for_each_thread(group, [&blocked](const Process& p) {
    if (p.state != ProcessState::kZombie) blocked &= p.blocked;
  });
  return blocked;
}

// Wakes `p` out of an interruptible sleep if it may take `sig`, or makes
// the CPU running it look now rather than at its next tick.
void wake_for_locked(Process* p, int sig) {
  if ((p->blocked & bit(sig)) && !(p->waited_signals & bit(sig))) return;
  if (p->state == ProcessState::kBlocked && p->interruptible) sched::make_ready_locked(p);
  if (p->state == ProcessState::kRunning) sched::kick_locked(p);
}

// The lowest pending signal the thread does not block, taken off its set
// (the thread's own first, then the process's); 0 if none.
int take_locked(Process* self) {
  uint64_t* const sets[2] = {&self->pending, &self->group->pending};
  for (uint64_t* set : sets) {
    const uint64_t ready = *set & ~self->blocked;
    if (ready == 0) continue;
    const int sig = __builtin_ctzl(ready) + 1;
    *set &= ~bit(sig);
    return sig;
  }
  return 0;
}

// The context the handler will return to: every integer register, the
// user sp, the FP registers (live in the CPU during the trap) and the mask.
void save_context(const TrapFrame* frame, uint64_t usp, uint64_t mask, SigContext* sc) {
  *sc = SigContext{};
  sc->sc_mask = static_cast<int64_t>(mask);
  sc->sc_pc = static_cast<int64_t>(frame->pc);
  sc->sc_ps = 8;  // user mode, as Linux writes it
  auto& regs = const_cast<TrapFrame&>(*frame);
  for (unsigned r = 0; r < 30; ++r) sc->sc_regs[r] = static_cast<int64_t>(regs.reg(r));
  sc->sc_regs[30] = static_cast<int64_t>(usp);
  uint64_t fp[33];
  fp_save(fp);
  fp_restore(fp);  // fp_save clobbers f0
  for (unsigned r = 0; r < 31; ++r) sc->sc_fpregs[r] = static_cast<int64_t>(fp[r]);
  sc->sc_fpcr = fp[32];
  sc->sc_traparg_a0 = frame->a0;
  sc->sc_traparg_a1 = frame->a1;
  sc->sc_traparg_a2 = frame->a2;
}

// Builds the frame below the user sp (the top of the alternate stack for
// an SA_ONSTACK handler when the thread has one and is not on it already)
// and points the trap's return at the handler; false if the user stack
// cannot take it.
bool build_frame(Process* self, TrapFrame* frame, int sig, const SignalAction& act, uint64_t mask) {
  const uint64_t usp = pal::rdusp();
  const bool rt = act.flags & kSaSiginfo;
  const uint64_t bytes = rt ? sizeof(RtSigFrame) : sizeof(SigFrame);
  const bool switch_stack = (act.flags & kSaOnstack) && altstack_flags(self, usp) == 0;
  const uint64_t below = switch_stack ? self->altstack_sp + self->altstack_size : usp;
  const uint64_t at = (below - bytes) & ~uint64_t{31};
  uint64_t context_va, info_va = 0, retcode_va;
  bool ok;
  if (rt) {
    RtSigFrame f{};
    write_siginfo(sig, self->group->source[sig - 1], &f.info);
    save_context(frame, usp, mask, &f.uc.uc_mcontext);
    f.uc.uc_osf_sigmask = f.uc.uc_sigmask = mask;
    f.uc.uc_stack = StackT{self->altstack_sp, altstack_flags(self, usp), 0, self->altstack_size};
    f.retcode[0] = kInsnMovSpA0;
    f.retcode[1] = kInsnLdiV0 + kNrRtSigreturn;
    f.retcode[2] = kInsnCallsys;
    ok = copy_to_user(self->space(), at, &f, sizeof f);
    info_va = at;
    context_va = at + __builtin_offsetof(RtSigFrame, uc);
    retcode_va = at + __builtin_offsetof(RtSigFrame, retcode);
  } else {
    SigFrame f{};
    save_context(frame, usp, mask, &f.sc);
    f.retcode[0] = kInsnMovSpA0;
    f.retcode[1] = kInsnLdiV0 + kNrSigreturn;
    f.retcode[2] = kInsnCallsys;
    ok = copy_to_user(self->space(), at, &f, sizeof f);
    context_va = at;
    retcode_va = at + __builtin_offsetof(SigFrame, retcode);
  }
  if (!ok) return false;
  // QEMU translates code by page and invalidates on writes, so a retcode on
  // the stack needs no imb here; glibc passes a restorer anyway.
  frame->reg(26) = act.restorer ? act.restorer : retcode_va;
  frame->reg(27) = frame->pc = act.handler;
  frame->a0 = static_cast<uint64_t>(sig);
  frame->a1 = info_va;
  frame->a2 = context_va;
  pal::wrusp(at);
  return true;
}

// Linux's ERESTARTSYS: a call a handler interrupted is made again when the
// handler has SA_RESTART (the trap returns to the callsys with v0 and a3 as
// they were); sigsuspend, the sleeps and the descriptor waits return EINTR
// whatever the flags (ERESTARTNOHAND and restart_block in Linux; signal(7):
// "never restarted after being interrupted by a signal handler").
void restart_if_asked(Process* self, TrapFrame* frame, const SignalAction* act) {
  const uint64_t number = self->restart_number;
  self->restart_number = 0;
  if (number == 0 || act == nullptr || !(act->flags & kSaRestart)) return;
  switch (number) {
    case SYS_rt_sigsuspend:
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
    case SYS_poll:
    case SYS_ppoll:
    case SYS_select:
    case SYS_pselect6:
    case SYS_rt_sigtimedwait:
      return;
    default:
      break;
  }
  frame->pc -= 4;
  frame->reg(0) = number;
  frame->reg(19) = self->restart_a3;
}

// A stop signal taken off the pending set (it was blocked when sent).
void stop_self(Process* self, int sig) {
  IrqLockGuard guard(sched::lock);
  jobs::stop_locked(self, sig);
}

[[noreturn]] void die(Process* self, int sig) {
  const int status = death_status(self, sig);
  kprintf("dcpi-kernel: pid %u (%s) killed by signal %d%s\n", self->tgid, self->name, sig,
          (status & 0x80) ? " (core dumped; no core file is written)" : "");
  exit_current(status);
}

}  // namespace

int death_status(const Process* self, int sig) {
  const bool core = dumps_core(sig) && self->group->limits[kRlimitCore][0] != 0;
  return core ? sig | 0x80 : sig;
}

bool dumps_core(int sig) {
  switch (sig) {
    case kSigQuit:
    case kSigIll:
    case kSigTrap:
    case kSigAbrt:
    case kSigEmt:
    case kSigFpe:
    case kSigBus:
    case kSigSegv:
    case kSigSys:
    case kSigXcpu:
    case kSigXfsz:
      return true;
    default:
      return false;
  }
}

namespace {
SignalSource from_caller() { return {.pid = current()->tgid, .code = kSiUser}; }
}  // namespace

// Linux's sig_ignored: a signal the target blocks is kept even if its
// disposition ignores it (sigwait may take it, or a handler set later).
void send_thread_locked(Process* target, int sig, const SignalSource* source) {
  if (target->group == nullptr) return;
  jobs::prepare_locked(target, sig);
  if (ignored(target->group, sig) && !(target->blocked & bit(sig))) return;
  if (stops_by_default(target->group, sig) && !(target->blocked & bit(sig))) {
    jobs::stop_locked(target, sig);
    return;
  }
  target->group->source[sig - 1] = source ? *source : from_caller();
  target->pending |= bit(sig);
  wake_for_locked(target, sig);
}

void send_group_locked(Process* leader, int sig, const SignalSource* source) {
  ThreadGroup* group = leader->group;
  if (group == nullptr) return;
  jobs::prepare_locked(leader, sig);
  if (ignored(group, sig) && !(leader->blocked & bit(sig))) return;
  // Like Linux's init (SIGNAL_UNKILLABLE): init takes only the signals it
  // has a handler for; the others, SIGKILL included, are dropped.
  if (is_init(leader->tgid) && group->actions[sig - 1].handler <= kSigIgn) return;
  if (stops_by_default(group, sig) && !(blocked_by_all_locked(group) & bit(sig))) {
    jobs::stop_locked(leader, sig);
    return;
  }
  group->source[sig - 1] = source ? *source : from_caller();
  group->pending |= bit(sig);
  for_each_thread(group, [sig](Process& p) { wake_for_locked(&p, sig); });
}

int take_waited_locked(Process* self, uint64_t set) {
  uint64_t* const sets[2] = {&self->pending, &self->group->pending};
  for (uint64_t* pending : sets) {
    const uint64_t ready = *pending & set;
    if (ready == 0) continue;
    const int sig = __builtin_ctzl(ready) + 1;
    *pending &= ~bit(sig);
    return sig;
  }
  return 0;
}

const SignalSource& source_of(const Process* self, int sig) { return self->group->source[sig - 1]; }

// Linux's siginfo union (asm-generic/siginfo.h): _kill {pid, uid}, _rt
// {pid, uid, sigval}, _timer {tid, overrun, sigval}: si_value at 8 in both.
void write_siginfo(int sig, const SignalSource& source, SigInfo* info) {
  *info = SigInfo{};
  info->si_signo = sig;
  info->si_code = source.code;
  if (source.code == kSiTimer) {
    info->u.kill.pid = source.timer;
    info->u.kill.uid = static_cast<uint32_t>(source.overrun);
  } else {
    info->u.kill.pid = static_cast<int32_t>(source.pid);
  }
  if (source.code == kSiTimer || source.code == kSiQueue)
    __builtin_memcpy(info->u.bytes + 8, &source.value, sizeof source.value);
  if (sig == kSigChld && source.code > 0) info->u.kill.status = source.status;
}

SignalSource child_end(uint32_t pid, int64_t wait_status) {
  const auto signal = static_cast<int32_t>(wait_status & 0x7f);
  const auto exit_code = static_cast<int32_t>((wait_status >> 8) & 0xff);
  if (signal == 0) return {.pid = pid, .code = kCldExited, .status = exit_code};
  return {.pid = pid, .code = (wait_status & 0x80) ? kCldDumped : kCldKilled, .status = signal};
}

bool interrupted(const Process* self) {
  if (self->group == nullptr) return false;
  return self->group->exiting || ((self->pending | self->group->pending) & ~self->blocked) != 0;
}

namespace {

// deliver's work when there is any: apart, so that the common case (every
// system call's return) saves no registers (its prologue was a third of it).
[[gnu::noinline]] void deliver_pending(Process* self, TrapFrame* frame) {
  for (;;) {
    int sig = 0;
    SignalAction act;
    bool exiting;
    int64_t status;
    {
      IrqLockGuard guard(sched::lock);
      while (jobs::must_park_locked(self)) jobs::park_locked(self);
      exiting = self->group->exiting;
      status = self->group->exit_status;
      if (!exiting) sig = take_locked(self);
      if (sig != 0) {
        act = self->group->actions[sig - 1];
        if (act.handler > kSigIgn && (act.flags & kSaResethand))
          self->group->actions[sig - 1].handler = kSigDfl;
      }
    }
    if (exiting) exit_thread(status);
    // rt_sigsuspend's temporary mask ends here; the handler's frame keeps
    // the one it replaced.
    const uint64_t mask = self->has_saved_blocked ? self->saved_blocked : self->blocked;
    if (sig == 0) {
      self->blocked = mask;
      self->has_saved_blocked = false;
      self->restart_number = 0;
      return;
    }
    if (act.handler == kSigIgn) continue;
    if (act.handler == kSigDfl) {
      if (default_action(sig) == Default::kIgnore) continue;
      if (default_action(sig) == Default::kStop) {
        stop_self(self, sig);  // parks at the loop's top
        continue;
      }
      die(self, sig);
    }
    self->has_saved_blocked = false;
    self->blocked = mask;
    restart_if_asked(self, frame, &act);
    if (!build_frame(self, frame, sig, act, mask)) {
      kprintf("dcpi-kernel: pid %u (%s): no room for the frame of signal %d at sp 0x%lx\n",
              self->tgid, self->name, sig, pal::rdusp());
      exit_current(death_status(self, kSigSegv));
    }
    self->blocked |= (act.mask | ((act.flags & kSaNodefer) ? 0 : bit(sig))) & ~kUnblockable;
    return;
  }
}

}  // namespace

void deliver(TrapFrame* frame) {
  Process* self = current();
  if (self->group == nullptr) return;  // kernel threads
  // The common case on every system call and tick, without the lock: a
  // signal sent meanwhile is seen at the next return (the sender kicks a
  // CPU running the target, sched::kick_locked).
  if (((self->pending | self->group->pending) & ~self->blocked) == 0 && !self->group->exiting &&
      !self->group->stopped && !self->has_saved_blocked && self->restart_number == 0)
    return;
  deliver_pending(self, frame);
}

bool restore(TrapFrame* frame, uint64_t frame_va, bool rt) {
  Process* self = current();
  SigContext sc;
  uint64_t mask;
  if (rt) {
    const uint64_t uc = frame_va + __builtin_offsetof(RtSigFrame, uc);
    if (!copy_from_user(self->space(), &sc, uc + __builtin_offsetof(UContext, uc_mcontext),
                        sizeof sc) ||
        !copy_from_user(self->space(), &mask, uc + __builtin_offsetof(UContext, uc_sigmask), 8))
      return false;
  } else {
    if (!copy_from_user(self->space(), &sc, frame_va, sizeof sc)) return false;
    mask = static_cast<uint64_t>(sc.sc_mask);
  }
  for (unsigned r = 0; r < 30; ++r) frame->reg(r) = static_cast<uint64_t>(sc.sc_regs[r]);
  frame->pc = static_cast<uint64_t>(sc.sc_pc);  // the PS stays user mode whatever sc_ps says
  pal::wrusp(static_cast<uint64_t>(sc.sc_regs[30]));
  uint64_t fp[33];
  for (unsigned r = 0; r < 31; ++r) fp[r] = static_cast<uint64_t>(sc.sc_fpregs[r]);
  fp[31] = 0;
  fp[32] = sc.sc_fpcr;
  fp_restore(fp);
  self->blocked = mask & ~kUnblockable;
  return true;
}

void deliver_with_saved_mask(Process* self, uint64_t mask) {
  self->saved_blocked = mask;
  self->has_saved_blocked = true;
}

bool fault_to_handler(int sig) {
  Process* self = current();
  if (self->group == nullptr) return false;
  IrqLockGuard guard(sched::lock);
  if (self->group->actions[sig - 1].handler <= kSigIgn || (self->blocked & bit(sig))) return false;
  self->pending |= bit(sig);
  return true;
}

}  // namespace kernel::signals
