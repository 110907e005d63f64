#include "kernel/timerfd.h"

#include "kernel/clock.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/readiness.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/udiv.h"

namespace kernel::timerfd {
namespace {

constexpr uint32_t kONonblock = 04;  // Linux/Alpha's O_NONBLOCK
constexpr uint32_t kPollIn = 1;

// The expirations up to now join the count (`offset`); the deadline moves
// on by whole intervals, or the timer disarms. With sched::lock held.
void catch_up_locked(OpenFile* t) {
  const uint64_t now = clock::cycles();
  if (t->timer_deadline == 0 || now < t->timer_deadline) return;
  if (t->timer_interval == 0) {
    ++t->offset;
    t->timer_deadline = 0;
    return;
  }
  const uint64_t more = udiv(now - t->timer_deadline, t->timer_interval) + 1;
  t->offset += more;
  t->timer_deadline += more * t->timer_interval;
}

uint64_t left_locked(const OpenFile* t) {
  const uint64_t now = clock::cycles();
  return t->timer_deadline > now ? t->timer_deadline - now : 0;
}

}  // namespace

void set(OpenFile* t, uint64_t value, uint64_t interval, uint64_t* old_value,
         uint64_t* old_interval) {
  IrqLockGuard guard(sched::lock);
  catch_up_locked(t);
  *old_value = left_locked(t);
  *old_interval = t->timer_interval;
  t->offset = 0;
  t->timer_deadline = value ? clock::cycles() + value : 0;
  t->timer_interval = value ? interval : 0;
}

void get(OpenFile* t, uint64_t* value, uint64_t* interval) {
  IrqLockGuard guard(sched::lock);
  catch_up_locked(t);
  *value = left_locked(t);
  *interval = t->timer_interval;
}

int64_t read(Process* self, OpenFile* t, uint64_t buffer, uint64_t count) {
  if (count < 8) return -EINVAL;
  uint64_t expirations;
  {
    IrqLockGuard guard(sched::lock);
    for (catch_up_locked(t); t->offset == 0; catch_up_locked(t)) {
      if (t->flags & kONonblock) return -EAGAIN;
      if (signals::interrupted(self)) return -EINTR;
      // A tick at most: another thread may arm or re-arm it meanwhile.
      const uint64_t tick = clock::cycles() + readiness::kTickCycles;
      sched::sleep_locked(t->timer_deadline && t->timer_deadline < tick ? t->timer_deadline : tick);
    }
    expirations = t->offset;
    t->offset = 0;
  }
  return copy_to_user(self->space(), buffer, &expirations, 8) ? 8 : -EFAULT;
}

uint32_t poll_events(OpenFile* t) {
  IrqLockGuard guard(sched::lock);
  catch_up_locked(t);
  return t->offset > 0 ? kPollIn : 0;
}

}  // namespace kernel::timerfd
