// Priorities and scheduling policies (getpriority, setpriority, the sched_*
// calls) as benchmark harnesses set them. The scheduler is round robin over
// one queue (kernel/scheduler.h): a thread's nice value and policy are kept,
// inherited and reported, not weighed. Real-time policies are refused
// (EPERM, with a console line): nothing here could give them their meaning.
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/scheduler.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

constexpr uint64_t kPrioProcess = 0, kPrioUser = 2;
constexpr int64_t kNiceMin = -20, kNiceMax = 19;
constexpr uint32_t kSchedOther = 0, kSchedFifo = 1, kSchedRr = 2, kSchedBatch = 3, kSchedIdle = 5;
constexpr uint64_t kTickNs = 10'000'000;  // the round-robin quantum: one tick

bool known_policy(uint64_t policy) { return policy <= kSchedBatch || policy == kSchedIdle; }
bool real_time(uint64_t policy) { return policy == kSchedFifo || policy == kSchedRr; }

// The thread `who` names (0: the caller) for PRIO_PROCESS and the sched_*
// calls; PRIO_PGRP and PRIO_USER act on the caller alone: its own group
// (0 or its id) and root, the only user.
Process* target_locked(Process* self, uint64_t which, uint64_t who) {
  if (which == kPrioProcess || who == 0) return thread_or_self_locked(self, who);
  return which == kPrioUser || who == self->group->pgid ? self : nullptr;
}

int64_t refuse_real_time(Process* self) {
  kprintf("dcpi-kernel: pid %u (%s): real-time scheduling is not available here (EPERM)\n",
          self->tgid, self->name);
  return error(EPERM);
}

}  // namespace

Process* thread_or_self_locked(Process* self, uint64_t tid) {
  return tid == 0 ? self : find_thread_locked(static_cast<uint32_t>(tid));
}

// getpriority(which, who): Linux/Alpha returns the nice value itself (the
// OSF convention, negative values are successes), so v0 and a3 are set here.
int64_t sys_getpriority(Process* self, TrapFrame* frame, const Args& args) {
  if (args.a[0] > kPrioUser) return error(EINVAL);
  int32_t nice;
  {
    IrqLockGuard guard(sched::lock);
    const Process* target = target_locked(self, args.a[0], args.a[1]);
    if (target == nullptr) return error(ESRCH);
    nice = target->nice;
  }
  frame->reg(0) = static_cast<uint64_t>(static_cast<int64_t>(nice));
  frame->reg(19) = 0;
  return kRegistersSet;
}

int64_t sys_setpriority(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] > kPrioUser) return error(EINVAL);
  int64_t nice = static_cast<int32_t>(args.a[2]);
  nice = nice < kNiceMin ? kNiceMin : nice > kNiceMax ? kNiceMax : nice;
  IrqLockGuard guard(sched::lock);
  Process* target = target_locked(self, args.a[0], args.a[1]);
  if (target == nullptr) return error(ESRCH);
  target->nice = static_cast<int32_t>(nice);
  return 0;
}

int64_t sys_sched_get_priority_max(Process*, TrapFrame*, const Args& args) {
  if (!known_policy(args.a[0])) return error(EINVAL);
  return real_time(args.a[0]) ? 99 : 0;
}

int64_t sys_sched_get_priority_min(Process*, TrapFrame*, const Args& args) {
  if (!known_policy(args.a[0])) return error(EINVAL);
  return real_time(args.a[0]) ? 1 : 0;
}

int64_t sys_sched_getscheduler(Process* self, TrapFrame*, const Args& args) {
  IrqLockGuard guard(sched::lock);
  const Process* target = target_locked(self, kPrioProcess, args.a[0]);
  return target ? static_cast<int64_t>(target->sched_policy) : error(ESRCH);
}

// sched_setscheduler(pid, policy, struct sched_param*): the time-sharing
// policies with priority 0.
int64_t sys_sched_setscheduler(Process* self, TrapFrame*, const Args& args) {
  const uint64_t policy = args.a[1] & ~uint64_t{0x40000000};  // SCHED_RESET_ON_FORK
  int32_t priority;
  if (!known_policy(policy)) return error(EINVAL);
  if (!copy_from_user(self->space(), &priority, args.a[2], sizeof priority)) return error(EFAULT);
  if (real_time(policy))
    return priority < 1 || priority > 99 ? error(EINVAL) : refuse_real_time(self);
  if (priority != 0) return error(EINVAL);
  IrqLockGuard guard(sched::lock);
  Process* target = target_locked(self, kPrioProcess, args.a[0]);
  if (target == nullptr) return error(ESRCH);
  target->sched_policy = static_cast<uint32_t>(policy);
  return 0;
}

int64_t sys_sched_getparam(Process* self, TrapFrame*, const Args& args) {
  {
    IrqLockGuard guard(sched::lock);
    if (target_locked(self, kPrioProcess, args.a[0]) == nullptr) return error(ESRCH);
  }
  const int32_t priority = 0;  // every policy kept here has priority 0
  return copy_to_user(self->space(), args.a[1], &priority, sizeof priority) ? 0 : error(EFAULT);
}

int64_t sys_sched_setparam(Process* self, TrapFrame*, const Args& args) {
  int32_t priority;
  if (!copy_from_user(self->space(), &priority, args.a[1], sizeof priority)) return error(EFAULT);
  IrqLockGuard guard(sched::lock);
  if (target_locked(self, kPrioProcess, args.a[0]) == nullptr) return error(ESRCH);
  return priority == 0 ? 0 : error(EINVAL);
}

// The round-robin quantum: a thread runs until the next 10 ms tick.
int64_t sys_sched_rr_get_interval(Process* self, TrapFrame*, const Args& args) {
  {
    IrqLockGuard guard(sched::lock);
    if (target_locked(self, kPrioProcess, args.a[0]) == nullptr) return error(ESRCH);
  }
  const int64_t timespec[2] = {0, static_cast<int64_t>(kTickNs)};
  return copy_to_user(self->space(), args.a[1], timespec, sizeof timespec) ? 0 : error(EFAULT);
}

}  // namespace kernel::sys
