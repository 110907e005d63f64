#include "kernel/itimers.h"

#include "kernel/clock.h"
#include "kernel/irq_lock.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"

namespace kernel::itimers {
namespace {

constexpr uint64_t kTickCycles = clock::kCyclesPerSecond / 100;
// The earliest ITIMER_REAL expiry of any process (0: none), so that a tick
// scans the process table only when one is due. Under sched::lock.
uint64_t earliest_real = 0;

void note_real_locked(uint64_t deadline) {
  if (deadline != 0 && (earliest_real == 0 || deadline < earliest_real)) earliest_real = deadline;
}

// The next expiry of a periodic timer that was due at `deadline`: one signal
// for every overrun, as Linux's (a pending signal is not queued twice).
uint64_t reload(uint64_t deadline, uint64_t interval, uint64_t now) {
  if (interval == 0) return 0;
  do deadline += interval;
  while (deadline <= now);
  return deadline;
}

// A live process's leader: one slot per group that can still take a signal.
bool live_leader(const Process& p) {
  return p.state != ProcessState::kFree && !p.kernel_thread && p.pid == p.tgid &&
         p.group != nullptr && p.group->threads > 0 && !p.group->exiting;
}

void expire_real_locked(uint64_t now) {
  earliest_real = 0;
  for (uint32_t i = 0; i < process_slot_count(); ++i) {
    Process& p = process_slots()[i];
    if (!live_leader(p) || p.group->real_deadline == 0) continue;
    ThreadGroup& g = *p.group;
    if (g.real_deadline <= now) {
      signals::send_group_locked(&p, signals::kSigAlrm);
      g.real_deadline = reload(g.real_deadline, g.real_interval, now);
    }
    note_real_locked(g.real_deadline);
  }
}

// One tick of CPU time off a CPU-time timer; true when it expired.
bool charge(uint64_t& left, uint64_t interval) {
  if (left == 0) return false;
  if (left > kTickCycles) {
    left -= kTickCycles;
    return false;
  }
  left = interval;
  return true;
}

void charge_running_locked(Process* self, bool user_mode) {
  if (self->kernel_thread || self->idle || self->group == nullptr) return;
  ThreadGroup& g = *self->group;
  if (g.virtual_left == 0 && g.prof_left == 0) return;
  Process* leader = find_process_locked(self->tgid);
  if (leader == nullptr) return;
  if (user_mode && charge(g.virtual_left, g.virtual_interval))
    signals::send_group_locked(leader, signals::kSigVtalrm);
  if (charge(g.prof_left, g.prof_interval)) signals::send_group_locked(leader, signals::kSigProf);
}

}  // namespace

Setting set(Process* self, uint64_t which, const Setting& setting) {
  const Setting old = get(self, which);
  IrqLockGuard guard(sched::lock);
  ThreadGroup& g = *self->group;
  if (which == kReal) {
    g.real_deadline = setting.value ? clock::cycles() + setting.value : 0;
    g.real_interval = setting.interval;
    note_real_locked(g.real_deadline);
  } else if (which == kVirtual) {
    g.virtual_left = setting.value;
    g.virtual_interval = setting.interval;
  } else {
    g.prof_left = setting.value;
    g.prof_interval = setting.interval;
  }
  return old;
}

Setting get(const Process* self, uint64_t which) {
  IrqLockGuard guard(sched::lock);
  const ThreadGroup& g = *self->group;
  if (which == kVirtual) return {g.virtual_left, g.virtual_interval};
  if (which == kProf) return {g.prof_left, g.prof_interval};
  const uint64_t now = clock::cycles();
  // Due but not yet noticed by a tick: Linux reports a tiny value, not 0
  // (which would read as disarmed).
  const uint64_t left = g.real_deadline == 0    ? 0
                        : g.real_deadline > now ? g.real_deadline - now
                                                : 1;
  return {left, g.real_interval};
}

void tick(const TrapFrame* frame) {
  const uint64_t now = clock::cycles();
  const bool real_due = __atomic_load_n(&earliest_real, __ATOMIC_RELAXED) != 0 &&
                        now >= __atomic_load_n(&earliest_real, __ATOMIC_RELAXED);
  Process* self = current();
  const bool cpu_timers = self->group != nullptr && !self->kernel_thread &&
                          (self->group->virtual_left | self->group->prof_left) != 0;
  if (!real_due && !cpu_timers) return;
  IrqLockGuard guard(sched::lock);
  if (real_due) expire_real_locked(now);
  if (cpu_timers) charge_running_locked(self, (frame->ps & PS_USER_MODE) != 0);
}

}  // namespace kernel::itimers
