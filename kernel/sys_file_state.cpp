// System calls on a file's state rather than its bytes (issue 29: what xz
// and sqlite3 do around their output files): POSIX record locks (fcntl),
// fsync/fdatasync, fadvise64, fchown, fchmod, utimensat.
#include "kernel/clock.h"
#include "kernel/file_locks.h"
#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/ramfs.h"
#include "kernel/record_locks.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/syscall_handlers.h"
#include "kernel/udiv.h"

namespace kernel::sys {
namespace {

// struct flock on Linux/Alpha (bits/fcntl.h): l_type, l_whence, then 64-bit
// l_start and l_len, l_pid.
struct LinuxFlock {
  int16_t type, whence;
  int64_t start, length;
  int32_t pid;
};
static_assert(sizeof(LinuxFlock) == 32 && __builtin_offsetof(LinuxFlock, start) == 8 &&
              __builtin_offsetof(LinuxFlock, pid) == 24);

constexpr uint64_t kFGetlk = 7, kFSetlkw = 9;
constexpr int16_t kSeekSet = 0, kSeekCur = 1, kSeekEnd = 2;
constexpr uint64_t kTickCycles = clock::kCyclesPerSecond / 100;  // the scheduler's 10 ms

uint64_t file_size(const OpenFile* f) {
  return f->kind == OpenFile::kRamFile  ? ramfs::size(f->node)
         : f->kind == OpenFile::kInitrd ? f->file.size
                                        : 0;
}

// The byte range a struct flock names, as Linux's flock_to_posix_lock:
// l_len 0 is "to the end, however long", a negative l_len ends at l_start.
int range_of(const OpenFile* f, const LinuxFlock& lock, locks::Range* range) {
  int64_t base;
  switch (lock.whence) {
    case kSeekSet:
      base = 0;
      break;
    case kSeekCur:
      base = static_cast<int64_t>(f->offset);
      break;
    case kSeekEnd:
      base = static_cast<int64_t>(file_size(f));
      break;
    default:
      return EINVAL;
  }
  int64_t start = base + lock.start, end;
  if (lock.length > 0) {
    end = start + lock.length;
  } else if (lock.length < 0) {
    end = start;
    start += lock.length;
  } else {
    end = -1;  // kToEnd
  }
  if (start < 0) return EINVAL;
  range->start = static_cast<uint64_t>(start);
  range->end = end < 0 ? locks::kToEnd : static_cast<uint64_t>(end);
  return 0;
}

int64_t get_lock(Process* self, const OpenFile* f, LinuxFlock& lock, const locks::Range& wanted,
                 uint64_t flock_va) {
  locks::Range held;
  if (!locks::find_conflict(lock_key(f), wanted, &held)) {
    lock.type = static_cast<int16_t>(locks::kUnlock);
  } else {
    lock.type = static_cast<int16_t>(held.type);
    lock.whence = kSeekSet;
    lock.start = static_cast<int64_t>(held.start);
    lock.length = held.end == locks::kToEnd ? 0 : static_cast<int64_t>(held.end - held.start);
    lock.pid = static_cast<int32_t>(held.owner);
  }
  return copy_to_user(self->space(), flock_va, &lock, sizeof lock) ? 0 : error(EFAULT);
}

// F_SETLKW waits for a conflicting lock to go, re-checking at each tick as
// poll does (no wait queues); a signal ends the wait with EINTR. No deadlock
// detection (Linux's EDEADLK).
int64_t wait_for_lock(Process* self, const void* key, const locks::Range& wanted) {
  for (;;) {
    const int e = locks::set(key, wanted);
    if (e != EAGAIN) return e ? error(e) : 0;
    IrqLockGuard guard(sched::lock);
    if (signals::interrupted(self)) return error(EINTR);
    sched::sleep_locked(clock::cycles() + kTickCycles);
  }
}

}  // namespace

int64_t record_lock(Process* self, OpenFile* f, uint64_t command, uint64_t flock_va) {
  LinuxFlock lock;
  if (!copy_from_user(self->space(), &lock, flock_va, sizeof lock)) return error(EFAULT);
  const auto type = static_cast<uint16_t>(lock.type);
  if (type != locks::kRead && type != locks::kWrite && type != locks::kUnlock) return error(EINVAL);
  locks::Range wanted{type, 0, 0, self->tgid};
  if (const int e = range_of(f, lock, &wanted)) return error(e);
  if (command == kFGetlk) {
    if (type == locks::kUnlock) return error(EINVAL);
    return get_lock(self, f, lock, wanted, flock_va);
  }
  // A read lock needs a descriptor open for reading, a write lock one for writing.
  const uint32_t access = f->flags & LINUX_O_ACCMODE;  // 0 read, 1 write, 2 both
  if ((type == locks::kRead && access == 1) || (type == locks::kWrite && access == 0))
    return error(EBADF);
  if (command == kFSetlkw) return wait_for_lock(self, lock_key(f), wanted);
  const int e = locks::set(lock_key(f), wanted);
  return e ? error(e) : 0;
}

// flock(fd, operation) (kernel/file_locks.h): LOCK_SH or LOCK_EX, with
// LOCK_NB EAGAIN (Linux's EWOULDBLOCK) on a conflict, without it a wait a
// tick at a time as F_SETLKW's (EINTR on a signal); LOCK_UN. Any kind of
// descriptor, as Linux.
int64_t sys_flock(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_at(self->fds, args.a[0]);
  if (f == nullptr) return error(EBADF);
  const uint64_t operation = args.a[1] & ~flocks::kNonBlocking;
  if (operation == flocks::kUnlock) {
    flocks::drop(f);
    return 0;
  }
  if (operation != flocks::kShared && operation != flocks::kExclusive) return error(EINVAL);
  for (;;) {
    const int e = flocks::take(lock_key(f), f, operation);
    if (e != EAGAIN) return e ? error(e) : 0;
    if (args.a[1] & flocks::kNonBlocking) return error(EAGAIN);
    IrqLockGuard guard(sched::lock);
    if (signals::interrupted(self)) return error(EINTR);
    sched::sleep_locked(clock::cycles() + kTickCycles);
  }
}

// fsync, fdatasync: the RAM file system has nothing to write back (tmpfs
// answers the same); a pipe or the console cannot be synced (EINVAL).
int64_t sys_fsync(Process* self, TrapFrame*, const Args& args) {
  const OpenFile* f = file_at(self->fds, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (f->kind == OpenFile::kConsole || f->kind == OpenFile::kPipeRead ||
      f->kind == OpenFile::kPipeWrite || f->kind == OpenFile::kEventfd ||
      f->kind == OpenFile::kSocket || f->kind == OpenFile::kSignalfd)
    return error(EINVAL);
  return 0;
}

int64_t sys_fdatasync(Process* self, TrapFrame* frame, const Args& args) {
  return sys_fsync(self, frame, args);
}

// fadvise64(fd, offset, length, advice): advice about future reads, which
// this kernel (no page cache) has no use for; checked as Linux checks it.
int64_t sys_fadvise64(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kLastAdvice = 5;  // POSIX_FADV_NOREUSE
  const OpenFile* f = file_at(self->fds, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (f->kind == OpenFile::kPipeRead || f->kind == OpenFile::kPipeWrite ||
      f->kind == OpenFile::kEventfd || f->kind == OpenFile::kSocket)
    return error(ESPIPE);
  if (args.a[3] > kLastAdvice || static_cast<int64_t>(args.a[2]) < 0) return error(EINVAL);
  return 0;
}

// fchown: every file belongs to root and root is the only user, so a change
// to uid 0 / gid 0 (or -1: unchanged) holds; any other owner does not exist
// here (EPERM).
int64_t sys_fchown(Process* self, TrapFrame*, const Args& args) {
  constexpr uint32_t kUnchanged = ~uint32_t{0};
  if (file_at(self->fds, args.a[0]) == nullptr) return error(EBADF);
  const auto uid = static_cast<uint32_t>(args.a[1]), gid = static_cast<uint32_t>(args.a[2]);
  if ((uid != 0 && uid != kUnchanged) || (gid != 0 && gid != kUnchanged)) return error(EPERM);
  return 0;
}

// fchmod: a RAM file's permission bits (stat reports them; nothing checks
// them: everyone is root). The initrd is read-only (EROFS); the console,
// /dev/null and pipes have fixed modes here (EPERM).
int64_t sys_fchmod(Process* self, TrapFrame*, const Args& args) {
  const OpenFile* f = file_at(self->fds, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (f->kind == OpenFile::kRamFile) {
    ramfs::set_permissions(f->node, static_cast<uint32_t>(args.a[1]));
    return 0;
  }
  return error(f->kind == OpenFile::kInitrd || f->kind == OpenFile::kDirectory ? EROFS : EPERM);
}

// chmod(path, mode) and fchmodat(dirfd, path, mode): as fchmod, by path.
int64_t sys_fchmodat(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = at_path(self, args.a[0], args.a[1], path); e < 0) return e;
  const ramfs::Found found = ramfs::lookup(path);
  if (!found.exists) return error(ENOENT);
  if (found.node == nullptr) return error(EROFS);  // the initrd's
  ramfs::set_permissions(found.node, static_cast<uint32_t>(args.a[2]));
  return 0;
}

int64_t sys_chmod(Process* self, TrapFrame* frame, const Args& args) {
  return sys_fchmodat(self, frame,
                      Args{{static_cast<uint64_t>(LINUX_AT_FDCWD), args.a[0], args.a[1]}});
}

// utimensat(dirfd, path, times, flags): a RAM file's access and
// modification times (futimens: path NULL, the descriptor's file). NULL
// times or UTIME_NOW: the virtual time since boot (there is no wall clock);
// UTIME_OMIT leaves one alone.
int64_t sys_utimensat(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kUtimeNow = (1 << 30) - 1, kUtimeOmit = (1 << 30) - 2;
  constexpr uint64_t kAtSymlinkNofollow = 0x100;
  if (args.a[3] & ~(kAtSymlinkNofollow | LINUX_AT_EMPTY_PATH)) return error(EINVAL);
  ramfs::Node* node = nullptr;
  if (args.a[1] == 0) {
    const OpenFile* f = file_at(self->fds, args.a[0]);
    if (f == nullptr) return error(EBADF);
    if (f->kind != OpenFile::kRamFile) return error(f->kind == OpenFile::kInitrd ? EROFS : EPERM);
    node = f->node;
  } else {
    char path[kMaxPath];  // AT_SYMLINK_NOFOLLOW: a symbolic link's own times
    const FollowLast follow = (args.a[3] & kAtSymlinkNofollow) ? kNoFollow : kFollow;
    if (const int64_t e = at_path(self, args.a[0], args.a[1], path, follow); e < 0) return e;
    const ramfs::Found found = ramfs::lookup(path);
    if (!found.exists) return error(ENOENT);
    if (found.node == nullptr) return error(EROFS);  // the initrd's
    node = found.node;
  }
  uint64_t now[2];
  clock::to_timespec(clock::realtime_cycles(), now);
  uint64_t times[4] = {now[0], now[1], now[0], now[1]};
  if (args.a[2] != 0 && !copy_from_user(self->space(), times, args.a[2], sizeof times))
    return error(EFAULT);
  for (int i = 1; i < 4; i += 2) {
    if (times[i] == kUtimeNow) times[i - 1] = now[0], times[i] = now[1];
    if (times[i] >= 1'000'000'000 && times[i] != kUtimeOmit) return error(EINVAL);
  }
  ramfs::set_times(node, times, times[1] != kUtimeOmit, times[3] != kUtimeOmit);
  return 0;
}

}  // namespace kernel::sys
