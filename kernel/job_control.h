// Job control (signal(7), wait(2)): SIGSTOP, and SIGTSTP, SIGTTIN, SIGTTOU
// with the default action, stop every thread of a process; SIGCONT
// continues it; the parent hears of both (SIGCHLD's CLD_STOPPED and
// CLD_CONTINUED unless it set SA_NOCLDSTOP; wait's WUNTRACED, WCONTINUED).
//
// A stop takes effect where the signal is sent (Linux's takes it in the
// target's get_signal): the group is marked stopped, threads running on
// other CPUs are kicked, and each parks on its way to user mode
// (signals::deliver) until SIGCONT or SIGKILL. A thread asleep in a system
// call is left asleep and counts as stopped; if its call ends meanwhile,
// it parks before returning to user mode. So no call ends with EINTR for a
// stop, as none does on Linux (which restarts them). The parent is told once
// every thread has parked or sleeps (sched::schedule_locked calls
// blocked_locked when one of them blocks).
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::jobs {

// ThreadGroup::wait_report: what wait may report once.
inline constexpr uint8_t kReportNone = 0, kReportStopped = 1, kReportContinued = 2;
// The wait status of a continued child (WIFCONTINUED).
inline constexpr int64_t kContinuedStatus = 0xffff;

bool is_stop_signal(int sig);

// What sending `sig` to `target` (a thread, or a process by its leader)
// does first, whatever its disposition (Linux's prepare_signal): a stop
// signal discards a pending SIGCONT; SIGCONT discards pending stop signals
// and continues a stopped process; SIGKILL lets its parked threads go (to
// die). With sched::lock.
void prepare_locked(Process* target, int sig);

// A stop signal acting on `target`'s process: the group stops, unless it
// is SIGTSTP, SIGTTIN or SIGTTOU and the process group is orphaned (then
// the signal is discarded, as Linux's). With sched::lock.
void stop_locked(Process* target, int sig);

// On the way to user mode (with sched::lock): while its group is stopped
// (and not ending, and no SIGKILL waits), the thread parks.
bool must_park_locked(const Process* self);
void park_locked(Process* self);

// sched::schedule_locked: `p`, of a stopped group, just blocked (parked or
// asleep); the stop may be complete now.
void blocked_locked(const Process* p);

// exit_group, a fatal signal, exec's end of the other threads: the group's
// parked threads run on, to leave. With sched::lock.
void release_locked(const ThreadGroup* group);

// POSIX's rule for orphaned process groups (Linux's kill_orphaned_pgrp),
// as `parent`'s process ends: if the process group of `member` (one of
// its children, just handed to the kernel, or `parent` itself then with
// its own parent) is left orphaned by it and holds a stopped process,
// each of its processes gets SIGHUP, then SIGCONT. With sched::lock.
void hang_up_orphans_locked(const Process* member, const Process* parent);

// wait_child, for live child `leader`: its stop ((sig << 8) | 0x7f) with
// WUNTRACED, its continuation (0xffff) with WCONTINUED, else 0. Reported
// once, unless WNOWAIT. With sched::lock.
int64_t take_report_locked(Process* leader, uint64_t options);

}  // namespace kernel::jobs
