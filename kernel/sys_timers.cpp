// setitimer and getitimer (Linux/Alpha's 361/362, 64-bit struct timeval):
// glibc's alarm() and programs' periodic SIGALRM, SIGVTALRM and SIGPROF
// (kernel/itimers.h); timerfd_create, timerfd_settime, timerfd_gettime
// (kernel/timerfd.h).
#include "kernel/clock.h"
#include "kernel/files.h"
#include "kernel/itimers.h"
#include "kernel/linux_errno.h"
#include "kernel/syscall_handlers.h"
#include "kernel/timerfd.h"
#include "kernel/udiv.h"

namespace kernel::sys {
namespace {

constexpr uint64_t kCyclesPerUsec = clock::kCyclesPerSecond / 1'000'000;

struct Timeval {
  int64_t sec, usec;
};
struct Itimerval {
  Timeval interval, value;
};
static_assert(sizeof(Itimerval) == 32);  // Linux/Alpha's struct itimerval

// Rounded up: a timer with a few cycles left is not reported disarmed.
Timeval to_timeval(uint64_t cycles) {
  uint64_t usec;
  const uint64_t sec = udiv(udiv(cycles + kCyclesPerUsec - 1, kCyclesPerUsec), 1'000'000, &usec);
  return {static_cast<int64_t>(sec), static_cast<int64_t>(usec)};
}

Itimerval to_itimerval(const itimers::Setting& s) {
  return {to_timeval(s.interval), to_timeval(s.value)};
}

// struct itimerspec: interval, then value (struct timespec each).
struct Itimerspec {
  int64_t interval_sec, interval_nsec, value_sec, value_nsec;
};
static_assert(sizeof(Itimerspec) == 32);

// Rounded up to the nanosecond, as to_timeval.
Itimerspec to_itimerspec(uint64_t value, uint64_t interval) {
  constexpr uint64_t kCyclesPerSec = clock::kCyclesPerSecond,
                     kNsPerCycle = 1'000'000'000 / kCyclesPerSec;
  uint64_t value_rest, interval_rest;
  const uint64_t value_sec = udiv(value, kCyclesPerSec, &value_rest);
  const uint64_t interval_sec = udiv(interval, kCyclesPerSec, &interval_rest);
  return {static_cast<int64_t>(interval_sec), static_cast<int64_t>(interval_rest * kNsPerCycle),
          static_cast<int64_t>(value_sec), static_cast<int64_t>(value_rest * kNsPerCycle)};
}

constexpr uint64_t kClockRealtime = 0, kClockMonotonic = 1, kClockBoottime = 7;
constexpr uint64_t kTfdNonblock = 04, kTfdCloexec = 010000000, kTfdTimerAbstime = 1,
                   kTfdTimerCancelOnSet = 2;

// The timerfd at `fd`: nullptr and *e = EBADF or EINVAL.
OpenFile* timer_at(Process* self, uint64_t fd, int64_t* e) {
  return file_of_kind(self->fds, fd, OpenFile::kTimerfd, EINVAL, e);
}

}  // namespace

bool timeval_cycles(int64_t sec, int64_t usec, uint64_t* cycles) {
  if (sec < 0 || usec < 0 || usec >= 1'000'000) return false;
  *cycles = (static_cast<uint64_t>(sec) * 1'000'000 + static_cast<uint64_t>(usec)) * kCyclesPerUsec;
  return true;
}

// setitimer(which, new or NULL (disarm, as Linux), old or NULL)
int64_t sys_setitimer(Process* self, TrapFrame*, const Args& args) {
  const uint64_t which = args.a[0];
  if (which > itimers::kProf) return error(EINVAL);
  Itimerval wanted{};
  if (args.a[1] != 0 && !copy_from_user(self->space(), &wanted, args.a[1], sizeof wanted))
    return error(EFAULT);
  itimers::Setting setting{};
  if (!timeval_cycles(wanted.value.sec, wanted.value.usec, &setting.value) ||
      !timeval_cycles(wanted.interval.sec, wanted.interval.usec, &setting.interval))
    return error(EINVAL);
  if (setting.value == 0) setting.interval = 0;  // disarmed: Linux keeps no interval
  const Itimerval old = to_itimerval(itimers::set(self, which, setting));
  if (args.a[2] != 0 && !copy_to_user(self->space(), args.a[2], &old, sizeof old))
    return error(EFAULT);
  return 0;
}

int64_t sys_getitimer(Process* self, TrapFrame*, const Args& args) {
  const uint64_t which = args.a[0];
  if (which > itimers::kProf) return error(EINVAL);
  const Itimerval now = to_itimerval(itimers::get(self, which));
  return copy_to_user(self->space(), args.a[1], &now, sizeof now) ? 0 : error(EFAULT);
}

// timerfd_create(clock, flags): every clock here is the virtual clock.
int64_t sys_timerfd_create(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] != kClockRealtime && args.a[0] != kClockMonotonic && args.a[0] != kClockBoottime)
    return error(EINVAL);
  if (args.a[1] & ~(kTfdNonblock | kTfdCloexec)) return error(EINVAL);
  OpenFile timer{};
  timer.kind = OpenFile::kTimerfd;
  timer.flags = static_cast<uint32_t>(LINUX_O_RDWR | (args.a[1] & kTfdNonblock));
  return open_description(self->fds, timer, args.a[1] & kTfdCloexec);
}

// timerfd_settime(fd, flags, new, old or NULL); TFD_TIMER_ABSTIME: the
// value is a time since boot (the virtual clock's), at once if passed.
int64_t sys_timerfd_settime(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* timer = timer_at(self, args.a[0], &e);
  if (timer == nullptr) return e;
  if (args.a[1] & ~(kTfdTimerAbstime | kTfdTimerCancelOnSet)) return error(EINVAL);
  uint64_t interval, value;
  if ((e = timespec_cycles(self, args.a[2], &interval)) < 0) return e;
  if ((e = timespec_cycles(self, args.a[2] + 16, &value)) < 0) return e;
  if (value != 0 && (args.a[1] & kTfdTimerAbstime)) {
    const uint64_t now = clock::cycles();
    value = value > now ? value - now : 1;
  }
  uint64_t old_value, old_interval;
  timerfd::set(timer, value, interval, &old_value, &old_interval);
  const Itimerspec old = to_itimerspec(old_value, old_interval);
  if (args.a[3] != 0 && !copy_to_user(self->space(), args.a[3], &old, sizeof old))
    return error(EFAULT);
  return 0;
}

int64_t sys_timerfd_gettime(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* timer = timer_at(self, args.a[0], &e);
  if (timer == nullptr) return e;
  uint64_t value, interval;
  timerfd::get(timer, &value, &interval);
  const Itimerspec now = to_itimerspec(value, interval);
  return copy_to_user(self->space(), args.a[1], &now, sizeof now) ? 0 : error(EFAULT);
}

}  // namespace kernel::sys
