// setitimer and getitimer (Linux/Alpha's 361/362, 64-bit struct timeval):
// glibc's alarm() and programs' periodic SIGALRM, SIGVTALRM and SIGPROF
// (kernel/itimers.h); timerfd_create, timerfd_settime, timerfd_gettime
// (kernel/timerfd.h); the POSIX timers timer_create .. timer_delete
// (kernel/posix_timers.h).
#include "kernel/clock.h"
#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/itimers.h"
#include "kernel/linux_errno.h"
#include "kernel/posix_timers.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
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

// A struct itimerspec in user memory: its interval and value in cycles.
// 0 or -errno (EFAULT, EINVAL).
int64_t itimerspec_from_user(Process* self, uint64_t va, uint64_t* interval, uint64_t* value) {
  if (const int64_t e = timespec_cycles(self, va, interval); e < 0) return e;
  const int64_t e = timespec_cycles(self, va + 16, value);
  return e < 0 ? e : 0;
}

// `value` and `interval` (cycles) written at `va` as a struct itimerspec:
// 0 or -EFAULT.
int64_t itimerspec_to_user(Process* self, uint64_t va, uint64_t value, uint64_t interval) {
  const Itimerspec spec = to_itimerspec(value, interval);
  return copy_to_user(self->space(), va, &spec, sizeof spec) ? 0 : error(EFAULT);
}

constexpr uint64_t kClockRealtime = 0, kClockMonotonic = 1, kClockProcessCputime = 2,
                   kClockThreadCputime = 3, kClockBoottime = 7;
constexpr uint64_t kTfdNonblock = 04, kTfdCloexec = 010000000, kTfdTimerAbstime = 1,
                   kTfdTimerCancelOnSet = 2;

// The timerfd at `fd`: nullptr and *e = EBADF or EINVAL.
OpenFile* timer_at(Process* self, uint64_t fd, int64_t* e) {
  return file_of_kind(self->fds, fd, OpenFile::kTimerfd, EINVAL, e);
}

// struct sigevent (asm-generic/siginfo.h): sigev_value, sigev_signo,
// sigev_notify, then the union whose first int is SIGEV_THREAD_ID's tid.
struct Sigevent {
  uint64_t value;
  int32_t signo;
  int32_t notify;
  int32_t thread_id;
  int32_t pad[11];
};
static_assert(sizeof(Sigevent) == 64);

constexpr uint64_t kTimerAbstime = 1;

// What timer_create's sigevent asks for; NULL: SIGEV_SIGNAL with SIGALRM and
// the timer's id as the value (Linux). 0 or -errno.
int64_t notify_from_user(Process* self, uint64_t va, posix_timers::Notify* notify) {
  if (va == 0) {
    *notify = {
        .kind = posix_timers::kSigevSignal, .signal = signals::kSigAlrm, .value = 0, .thread = 0};
    return 0;
  }
  Sigevent ev;
  if (!copy_from_user(self->space(), &ev, va, sizeof ev)) return error(EFAULT);
  *notify = {.kind = ev.notify,
             .signal = ev.signo,
             .value = ev.value,
             .thread = static_cast<uint32_t>(ev.thread_id)};
  if (ev.notify == posix_timers::kSigevNone) return 0;
  if (ev.notify != posix_timers::kSigevSignal && ev.notify != posix_timers::kSigevThreadId)
    return error(EINVAL);  // SIGEV_THREAD is glibc's: it asks for SIGEV_THREAD_ID
  if (!signals::valid(ev.signo)) return error(EINVAL);
  if (ev.notify == posix_timers::kSigevThreadId) {
    IrqLockGuard guard(sched::lock);
    const Process* thread = find_thread_locked(notify->thread);
    if (thread == nullptr || thread->tgid != self->tgid) return error(EINVAL);
  }
  return 0;
}

// A timer's clock id: the virtual clock's, or a CPU-time clock as glibc
// passes it (Linux's MAKE_PROCESS_CPUCLOCK/MAKE_THREAD_CPUCLOCK: ~pid << 3,
// bit 2 per thread, the low two bits PROF/VIRT/SCHED, here all the time
// running) for the caller's process or thread (pid 0 or its own).
bool timer_clock(const Process* self, int32_t id, posix_timers::Clock* clock) {
  if (id == kClockRealtime || id == kClockMonotonic || id == kClockBoottime) {
    *clock = id == kClockRealtime ? posix_timers::Clock::kWall : posix_timers::Clock::kVirtual;
    return true;
  }
  bool per_thread = id == kClockThreadCputime;
  if (id != kClockProcessCputime && id != kClockThreadCputime) {
    if (id >= 0 || (id & 3) == 3) return false;
    per_thread = (id & 4) != 0;
    const auto pid = static_cast<uint32_t>(~(id >> 3));
    if (pid != 0 && pid != (per_thread ? self->pid : self->tgid)) return false;
  }
  *clock = per_thread ? posix_timers::Clock::kThreadCpu : posix_timers::Clock::kProcessCpu;
  return true;
}

}  // namespace

