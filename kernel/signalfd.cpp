#include "kernel/signalfd.h"

#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"

namespace kernel::signalfd {
namespace {

constexpr uint32_t kONonblock = 04;  // Linux/Alpha's O_NONBLOCK
constexpr uint32_t kPollIn = 0x1;

// Linux's struct signalfd_siginfo (linux/signalfd.h).
struct Record {
  uint32_t ssi_signo;
  int32_t ssi_errno;
  int32_t ssi_code;
  uint32_t ssi_pid;
  uint32_t ssi_uid;
  int32_t ssi_fd;
  uint32_t ssi_tid;
  uint32_t ssi_band;
  uint32_t ssi_overrun;
  uint32_t ssi_trapno;
  int32_t ssi_status;
  int32_t ssi_int;
  uint64_t ssi_ptr;
  uint64_t ssi_utime;
  uint64_t ssi_stime;
  uint64_t ssi_addr;
  uint16_t ssi_addr_lsb;
  uint16_t pad2;
  int32_t ssi_syscall;
  uint64_t ssi_call_addr;
  uint32_t ssi_arch;
  uint8_t pad[28];
};
static_assert(sizeof(Record) == kRecordBytes);

// Linux's signalfd_copyinfo: the fields the siginfo's layout has. A timer's
// id, overrun and value (SI_TIMER); the sender's pid, and its value for the
// other negative codes (SI_QUEUE, SI_TKILL); SIGCHLD's child and status.
// uid is 0: everyone is root.
Record record_of(int sig, const SignalSource& source) {
  Record r{};
  r.ssi_signo = static_cast<uint32_t>(sig);
  r.ssi_code = source.code;
  if (source.code == signals::kSiTimer) {
    r.ssi_tid = static_cast<uint32_t>(source.timer);
    r.ssi_overrun = static_cast<uint32_t>(source.overrun);
  } else {
    r.ssi_pid = source.pid;
  }
  if (source.code < 0) {
    r.ssi_ptr = source.value;
    r.ssi_int = static_cast<int32_t>(source.value);  // sival_int: the low half
  }
  if (sig == signals::kSigChld && source.code > 0) r.ssi_status = source.status;
  return r;
}

// The next signal of the mask for `self` and its source, or 0: none yet and
// `wait` is false. Waits otherwise (-EAGAIN with O_NONBLOCK, -EINTR).
int take(Process* self, const OpenFile* file, bool wait, SignalSource* source) {
  IrqLockGuard guard(sched::lock);
  for (;;) {
    const int sig = signals::take_waited_locked(self, file->signal_mask);
    if (sig != 0) {
      *source = signals::source_of(self, sig);
      return sig;
    }
    if (!wait) return 0;
    if (file->flags & kONonblock) return -EAGAIN;
    if (signals::interrupted(self)) return -EINTR;
    self->waited_signals = file->signal_mask;  // a sender wakes it though they are blocked
    sched::sleep_locked(0);
    self->waited_signals = 0;
  }
}

}  // namespace

int64_t read(Process* self, OpenFile* file, uint64_t buffer, uint64_t count) {
  if (count < kRecordBytes) return -EINVAL;
  uint64_t done = 0;
  for (; done + kRecordBytes <= count; done += kRecordBytes) {
    SignalSource source;
    const int sig = take(self, file, done == 0, &source);  // only the first waits
    if (sig < 0) return sig;
    if (sig == 0) break;
    const Record record = record_of(sig, source);
    // The signal is gone either way, as Linux's is once dequeued.
    if (!copy_to_user(self->space(), buffer + done, &record, sizeof record))
      return done ? static_cast<int64_t>(done) : -EFAULT;
  }
  return static_cast<int64_t>(done);
}

uint32_t poll_events(const Process* self, const OpenFile* file) {
  IrqLockGuard guard(sched::lock);
  return ((self->pending | self->group->pending) & file->signal_mask) ? kPollIn : 0;
}

}  // namespace kernel::signalfd
