// Interval timers (setitimer/getitimer, glibc's alarm()): per process, as
// Linux keeps them in its signal_struct. ITIMER_REAL counts virtual time and
// sends SIGALRM; ITIMER_VIRTUAL counts the process's user-mode time (SIGVTALRM)
// and ITIMER_PROF its user and kernel time (SIGPROF), both charged a whole
// scheduler tick (10 ms) at a time to the process a tick finds running, as
// Linux's tick-based accounting does. Expiries are noticed at ticks, so a
// timer fires up to one tick late. Not inherited by fork (a fresh group).
#pragma once
#include <cstdint>

#include "kernel/process.h"
#include "kernel/traps.h"

namespace kernel::itimers {

inline constexpr uint64_t kReal = 0, kVirtual = 1, kProf = 2;

// A timer's value and reload interval, in cycles (0: disarmed / one-shot).
struct Setting {
  uint64_t value, interval;
};

// Arms (value != 0) or disarms timer `which` of the current process and
// returns what was set before. `which` must be kReal, kVirtual or kProf.
Setting set(Process* self, uint64_t which, const Setting& setting);
// What is left of timer `which` and its interval.
Setting get(const Process* self, uint64_t which);

// At every scheduler tick on every CPU (kernel/traps.cpp): charges the
// process running here, sends the signals of expired timers.
void tick(const TrapFrame* frame);

}  // namespace kernel::itimers
