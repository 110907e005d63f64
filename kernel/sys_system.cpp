// System calls about time, identity, limits, randomness, signals and the
// Alpha-specific system information: enough for glibc's start-up, stdio,
// malloc and C++ start-up (issue 15). Signals are kernel/sys_signals.cpp,
// threads and processes kernel/sys_process.cpp.
#include "kernel/clock.h"
#include "kernel/fp_completion.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/smp.h"
#include "kernel/syscall_handlers.h"
#include "kernel/syscalls.h"
#include "kernel/udiv.h"

namespace kernel::sys {
namespace {

using clock::kCyclesPerSecond;  // RPCC: virtual ns / 4
constexpr uint64_t kNsPerCycle = 1'000'000'000 / kCyclesPerSecond;
constexpr uint64_t kClockProcessCputime = 2, kClockThreadCputime = 3;
constexpr int64_t kRusageSelf = 0, kRusageChildren = -1, kRusageThread = 1;
constexpr uint64_t kGsiIeeeFpControl = 45, kSsiIeeeFpControl = 14, kSsiIeeeRaiseException = 1001;

uint64_t process_cycles(const Process* self) {
  IrqLockGuard guard(sched::lock);
  return group_cycles_locked(self->group);
}

uint64_t cycles_to_ticks(uint64_t cycles) {
  return udiv(cycles, kCyclesPerSecond / kTicksPerSecond);
}

int64_t zero_to_user(Process* self, uint64_t va, uint64_t bytes) {
  static const uint8_t zeroes[64] = {};
  if (va == 0) return 0;
  return copy_to_user(self->space(), va, zeroes, bytes) ? 0 : error(EFAULT);
}

}  // namespace

int64_t sys_times(Process* self, TrapFrame*, const Args& args) {
  const uint64_t tms[4] = {cycles_to_ticks(process_cycles(self)), 0,
                           cycles_to_ticks(self->child_cycles), 0};
  if (args.a[0] != 0 && !copy_to_user(self->space(), args.a[0], tms, sizeof tms))
    return error(EFAULT);
  return static_cast<int64_t>(cycles_to_ticks(clock::cycles()));
}

int64_t sys_gettimeofday(Process* self, TrapFrame*, const Args& args) {
  const uint64_t usec_total = udiv(clock::realtime_cycles(), kCyclesPerSecond / 1'000'000);
  uint64_t usec;
  const uint64_t sec = udiv(usec_total, 1'000'000, &usec);
  const uint64_t timeval[2] = {sec, usec};
  if (args.a[0] != 0 && !copy_to_user(self->space(), args.a[0], timeval, sizeof timeval))
    return error(EFAULT);
  return zero_to_user(self, args.a[1], 8);  // struct timezone
}

// The wall clocks (clock::is_wall_clock) read the host's time at boot plus
// the virtual time since; the others count virtual time since boot, and the
// CPU-time clocks the process's own cycles.
int64_t sys_clock_gettime(Process* self, TrapFrame*, const Args& args) {
  const uint64_t id = args.a[0];
  if (id > 11) return error(EINVAL);
  const uint64_t cycles = id == kClockProcessCputime  ? process_cycles(self)
                          : id == kClockThreadCputime ? thread_cycles(self)
                          : clock::is_wall_clock(id)  ? clock::realtime_cycles()
                                                      : clock::cycles();
  const uint64_t ns = cycles * kNsPerCycle;
  uint64_t rest;
  const uint64_t sec = udiv(ns, 1'000'000'000, &rest);
  const uint64_t timespec[2] = {sec, rest};
  return copy_to_user(self->space(), args.a[1], timespec, sizeof timespec) ? 0 : error(EFAULT);
}

// umask(mask): kept per process (threads share it) and returned; the RAM
// file system gives new files its own default modes (fchmod changes them).
int64_t sys_umask(Process* self, TrapFrame*, const Args& args) {
  IrqLockGuard guard(sched::lock);
  const uint32_t old = self->group->umask;
  self->group->umask = static_cast<uint32_t>(args.a[0] & 0777);
  return old;
}

// getgroups: root belongs to no supplementary group.
int64_t sys_getgroups(Process*, TrapFrame*, const Args& args) {
  return static_cast<int32_t>(args.a[0]) < 0 ? error(EINVAL) : 0;
}

// clock_getres: every clock counts the 250 MHz cycle counter, 4 ns a step.
int64_t sys_clock_getres(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] > 11) return error(EINVAL);
  const uint64_t timespec[2] = {0, kNsPerCycle};
  if (args.a[1] == 0) return 0;
  return copy_to_user(self->space(), args.a[1], timespec, sizeof timespec) ? 0 : error(EFAULT);
}

