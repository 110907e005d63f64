// poll, ppoll, select and pselect6 (issue 29): what glibc's pause() (ppoll
// with no descriptors) and programs waiting on pipes ask; readiness and the
// wait are kernel/readiness.h's.
#include "kernel/clock.h"
#include "kernel/eventfd.h"
#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/pipe.h"
#include "kernel/readiness.h"
#include "kernel/scheduler.h"
#include "kernel/signalfd.h"
#include "kernel/signals.h"
#include "kernel/socket_end.h"
#include "kernel/syscall_handlers.h"
#include "kernel/timerfd.h"
#include "kernel/udiv.h"

namespace kernel::sys {
namespace {

constexpr uint32_t kPollIn = readiness::kIn, kPollOut = readiness::kOut;
constexpr uint64_t kMaxPollFds = 64;

struct PollFd {
  int32_t fd;
  int16_t events, revents;
};
static_assert(sizeof(PollFd) == 8);

// `deadline` as readiness::wait's. Fills each revents; the number of ready
// descriptors, or -EINTR.
int64_t wait_ready(Process* self, PollFd* fds, uint64_t count, uint64_t deadline) {
  return readiness::wait(self, deadline, count == 0, [&] {
    int64_t ready = 0;
    for (uint64_t i = 0; i < count; ++i) {
      // A negative fd is a slot the caller switched off: ignored, revents 0
      // (poll(2); callers negate an fd to skip it, libuv and glib do).
      if (fds[i].fd < 0) {
        fds[i].revents = 0;
        continue;
      }
      // POLLHUP, POLLERR and POLLNVAL are reported whether asked or not.
      const uint32_t events = readiness::descriptor_events(self, fds[i].fd);
      fds[i].revents = static_cast<int16_t>(events & (static_cast<uint16_t>(fds[i].events) | 0x38));
      ready += fds[i].revents != 0;
    }
    return ready;
  });
}

int64_t poll_until(Process* self, uint64_t fds_va, uint64_t count, uint64_t deadline) {
  if (count > kMaxPollFds) return error(EINVAL);
  PollFd fds[kMaxPollFds];
  if (count && !copy_from_user(self->space(), fds, fds_va, count * sizeof(PollFd)))
    return error(EFAULT);
  const int64_t ready = wait_ready(self, fds, count, deadline);
  if (ready >= 0 && count && !copy_to_user(self->space(), fds_va, fds, count * sizeof(PollFd)))
    return error(EFAULT);
  return ready;
}

// select's fd_sets (Linux/Alpha: 64-bit words; only the words that hold
// descriptors below `nfds` are read and written, as Linux does). Readable
// and writable are Linux's POLLIN_SET and POLLOUT_SET; nothing here has
// exceptional conditions (out-of-band data), so the third set only has its
// descriptors checked, and comes back empty.
constexpr int kSets = 3;
constexpr uint32_t kSelectEvents[kSets - 1] = {kPollIn | 0x18, kPollOut | 0x08};
constexpr uint64_t kMaxSetWords = 16;  // FD_SETSIZE 1024

struct Selection {
  uint64_t nfds;
  uint64_t va[kSets];  // read, write, except; 0: none
  PollFd fds[2 * kMaxFiles];
  uint8_t set_of[2 * kMaxFiles];
  uint64_t count;
};

// The sets' descriptors as poll entries; -EBADF for one not open.
int64_t read_sets(Process* self, Selection& sel) {
  const uint64_t words = (sel.nfds + 63) / 64;
  sel.count = 0;
  for (int set = 0; set < kSets; ++set) {
    if (sel.va[set] == 0) continue;
    uint64_t word[kMaxSetWords] = {};
    if (!copy_from_user(self->space(), word, sel.va[set], words * 8)) return error(EFAULT);
    for (uint64_t fd = 0; fd < sel.nfds; ++fd) {
      if (!((word[fd / 64] >> (fd % 64)) & 1)) continue;
      // Open is enough, O_PATH too (never ready, as Linux's POLLNVAL is for select).
      if (fd >= kMaxFiles || file_or_path_at(self->fds, fd) == nullptr) return error(EBADF);
      if (set == kSets - 1) continue;
      sel.fds[sel.count] =
          PollFd{static_cast<int32_t>(fd), static_cast<int16_t>(kSelectEvents[set]), 0};
      sel.set_of[sel.count++] = static_cast<uint8_t>(set);
    }
  }
  return 0;
}

// The ready descriptors back into the sets (the others cleared); their count.
int64_t write_sets(Process* self, const Selection& sel) {
  static_assert(kMaxFiles <= 64, "one word of each set holds every descriptor");
  uint64_t ready_words[kSets] = {};
  int64_t ready = 0;
  for (uint64_t i = 0; i < sel.count; ++i) {
    if (sel.fds[i].revents == 0) continue;
    ready_words[sel.set_of[i]] |= uint64_t{1} << sel.fds[i].fd;
    ++ready;
  }
  const uint64_t words = (sel.nfds + 63) / 64;
  for (int set = 0; set < kSets; ++set) {
    if (sel.va[set] == 0) continue;
    for (uint64_t w = 0; w < words; ++w) {
      const uint64_t value = w == 0 ? ready_words[set] : 0;
      if (!copy_to_user(self->space(), sel.va[set] + w * 8, &value, 8)) return error(EFAULT);
    }
  }
  return ready;
}

// select and pselect6's common part, `deadline` as wait_ready's.
int64_t select_until(Process* self, Selection& sel, uint64_t deadline) {
  if (sel.nfds > kMaxSetWords * 64) return error(EINVAL);
  const int64_t valid = read_sets(self, sel);
  if (valid < 0) return valid;
  const int64_t ready = wait_ready(self, sel.fds, sel.count, deadline);
  return ready < 0 ? ready : write_sets(self, sel);
}

}  // namespace

// poll(fds, n, timeout in ms; negative: forever).
int64_t sys_poll(Process* self, TrapFrame*, const Args& args) {
  return poll_until(self, args.a[0], args.a[1],
                    readiness::deadline_in_ms(static_cast<int64_t>(args.a[2])));
}

// ppoll(fds, n, timespec or NULL, sigmask or NULL, sigsetsize): the mask
// holds during the wait, as rt_sigsuspend's.
int64_t sys_ppoll(Process* self, TrapFrame*, const Args& args) {
  uint64_t deadline;
  const int64_t timed = timespec_deadline(self, args.a[2], &deadline);
  if (timed < 0) return timed;
  readiness::MaskedWait masked;
  const int64_t set = masked.begin(self, args.a[3], args.a[4]);
  if (set < 0) return set;
  return masked.end(self, poll_until(self, args.a[0], args.a[1], deadline));
}

// select(nfds, readfds, writefds, exceptfds, timeval or NULL): the time
// left is written back into the timeval, as Linux does.
int64_t sys_select(Process* self, TrapFrame*, const Args& args) {
  Selection sel{};
  sel.nfds = args.a[0];
  for (int set = 0; set < kSets; ++set) sel.va[set] = args.a[1 + set];
  uint64_t deadline = 0;
  int64_t tv[2];
  if (args.a[4] != 0) {
    uint64_t cycles;
    if (!copy_from_user(self->space(), tv, args.a[4], sizeof tv)) return error(EFAULT);
    if (!timeval_cycles(tv[0], tv[1], &cycles)) return error(EINVAL);
    deadline = cycles == 0 ? 1 : clock::cycles() + cycles;
  }
  const int64_t result = select_until(self, sel, deadline);
  if (deadline > 1) {
    const uint64_t now = clock::cycles();
    const uint64_t usec =
        udiv(now < deadline ? deadline - now : 0, clock::kCyclesPerSecond / 1'000'000);
    uint64_t rest;
    tv[0] = static_cast<int64_t>(udiv(usec, 1'000'000, &rest));
    tv[1] = static_cast<int64_t>(rest);
    copy_to_user(self->space(), args.a[4], tv, sizeof tv);  // Linux ignores a failed write-back
  }
  return result;
}

// pselect6(nfds, readfds, writefds, exceptfds, timespec or NULL, {sigmask,
// sigsetsize} or NULL): the timespec is left alone; the mask as ppoll's.
int64_t sys_pselect6(Process* self, TrapFrame*, const Args& args) {
  Selection sel{};
  sel.nfds = args.a[0];
  for (int set = 0; set < kSets; ++set) sel.va[set] = args.a[1 + set];
  uint64_t deadline;
  const int64_t timed = timespec_deadline(self, args.a[4], &deadline);
  if (timed < 0) return timed;
  uint64_t mask_arg[2] = {0, 0};  // the mask's address and size
  if (args.a[5] != 0 && !copy_from_user(self->space(), mask_arg, args.a[5], sizeof mask_arg))
    return error(EFAULT);
  readiness::MaskedWait masked;
  const int64_t set = masked.begin(self, mask_arg[0], mask_arg[1]);
  if (set < 0) return set;
  return masked.end(self, select_until(self, sel, deadline));
}

}  // namespace kernel::sys

namespace kernel::readiness {

uint32_t descriptor_events(Process* self, int32_t fd) {
  OpenFile* f = fd < 0 ? nullptr : file_at(self->fds, static_cast<uint64_t>(fd));
  if (f == nullptr) return kNval;
  if (f->kind == OpenFile::kPipeRead) return pipe::poll_events(f->pipe, false);
  if (f->kind == OpenFile::kPipeWrite) return pipe::poll_events(f->pipe, true);
  if (f->kind == OpenFile::kEventfd) return eventfd::poll_events(f);
  if (f->kind == OpenFile::kSocket) return socket_end::poll_events(f);
  if (f->kind == OpenFile::kTimerfd) return timerfd::poll_events(f);
  if (f->kind == OpenFile::kSignalfd) return signalfd::poll_events(self, f);
  return kIn | kOut;
}

}  // namespace kernel::readiness
