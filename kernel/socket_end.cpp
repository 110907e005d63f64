#include "kernel/socket_end.h"

#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/listeners.h"
#include "kernel/pipe.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"

namespace kernel::socket_end {
namespace {

constexpr uint32_t kShutRead = 1, kShutWrite = 2;
constexpr uint32_t kONonblock = 04;  // Linux/Alpha's O_NONBLOCK
constexpr int kSigPipe = 13;

bool nonblocking(const OpenFile* end, uint64_t flags) {
  return (end->flags & kONonblock) || (flags & kMsgDontwait);
}

}  // namespace

int64_t read(Process* self, OpenFile* end, uint64_t flags, uint64_t buffer, uint64_t count) {
  if (end->pipe == nullptr) return listeners::unconnected_error(end->socket, 'r');
  if (end->shut & kShutRead) return 0;
  uint64_t done = 0;
  do {
    const int64_t n =
        pipe::read(self, end->pipe, nonblocking(end, flags), buffer + done, count - done);
    if (n <= 0) return done ? static_cast<int64_t>(done) : n;
    done += static_cast<uint64_t>(n);
  } while ((flags & kMsgWaitall) && done < count);
  return static_cast<int64_t>(done);
}

int64_t write(Process* self, OpenFile* end, uint64_t flags, uint64_t buffer, uint64_t count) {
  const bool unconnected = end->pipe == nullptr;
  const int64_t e = unconnected ? listeners::unconnected_error(end->socket, 'w') : 0;
  if (unconnected && e != -EPIPE) return e;
  if (unconnected || (end->shut & kShutWrite)) {  // Linux: EPIPE, and SIGPIPE unless MSG_NOSIGNAL
    if (!(flags & kMsgNosignal)) {
      IrqLockGuard guard(sched::lock);
      signals::send_thread_locked(self, kSigPipe);
    }
    return -EPIPE;
  }
  return pipe::write(self, end->peer, nonblocking(end, flags), flags & kMsgNosignal, buffer, count);
}

uint32_t poll_events(const OpenFile* end) {
  constexpr uint32_t kPollIn = 1, kPollHup = 16;
  if (end->pipe == nullptr) return listeners::poll_events(end->socket);
  const uint32_t in = end->shut & kShutRead ? kPollIn : pipe::poll_events(end->pipe, false);
  const uint32_t out = end->shut & kShutWrite ? 0 : pipe::poll_events(end->peer, true);
  // A stream socket whose peer is gone is POLLIN | POLLHUP (end of file).
  return in | out | ((in & kPollHup) ? kPollIn : 0);
}

int64_t shutdown(OpenFile* end, uint64_t how) {
  if (how > 2) return -EINVAL;
  if (end->pipe == nullptr) return listeners::unconnected_error(end->socket, 's');
  const uint32_t wanted = how == 0 ? kShutRead : how == 1 ? kShutWrite : kShutRead | kShutWrite;
  uint32_t newly;
  {
    IrqLockGuard guard(sched::lock);
    newly = wanted & ~end->shut;
    end->shut |= wanted;
  }
  if (newly & kShutWrite) pipe::close_end(end->peer, true);  // the peer reads end of file
  return 0;
}

void close(OpenFile* end) {
  if (end->pipe != nullptr) {
    pipe::close_end(end->pipe, false);
    if (!(end->shut & kShutWrite)) pipe::close_end(end->peer, true);
  }
  if (end->socket != nullptr) listeners::close(end->socket);
}

}  // namespace kernel::socket_end
