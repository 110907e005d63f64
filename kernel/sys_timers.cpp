// setitimer and getitimer (Linux/Alpha's 361/362, 64-bit struct timeval):
// glibc's alarm() and programs' periodic SIGALRM, SIGVTALRM and SIGPROF
// (kernel/itimers.h).
#include "kernel/clock.h"
#include "kernel/itimers.h"
#include "kernel/linux_errno.h"
#include "kernel/syscall_handlers.h"
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

}  // namespace kernel::sys
