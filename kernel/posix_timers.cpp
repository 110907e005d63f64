#include "kernel/posix_timers.h"

#include "kernel/clock.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/scheduler.h"
#include "kernel/signal_frame.h"
#include "kernel/signals.h"
#include "kernel/udiv.h"

namespace kernel::posix_timers {
namespace {

// Linux's default per-process limit is RLIMIT_SIGPENDING; a small kernel
// pool shared by every process is enough for the programs this kernel runs.
constexpr uint32_t kTimers = 128;

struct Timer {
  const ThreadGroup* group;  // nullptr: free
  uint32_t tgid;             // its process (the leader's pid)
  int32_t id;                // per process, from 0 (Linux's first id)
  Clock clock;
  uint32_t clock_thread;  // kThreadCpu: the thread whose time it counts
  Notify notify;
  uint64_t deadline;  // cycles on its clock; 0: disarmed
  uint64_t interval;
  int32_t overrun;  // expiries its pending signal stands for beyond the first (timer_getoverrun)
};

Timer timers[kTimers];
uint64_t earliest = 0;   // of any armed virtual-clock timer; 0: none (read without the lock)
uint32_t cpu_armed = 0;  // armed CPU-time timers: every tick looks at them

void note_deadline_locked(uint64_t deadline) {
  if (deadline != 0 && (earliest == 0 || deadline < earliest))
    __atomic_store_n(&earliest, deadline, __ATOMIC_RELAXED);
}

bool on_virtual_clock(const Timer& t) {
  return t.clock == Clock::kVirtual || t.clock == Clock::kWall;
}

// The timer's clock now: virtual time, or its process's or thread's CPU
// time (kernel/process.h group_cycles_locked, thread_cycles).
uint64_t now_on_locked(const Timer& t) {
  switch (t.clock) {
    case Clock::kVirtual:
    case Clock::kWall:
      return clock::cycles();
    case Clock::kProcessCpu:
      return group_cycles_locked(t.group);
    case Clock::kThreadCpu: {
      const Process* thread = find_thread_locked(t.clock_thread);
      return thread != nullptr ? thread_cycles(thread) : 0;
    }
  }
  return 0;
}

// Arms or disarms `t` (deadline on its clock; 0: off), keeping the counts
// the tick looks at.
void arm_locked(Timer& t, uint64_t deadline) {
  if (!on_virtual_clock(t)) cpu_armed += (deadline != 0) - (t.deadline != 0);
  t.deadline = deadline;
  if (on_virtual_clock(t)) note_deadline_locked(deadline);
}

// What is left of `t` on its clock at `now`: 0 when disarmed, at least 1
// when due (a timer with nothing left is not reported disarmed).
uint64_t remaining(const Timer& t, uint64_t now) {
  if (t.deadline == 0) return 0;
  return t.deadline > now ? t.deadline - now : 1;
}

// The slot free again.
void free_locked(Timer& t) {
  arm_locked(t, 0);
  t = Timer{};
}

Timer* find_locked(const Process* self, int32_t id) {
  for (Timer& t : timers)
    if (t.group != nullptr && t.group == self->group && t.id == id) return &t;
  return nullptr;
}

// The thread or process the expiry goes to; nullptr if it is gone.
Process* target_locked(const Timer& t) {
  if (t.notify.kind == kSigevThreadId) {
    Process* thread = find_thread_locked(t.notify.thread);
    return thread != nullptr && thread->tgid == t.tgid ? thread : nullptr;
  }
  return find_process_locked(t.tgid);
}

// `skipped`: periods that passed between two ticks, overruns of this expiry.
void expire_locked(Timer& t, int32_t skipped) {
  if (t.notify.kind == kSigevNone) return;
  Process* target = target_locked(t);
  if (target == nullptr || target->group == nullptr || target->group->exiting) return;
  const int sig = t.notify.signal;
  const uint64_t pending = target->group->pending | target->pending;
  SignalSource& source = target->group->source[sig - 1];
  if ((pending & signals::bit(sig)) && source.code == signals::kSiTimer && source.timer == t.id) {
    source.overrun += 1 + skipped;  // still pending: Linux counts it instead of queueing another
    t.overrun = source.overrun;
    return;
  }
  t.overrun = skipped;
  const SignalSource timer{.pid = 0,
                           .code = signals::kSiTimer,
                           .value = t.notify.value,
                           .timer = t.id,
                           .overrun = skipped};
  if (t.notify.kind == kSigevThreadId)
    signals::send_thread_locked(target, sig, &timer);
  else
    signals::send_group_locked(target, sig, &timer);
}

// The next deadline after `now` of a periodic timer; *skipped: the periods
// that also passed (overruns).
uint64_t reload(const Timer& t, uint64_t now, int32_t* skipped) {
  const uint64_t periods = udiv(now - t.deadline, t.interval);  // whole periods past the first
  *skipped = periods > 0x7fffffff ? 0x7fffffff : static_cast<int32_t>(periods);
  return t.deadline + (periods + 1) * t.interval;
}

}  // namespace

int64_t create(Process* self, Clock clock, const Notify& notify, bool value_is_id) {
  IrqLockGuard guard(sched::lock);
  int32_t id = 0;
  while (find_locked(self, id) != nullptr) ++id;
  for (Timer& t : timers) {
    if (t.group != nullptr) continue;
    t = Timer{.group = self->group,
              .tgid = self->tgid,
              .id = id,
              .clock = clock,
              .clock_thread = self->pid,
              .notify = notify,
              .deadline = 0,
              .interval = 0,
              .overrun = 0};
    if (value_is_id) t.notify.value = static_cast<uint64_t>(id);
    return id;
  }
  return -EAGAIN;
}

int64_t set(Process* self, int32_t id, uint64_t value, bool absolute, uint64_t interval,
            uint64_t* old_value, uint64_t* old_interval) {
  IrqLockGuard guard(sched::lock);
  Timer* t = find_locked(self, id);
  if (t == nullptr) return -EINVAL;
  const uint64_t now = now_on_locked(*t);
  *old_value = remaining(*t, now);
  *old_interval = t->interval;
  if (value != 0 && absolute && t->clock == Clock::kWall)
    value = clock::boot_cycles_of_realtime(value);
  if (value != 0 && absolute) value = value > now ? value - now : 1;
  arm_locked(*t, value != 0 ? now + value : 0);
  t->interval = value != 0 ? interval : 0;
  t->overrun = 0;
  return 0;
}

int64_t get(Process* self, int32_t id, uint64_t* value, uint64_t* interval) {
  IrqLockGuard guard(sched::lock);
  const Timer* t = find_locked(self, id);
  if (t == nullptr) return -EINVAL;
  *value = remaining(*t, now_on_locked(*t));
  *interval = t->interval;
  return 0;
}

int64_t overrun(Process* self, int32_t id) {
  IrqLockGuard guard(sched::lock);
  const Timer* t = find_locked(self, id);
  return t == nullptr ? -EINVAL : t->overrun;
}

int64_t remove(Process* self, int32_t id) {
  IrqLockGuard guard(sched::lock);
  Timer* t = find_locked(self, id);
  if (t == nullptr) return -EINVAL;
  free_locked(*t);
  return 0;
}

void release_group_locked(const ThreadGroup* group) {
  for (Timer& t : timers)
    if (t.group == group) free_locked(t);
}

void tick() {
  const uint64_t due = __atomic_load_n(&earliest, __ATOMIC_RELAXED);
  const bool virtual_due = due != 0 && clock::cycles() >= due;
  if (!virtual_due && __atomic_load_n(&cpu_armed, __ATOMIC_RELAXED) == 0) return;
  IrqLockGuard guard(sched::lock);
  earliest = 0;
  for (Timer& t : timers) {
    if (t.group == nullptr || t.deadline == 0) continue;
    const uint64_t now = now_on_locked(t);
    if (t.deadline <= now) {
      int32_t skipped = 0;
      const uint64_t next = t.interval != 0 ? reload(t, now, &skipped) : 0;
      expire_locked(t, skipped);
      arm_locked(t, next);
    } else if (on_virtual_clock(t)) {
      note_deadline_locked(t.deadline);
    }
  }
}

}  // namespace kernel::posix_timers