// timer_create(clock, sigevent or NULL, &id): the virtual clock for
// REALTIME, MONOTONIC and BOOTTIME; the caller's process's or thread's CPU
// time (posix_timers.h). Other clocks (another process's CPU clock, the
// _ALARM ones): EINVAL.
int64_t sys_timer_create(Process* self, TrapFrame*, const Args& args) {
  posix_timers::Clock clock;
  if (!timer_clock(self, static_cast<int32_t>(args.a[0]), &clock)) return error(EINVAL);
  posix_timers::Notify notify;
  if (const int64_t e = notify_from_user(self, args.a[1], &notify); e < 0) return e;
  // Linux: without a sigevent the signal's value is the timer's id.
  const int64_t id = posix_timers::create(self, clock, notify, args.a[1] == 0);
  if (id < 0) return id;
  const auto user_id = static_cast<int32_t>(id);
  if (!copy_to_user(self->space(), args.a[2], &user_id, sizeof user_id)) {
    posix_timers::remove(self, user_id);
    return error(EFAULT);
  }
  return 0;
}

// timer_settime(id, flags, new, old or NULL); TIMER_ABSTIME: the value is
// a time on the clock (since boot here), at once if passed.
int64_t sys_timer_settime(Process* self, TrapFrame*, const Args& args) {
  if (args.a[1] & ~kTimerAbstime) return error(EINVAL);
  uint64_t interval, value;
  if (const int64_t e = itimerspec_from_user(self, args.a[2], &interval, &value); e < 0) return e;
  uint64_t old_value, old_interval;
  const int64_t e =
      posix_timers::set(self, static_cast<int32_t>(args.a[0]), value,
                        (args.a[1] & kTimerAbstime) != 0, interval, &old_value, &old_interval);
  if (e < 0) return e;
  return args.a[3] != 0 ? itimerspec_to_user(self, args.a[3], old_value, old_interval) : 0;
}

int64_t sys_timer_gettime(Process* self, TrapFrame*, const Args& args) {
  uint64_t value, interval;
  const int64_t e = posix_timers::get(self, static_cast<int32_t>(args.a[0]), &value, &interval);
  if (e < 0) return e;
  return itimerspec_to_user(self, args.a[1], value, interval);
}

int64_t sys_timer_getoverrun(Process* self, TrapFrame*, const Args& args) {
  return posix_timers::overrun(self, static_cast<int32_t>(args.a[0]));
}

int64_t sys_timer_delete(Process* self, TrapFrame*, const Args& args) {
  return posix_timers::remove(self, static_cast<int32_t>(args.a[0]));
}

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

// timerfd_create(clock, flags): the virtual clock, which CLOCK_REALTIME
// reads from the wall clock's start (clock::realtime_cycles).
int64_t sys_timerfd_create(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] != kClockRealtime && args.a[0] != kClockMonotonic && args.a[0] != kClockBoottime)
    return error(EINVAL);
  if (args.a[1] & ~(kTfdNonblock | kTfdCloexec)) return error(EINVAL);
  OpenFile timer{};
  timer.kind = OpenFile::kTimerfd;
  timer.timer_wall = args.a[0] == kClockRealtime;
  timer.flags = static_cast<uint32_t>(LINUX_O_RDWR | (args.a[1] & kTfdNonblock));
  return open_description(self->fds, timer, args.a[1] & kTfdCloexec);
}

// timerfd_settime(fd, flags, new, old or NULL); TFD_TIMER_ABSTIME: the
// value is a time on the timer's clock (the wall clock's for
// CLOCK_REALTIME, else since boot), at once if passed.
int64_t sys_timerfd_settime(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* timer = timer_at(self, args.a[0], &e);
  if (timer == nullptr) return e;
  if (args.a[1] & ~(kTfdTimerAbstime | kTfdTimerCancelOnSet)) return error(EINVAL);
  uint64_t interval, value;
  if ((e = itimerspec_from_user(self, args.a[2], &interval, &value)) < 0) return e;
  if (value != 0 && (args.a[1] & kTfdTimerAbstime)) {
    if (timer->timer_wall) value = clock::boot_cycles_of_realtime(value);
    const uint64_t now = clock::cycles();
    value = value > now ? value - now : 1;
  }
  uint64_t old_value, old_interval;
  timerfd::set(timer, value, interval, &old_value, &old_interval);
  return args.a[3] != 0 ? itimerspec_to_user(self, args.a[3], old_value, old_interval) : 0;
}

int64_t sys_timerfd_gettime(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* timer = timer_at(self, args.a[0], &e);
  if (timer == nullptr) return e;
  uint64_t value, interval;
  timerfd::get(timer, &value, &interval);
  return itimerspec_to_user(self, args.a[1], value, interval);
}

}  // namespace kernel::sys