// getrusage(who, struct rusage*): the CPU time of the process (RUSAGE_SELF),
// its waited-for children (RUSAGE_CHILDREN) or the thread (RUSAGE_THREAD), all
// as user time (times() too: no user/system split is kept), and the maximum
// resident set as the pages the process has now. The other fields, counts
// the kernel does not keep, are 0.
int64_t sys_getrusage(Process* self, TrapFrame*, const Args& args) {
  const auto who = static_cast<int64_t>(args.a[0]);
  uint64_t cycles;
  if (who == kRusageSelf)
    cycles = process_cycles(self);
  else if (who == kRusageChildren)
    cycles = self->child_cycles;
  else if (who == kRusageThread)
    cycles = thread_cycles(self);
  else
    return error(EINVAL);
  uint64_t usage[18] = {};  // ru_utime, ru_stime, then 14 longs
  const uint64_t usec_total = udiv(cycles, kCyclesPerSecond / 1'000'000);
  usage[0] = udiv(usec_total, 1'000'000, &usage[1]);
  if (who != kRusageChildren) usage[4] = self->space().pages * (pages::kPageBytes / 1024);
  return copy_to_user(self->space(), args.a[1], usage, sizeof usage) ? 0 : error(EFAULT);
}

constexpr char kHostName[] = "dcpi-alpha";

// gethostname(name, len): uname's node name; ENAMETOOLONG if it does not fit
// with its NUL, as Linux/Alpha's own call.
int64_t sys_gethostname(Process* self, TrapFrame*, const Args& args) {
  if (static_cast<int64_t>(args.a[1]) < 0) return error(EINVAL);
  if (args.a[1] < sizeof kHostName) return error(ENAMETOOLONG);
  return copy_to_user(self->space(), args.a[0], kHostName, sizeof kHostName) ? 0 : error(EFAULT);
}

int64_t sys_uname(Process* self, TrapFrame*, const Args& args) {
  linux_utsname name{};
  const char* fields[6] = {"Linux", kHostName, "6.1.0-dcpi", "#1 SMP", "alpha", "(none)"};
  char* out[6] = {name.sysname, name.nodename, name.release,
                  name.version, name.machine,  name.domainname};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; fields[i][j]; ++j) out[i][j] = fields[i][j];
  return copy_to_user(self->space(), args.a[0], &name, sizeof name) ? 0 : error(EFAULT);
}

// Everyone is root: uid = euid = gid = egid = 0 (the second in a4).
int64_t sys_getxuid(Process*, TrapFrame* frame, const Args&) {
  frame->reg(20) = 0;
  return 0;
}
int64_t sys_getxgid(Process*, TrapFrame* frame, const Args&) {
  frame->reg(20) = 0;
  return 0;
}
int64_t sys_geteuid(Process*, TrapFrame*, const Args&) { return 0; }
int64_t sys_getegid(Process*, TrapFrame*, const Args&) { return 0; }

int64_t sys_rseq(Process*, TrapFrame*, const Args&) { return error(ENOSYS); }

// prlimit64(pid, resource, new, old): the old limits out, then the new in:
// lowered freely, raised up to the hard limit this kernel has (root's
// privilege to raise a hard limit buys nothing here: EPERM). Kept per
// process and reported, not enforced below the kernel's own bounds.
int64_t sys_prlimit64(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] != 0 && args.a[0] != self->tgid) return error(ESRCH);
  if (args.a[1] >= kResourceLimits) return error(EINVAL);
  uint64_t(&limit)[2] = self->group->limits[args.a[1]];
  linux_rlimit wanted{};
  if (args.a[2] != 0 && !copy_from_user(self->space(), &wanted, args.a[2], sizeof wanted))
    return error(EFAULT);
  if (args.a[2] != 0 && wanted.rlim_cur > wanted.rlim_max) return error(EINVAL);
  if (args.a[2] != 0 && wanted.rlim_max > limit[1]) return error(EPERM);
  const linux_rlimit old{limit[0], limit[1]};
  if (args.a[3] != 0 && !copy_to_user(self->space(), args.a[3], &old, sizeof old))
    return error(EFAULT);
  if (args.a[2] == 0) return 0;
  limit[0] = wanted.rlim_cur;
  limit[1] = wanted.rlim_max;
  return 0;
}

// Not cryptographic: clock::random_word.
int64_t sys_getrandom(Process* self, TrapFrame*, const Args& args) {
  uint64_t length = args.a[1] > 4096 ? 4096 : args.a[1];
  for (uint64_t done = 0; done < length; done += 8) {
    const uint64_t word = clock::random_word();
    const uint64_t n = length - done < 8 ? length - done : 8;
    if (!copy_to_user(self->space(), args.a[0] + done, &word, n)) return error(EFAULT);
  }
  return static_cast<int64_t>(length);
}

