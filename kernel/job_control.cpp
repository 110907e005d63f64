#include "kernel/job_control.h"

#include "kernel/scheduler.h"
#include "kernel/signals.h"

namespace kernel::jobs {
namespace {

using signals::bit;
using signals::kSigCont;
using signals::kSigKill;
using signals::kSigStop;

constexpr int32_t kSiKernel = 0x80;  // si_code SI_KERNEL
constexpr uint64_t kStopSignals =
    bit(kSigStop) | bit(signals::kSigTstp) | bit(signals::kSigTtin) | bit(signals::kSigTtou);

// Takes `signals` off the pending sets of the process and of its threads.
void discard_locked(ThreadGroup* group, uint64_t signals) {
  group->pending &= ~signals;
  for_each_thread(group, [signals](Process& p) { p.pending &= ~signals; });
}

// Linux's do_notify_parent_cldstop: the parent of process `tgid` gets
// SIGCHLD with `code` and `status` (unless its SIGCHLD action has
// SA_NOCLDSTOP), and its threads in wait4 look again.
void notify_parent_locked(uint32_t tgid, int32_t code, int32_t status) {
  const Process* leader = find_process_locked(tgid);
  Process* parent = leader != nullptr && leader->parent_pid != 0
                        ? find_process_locked(leader->parent_pid)
                        : nullptr;
  if (parent == nullptr || parent->group == nullptr || parent->group->threads == 0) return;
  wake_waiters_locked(parent->tgid);
  if (parent->group->actions[signals::kSigChld - 1].flags & signals::kSaNocldstop) return;
  const SignalSource source{.pid = tgid, .code = code, .status = status};
  signals::send_group_locked(parent, signals::kSigChld, &source);
}

// The stop is complete once no thread of the group may run user code
// (each is parked, asleep in the kernel or gone): the parent is told, once.
// Not when the process is ending instead (SIGKILL came first).
void complete_if_stopped_locked(uint32_t tgid, ThreadGroup* group) {
  if (!group->stopped || group->stop_complete || group->exiting) return;
  bool may_run = false;
  for_each_thread(group, [&may_run](const Process& p) {
    may_run |= p.state == ProcessState::kReady || p.state == ProcessState::kRunning;
  });
  if (may_run) return;
  group->stop_complete = true;
  group->wait_report = kReportStopped;
  notify_parent_locked(tgid, signals::kCldStopped, group->stop_signal);
}

// SIGCONT, whatever its disposition: pending stops are dropped and a
// stopped process runs on. A stop not yet complete was never reported, so
// only a complete one is reported as continued (Linux reports the cut-short
// one as stopped, then continued).
void continue_locked(Process* target) {
  ThreadGroup* group = target->group;
  discard_locked(group, kStopSignals);
  if (!group->stopped) return;
  const bool reported = group->stop_complete;
  group->stopped = group->stop_complete = false;
  release_locked(group);
  if (!reported) return;
  group->wait_report = kReportContinued;
  notify_parent_locked(target->tgid, signals::kCldContinued, kSigCont);
}

// The live processes of process group `pgid`: fn(leader).
template <typename Fn>
void each_process_in(uint32_t pgid, Fn fn) {
  for (uint32_t i = 0; i < process_slot_count(); ++i) {
    Process& p = process_slots()[i];
    if (p.state != ProcessState::kFree && p.pid == p.tgid && !p.kernel_thread &&
        p.group != nullptr && p.group->threads != 0 && p.group->pgid == pgid)
      fn(p);
  }
}

}  // namespace

bool is_stop_signal(int sig) { return sig >= 1 && (kStopSignals & bit(sig)) != 0; }

void prepare_locked(Process* target, int sig) {
  ThreadGroup* group = target->group;
  if (is_stop_signal(sig))
    discard_locked(group, bit(kSigCont));
  else if (sig == kSigCont)
    continue_locked(target);
  else if (sig == kSigKill)
    release_locked(group);
}

// A second stop signal while stopped changes nothing (Linux keeps the
// first one's number for wait); an ending process or init (Linux's
// SIGNAL_UNKILLABLE) is not stopped.
void stop_locked(Process* target, int sig) {
  ThreadGroup* group = target->group;
  if (group->exiting || group->threads == 0 || group->stopped || is_init(target->tgid)) return;
  if (sig != kSigStop && group_orphaned_locked(group->pgid)) return;
  group->stopped = true;
  group->stop_complete = false;
  group->stop_signal = sig;
  // Threads running on other CPUs look now; the queued ones look when they
  // next run, sleeping ones when their call ends.
  for_each_thread(group, [](const Process& p) {
    if (p.state == ProcessState::kRunning) sched::kick_locked(&p);
  });
  complete_if_stopped_locked(target->tgid, group);
}

void hang_up_orphans_locked(const Process* member, const Process* parent) {
  const ThreadGroup* group = member->group;
  const ThreadGroup* outside = parent->group;
  if (group == nullptr || outside == nullptr || group->pgid == outside->pgid ||
      group->sid != outside->sid || !group_orphaned_locked(group->pgid))
    return;
  bool stopped = false;
  each_process_in(group->pgid, [&stopped](const Process& p) { stopped |= p.group->stopped; });
  if (!stopped) return;
  const SignalSource kernel{.pid = 0, .code = kSiKernel};
  each_process_in(group->pgid, [&kernel](Process& p) {
    signals::send_group_locked(&p, signals::kSigHup, &kernel);
    signals::send_group_locked(&p, kSigCont, &kernel);
  });
}

bool must_park_locked(const Process* self) {
  const ThreadGroup* group = self->group;
  return group->stopped && !group->exiting &&
         ((self->pending | group->pending) & bit(kSigKill)) == 0;
}

// `stopped` keeps make_ready_locked off the thread (a signal's wake-up, a
// futex's) until release_locked clears it.
void park_locked(Process* self) {
  self->stopped = true;
  self->state = ProcessState::kBlocked;
  sched::schedule_locked();
}

void blocked_locked(const Process* p) { complete_if_stopped_locked(p->tgid, p->group); }

void release_locked(const ThreadGroup* group) {
  for_each_thread(group, [](Process& p) {
    if (!p.stopped) return;
    p.stopped = false;
    sched::make_ready_locked(&p);
  });
}

int64_t take_report_locked(Process* leader, uint64_t options) {
  ThreadGroup* group = leader->group;
  int64_t status;
  if (group->wait_report == kReportStopped && (options & kWaitUntraced))
    status = (static_cast<int64_t>(group->stop_signal) << 8) | 0x7f;
  else if (group->wait_report == kReportContinued && (options & kWaitContinued))
    status = kContinuedStatus;
  else
    return 0;
  if (!(options & kWaitNowait)) group->wait_report = kReportNone;
  return status;
}

}  // namespace kernel::jobs
