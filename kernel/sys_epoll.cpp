// epoll_create, epoll_create1, epoll_ctl, epoll_wait, epoll_pwait and
// epoll_pwait2 over kernel/epoll.h's sets.
#include "kernel/epoll.h"
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/readiness.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

constexpr uint64_t kEpollCloexec = 010000000;  // O_CLOEXEC on Alpha
constexpr uint64_t kMaxEvents = epoll::kEntries;

// struct epoll_event: not packed outside x86-64, so 16 bytes on Alpha.
struct EpollEvent {
  uint32_t events, pad;
  uint64_t data;
};
static_assert(sizeof(EpollEvent) == 16);

// The set at `epfd`: nullptr and *e = EBADF or EINVAL (not an epoll file).
epoll::Set* set_at(Process* self, uint64_t epfd, int64_t* e) {
  const OpenFile* f = file_of_kind(self->fds, epfd, OpenFile::kEpoll, EINVAL, e);
  return f ? f->epoll : nullptr;
}

// Files whose readiness never changes cannot be watched (Linux: EPERM).
bool watchable(const OpenFile& f) {
  return f.kind == OpenFile::kPipeRead || f.kind == OpenFile::kPipeWrite ||
         f.kind == OpenFile::kSocket || f.kind == OpenFile::kEventfd ||
         f.kind == OpenFile::kTimerfd || f.kind == OpenFile::kSignalfd ||
         f.kind == OpenFile::kConsole;
}

int64_t wait_events(Process* self, uint64_t epfd, uint64_t events_va, uint64_t max,
                    uint64_t deadline) {
  int64_t e;
  epoll::Set* set = set_at(self, epfd, &e);
  if (set == nullptr) return e;
  if (static_cast<int64_t>(max) <= 0) return error(EINVAL);
  if (max > kMaxEvents) max = kMaxEvents;
  epoll::Ready ready[kMaxEvents];
  const int64_t n = readiness::wait(self, deadline, false, [&] {
    return static_cast<int64_t>(epoll::collect(self, set, ready, max));
  });
  for (int64_t i = 0; i < n; ++i) {
    const EpollEvent out{ready[i].events, 0, ready[i].data};
    if (!copy_to_user(self->space(), events_va + 16 * static_cast<uint64_t>(i), &out, sizeof out))
      return error(EFAULT);
  }
  return n;
}

int64_t masked_wait(Process* self, const Args& args, uint64_t deadline) {
  readiness::MaskedWait masked;
  const int64_t set = masked.begin(self, args.a[4], args.a[5]);
  if (set < 0) return set;
  return masked.end(self, wait_events(self, args.a[0], args.a[1], args.a[2], deadline));
}

}  // namespace

int64_t sys_epoll_create1(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] & ~kEpollCloexec) return error(EINVAL);
  OpenFile made{};
  made.kind = OpenFile::kEpoll;
  made.flags = LINUX_O_RDWR;
  made.epoll = epoll::create();
  if (made.epoll == nullptr) return error(ENOMEM);
  const int64_t fd = open_description(self->fds, made, args.a[0] & kEpollCloexec);
  if (fd == error(ENFILE))
    epoll::release(made.epoll);  // an EMFILE released it with its description
  return fd;
}

int64_t sys_epoll_create(Process* self, TrapFrame* frame, const Args& args) {
  if (static_cast<int32_t>(args.a[0]) <= 0) return error(EINVAL);
  return sys_epoll_create1(self, frame, Args{{0}});
}

// epoll_ctl(epfd, op, fd, event)
int64_t sys_epoll_ctl(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  epoll::Set* set = set_at(self, args.a[0], &e);
  if (set == nullptr) return e;
  const OpenFile* target = file_at(self->fds, args.a[2]);
  if (target == nullptr) return error(EBADF);
  if (args.a[2] == args.a[0]) return error(EINVAL);
  if (!watchable(*target)) return error(EPERM);
  EpollEvent event{};
  constexpr uint64_t kDel = 2;
  if (args.a[1] != kDel && !copy_from_user(self->space(), &event, args.a[3], sizeof event))
    return error(EFAULT);
  const int r = epoll::control(set, args.a[1], static_cast<int32_t>(args.a[2]), target,
                               event.events, event.data);
  return r ? error(r) : 0;
}

// epoll_wait(epfd, events, maxevents, timeout in ms; negative: forever)
int64_t sys_epoll_wait(Process* self, TrapFrame*, const Args& args) {
  return wait_events(self, args.a[0], args.a[1], args.a[2],
                     readiness::deadline_in_ms(static_cast<int32_t>(args.a[3])));
}

// epoll_pwait(..., timeout in ms, sigmask, sigsetsize): the mask holds
// during the wait, as ppoll's.
int64_t sys_epoll_pwait(Process* self, TrapFrame*, const Args& args) {
  return masked_wait(self, args, readiness::deadline_in_ms(static_cast<int32_t>(args.a[3])));
}

// epoll_pwait2(..., timespec or NULL, sigmask, sigsetsize)
int64_t sys_epoll_pwait2(Process* self, TrapFrame*, const Args& args) {
  uint64_t deadline;
  if (const int64_t e = timespec_deadline(self, args.a[3], &deadline); e < 0) return e;
  return masked_wait(self, args, deadline);
}

}  // namespace kernel::sys
