// POSIX per-process timers (timer_create, timer_settime, timer_gettime,
// timer_getoverrun, timer_delete; Linux/Alpha 414-418), as Linux keeps them
// in its signal_struct: a process's timers, each on CLOCK_REALTIME,
// MONOTONIC or BOOTTIME (all the virtual clock here), notifying by a signal
// to the process (SIGEV_SIGNAL), to one of its threads (SIGEV_THREAD_ID:
// glibc's SIGEV_THREAD, whose helper thread reads si_value), or not at all
// (SIGEV_NONE). The signal carries si_code SI_TIMER, the timer id, the
// overrun and the sigev_value (kernel/signals.h SignalSource). Expiries are
// noticed at scheduler ticks, as the interval timers' (kernel/itimers.h), so
// a timer fires up to one tick (10 ms) late; an expiry while the timer's
// signal is still pending counts as an overrun. CLOCK_PROCESS_CPUTIME_ID and
// CLOCK_THREAD_CPUTIME_ID (the caller's) count the process's or thread's
// time running (clock_gettime's). Deleted at exec and at the process's end;
// not inherited by fork.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::posix_timers {

inline constexpr int32_t kSigevSignal = 0, kSigevNone = 1, kSigevThreadId = 4;

// What a timer counts: the virtual clock (REALTIME, MONOTONIC, BOOTTIME
// alike), or CPU time.
// kWall (CLOCK_REALTIME) runs as kVirtual does; its absolute times are
// wall-clock times (clock::realtime_cycles).
enum class Clock : uint8_t { kVirtual, kWall, kProcessCpu, kThreadCpu };

struct Notify {
  int32_t kind;     // kSigev*
  int32_t signal;   // 1..64 (not for kSigevNone)
  uint64_t value;   // sigev_value, handed back in si_value
  uint32_t thread;  // kSigevThreadId: its tid (a thread of the caller's process)
};

// A new timer of the caller's process: its id (>= 0) or -errno (EAGAIN: the
// kernel's timers are all taken). `value_is_id`: its signal's value is its
// id (timer_create without a sigevent).
int64_t create(Process* self, Clock clock, const Notify& notify, bool value_is_id);
// Arms (value != 0: cycles from now, or `absolute`: the time on its clock)
// or disarms; *old_value, *old_interval: what was left before. 0 or -EINVAL
// (no such timer of this process).
int64_t set(Process* self, int32_t id, uint64_t value, bool absolute, uint64_t interval,
            uint64_t* old_value, uint64_t* old_interval);
int64_t get(Process* self, int32_t id, uint64_t* value, uint64_t* interval);
int64_t overrun(Process* self, int32_t id);
int64_t remove(Process* self, int32_t id);

// Every timer of the process goes (exec, the process's end). sched::lock held.
void release_group_locked(const ThreadGroup* group);

// At every scheduler tick (kernel/traps.cpp): sends the expired timers'
// signals and reloads the periodic ones.
void tick();

}  // namespace kernel::posix_timers
