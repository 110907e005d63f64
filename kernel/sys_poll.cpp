// poll and ppoll (issue 29): what glibc's pause() (ppoll with no
// descriptors) and programs waiting on pipes ask. Files, the console and
// /dev/null are always ready; a pipe end as pipe::poll_events says. A poll
// that must wait re-checks at every scheduler tick (10 ms): no wait queues
// per descriptor, a signal ends it with EINTR.
#include "kernel/clock.h"
#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/pipe.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/syscall_handlers.h"
#include "kernel/udiv.h"

namespace kernel::sys {
namespace {

constexpr uint32_t kPollIn = 1, kPollOut = 4, kPollNval = 32;
constexpr uint64_t kMaxPollFds = 64;
constexpr uint64_t kTickCycles = clock::kCyclesPerSecond / 100;

struct PollFd {
  int32_t fd;
  int16_t events, revents;
};
static_assert(sizeof(PollFd) == 8);

uint32_t events_of(Process* self, int32_t fd) {
  OpenFile* f = fd < 0 ? nullptr : file_at(self->fds, static_cast<uint64_t>(fd));
  if (f == nullptr) return kPollNval;
  if (f->kind == OpenFile::kPipeRead) return pipe::poll_events(f->pipe, false);
  if (f->kind == OpenFile::kPipeWrite) return pipe::poll_events(f->pipe, true);
  return kPollIn | kPollOut;
}

// `deadline` in cycles, 0 = wait forever, 1 = do not wait. The number of
// ready descriptors, or -errno.
int64_t poll_until(Process* self, uint64_t fds_va, uint64_t count, uint64_t deadline) {
  if (count > kMaxPollFds) return error(EINVAL);
  PollFd fds[kMaxPollFds];
  if (count && !copy_from_user(self->space(), fds, fds_va, count * sizeof(PollFd)))
    return error(EFAULT);
  for (;;) {
    int64_t ready = 0;
    for (uint64_t i = 0; i < count; ++i) {
      // POLLHUP, POLLERR and POLLNVAL are reported whether asked or not.
      const uint32_t events = events_of(self, fds[i].fd);
      fds[i].revents = static_cast<int16_t>(events & (static_cast<uint16_t>(fds[i].events) | 0x38));
      ready += fds[i].revents != 0;
    }
    if (ready > 0 || deadline == 1 || (deadline != 0 && clock::cycles() >= deadline)) {
      if (count && !copy_to_user(self->space(), fds_va, fds, count * sizeof(PollFd)))
        return error(EFAULT);
      return ready;
    }
    IrqLockGuard guard(sched::lock);
    if (signals::interrupted(self)) return error(EINTR);
    const uint64_t tick = clock::cycles() + kTickCycles;
    sched::sleep_locked(count == 0 && deadline == 0   ? 0
                        : deadline && deadline < tick ? deadline
                                                      : tick);
  }
}

}  // namespace

// poll(fds, n, timeout in ms; negative: forever).
int64_t sys_poll(Process* self, TrapFrame*, const Args& args) {
  const auto ms = static_cast<int64_t>(args.a[2]);
  const uint64_t deadline =
      ms < 0    ? 0
      : ms == 0 ? 1
                : clock::cycles() + static_cast<uint64_t>(ms) * (clock::kCyclesPerSecond / 1000);
  return poll_until(self, args.a[0], args.a[1], deadline);
}

// ppoll(fds, n, timespec or NULL, sigmask or NULL, sigsetsize): the mask
// holds during the wait, as rt_sigsuspend's.
int64_t sys_ppoll(Process* self, TrapFrame*, const Args& args) {
  uint64_t deadline = 0;
  if (args.a[2] != 0) {
    int64_t ts[2];
    if (!copy_from_user(self->space(), ts, args.a[2], sizeof ts)) return error(EFAULT);
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1'000'000'000) return error(EINVAL);
    const uint64_t cycles = static_cast<uint64_t>(ts[0]) * clock::kCyclesPerSecond +
                            udiv(static_cast<uint64_t>(ts[1]), 4);
    deadline = cycles == 0 ? 1 : clock::cycles() + cycles;
  }
  const uint64_t old = self->blocked;
  if (args.a[3] != 0) {
    uint64_t mask;
    if (args.a[4] != 8) return error(EINVAL);
    if (!copy_from_user(self->space(), &mask, args.a[3], 8)) return error(EFAULT);
    self->blocked = mask & ~signals::kUnblockable;
  }
  const int64_t result = poll_until(self, args.a[0], args.a[1], deadline);
  if (args.a[3] != 0) {
    if (result == error(EINTR))
      signals::deliver_with_saved_mask(self, old);  // the handler runs under the ppoll mask
    else
      self->blocked = old;
  }
  return result;
}

}  // namespace kernel::sys