// The IEEE software completion word glibc's fenv functions keep in the
// kernel: trap enables and status (kernel/fp_completion.h).
int64_t sys_osf_getsysinfo(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] != kGsiIeeeFpControl) return error(EOPNOTSUPP);
  const uint64_t word = fp::read_control(self);
  return copy_to_user(self->space(), args.a[1], &word, 8) ? 0 : error(EFAULT);
}

int64_t sys_osf_setsysinfo(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] != kSsiIeeeFpControl && args.a[0] != kSsiIeeeRaiseException)
    return 0;  // unaligned-access policies: nothing to set
  uint64_t word = 0;
  if (!copy_from_user(self->space(), &word, args.a[1], 8)) return error(EFAULT);
  if (args.a[0] == kSsiIeeeFpControl) {
    fp::write_control(self, word);
  } else if (fp::raise_exceptions(self, word)) {  // feraiseexcept of an enabled trap
    IrqLockGuard guard(sched::lock);
    signals::send_thread_locked(self, signals::kSigFpe);
  }
  return 0;
}

int64_t sys_sched_getaffinity(Process* self, TrapFrame*, const Args& args) {
  if (args.a[1] < 8 || (args.a[1] & 7)) return error(EINVAL);
  const uint64_t online = (uint64_t{1} << smp::online_count()) - 1;
  uint64_t mask;
  {
    IrqLockGuard guard(sched::lock);
    const Process* target = thread_or_self_locked(self, args.a[0]);
    if (target == nullptr) return error(ESRCH);
    mask = target->allowed_cpus ? target->allowed_cpus & online : online;
  }
  return copy_to_user(self->space(), args.a[2], &mask, 8) ? 8 : error(EFAULT);
}

// getcpu(cpu, node, cache): where the caller runs now (it may move at the
// next switch, as on Linux); one node.
int64_t sys_getcpu(Process* self, TrapFrame*, const Args& args) {
  const auto cpu = static_cast<uint32_t>(pal::whami());
  const uint32_t node = 0;
  if (args.a[0] != 0 && !copy_to_user(self->space(), args.a[0], &cpu, sizeof cpu))
    return error(EFAULT);
  if (args.a[1] != 0 && !copy_to_user(self->space(), args.a[1], &node, sizeof node))
    return error(EFAULT);
  return 0;
}

// sched_setaffinity(pid, size, mask): the thread runs only on the online
// CPUs of the mask from its next switch on (sched::schedule_locked picks
// the first queued thread allowed on a CPU); the caller, if its CPU left
// the mask, switches at once, as Linux migrates it before returning.
int64_t sys_sched_setaffinity(Process* self, TrapFrame*, const Args& args) {
  uint64_t mask = 0;
  const uint64_t bytes = args.a[1] < 8 ? args.a[1] : 8;
  if (bytes != 0 && !copy_from_user(self->space(), &mask, args.a[2], bytes)) return error(EFAULT);
  const uint64_t online = (uint64_t{1} << smp::online_count()) - 1;
  mask &= online;
  if (mask == 0) return error(EINVAL);
  IrqLockGuard guard(sched::lock);
  Process* target = thread_or_self_locked(self, args.a[0]);
  if (target == nullptr) return error(ESRCH);
  target->allowed_cpus = mask == online ? 0 : mask;
  if (target == self && !((mask >> pal::whami()) & 1)) sched::schedule_locked();
  return 0;
}

// sysinfo: glibc's sysconf(_SC_PHYS_PAGES) and (_SC_AVPHYS_PAGES) read
// it (xz sizes its memory limit from them); the page allocator's pages,
// in bytes (mem_unit 1), uptime in virtual seconds, no swap, no load
// average (not kept), procs: the thread slots in use.
int64_t sys_sysinfo(Process* self, TrapFrame*, const Args& args) {
  linux_sysinfo info{};
  info.uptime = static_cast<long>(udiv(clock::cycles(), kCyclesPerSecond));
  info.totalram = pages::total_count() << pages::kPageShift;
  info.freeram = pages::free_count() << pages::kPageShift;
  info.mem_unit = 1;
  {
    IrqLockGuard guard(sched::lock);
    for (uint32_t i = 0; i < process_slot_count(); ++i)
      if (process_slots()[i].state != ProcessState::kFree) ++info.procs;
  }
  return copy_to_user(self->space(), args.a[0], &info, sizeof info) ? 0 : error(EFAULT);
}

}  // namespace kernel::sys
