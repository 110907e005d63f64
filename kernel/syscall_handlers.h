// One handler per system call of firmware/syscalls.h's table, generated from
// it: a number added to the table without a handler does not link, and the
// dispatch switch (-Wswitch-enum) has a case for every number. The handlers
// live by subject in sys_files.cpp, sys_memory.cpp, sys_system.cpp and
// syscalls.cpp (processes and DCPI's own calls).
#pragma once
#include <cstdint>

#include "firmware/syscalls.h"
#include "kernel/process.h"
#include "kernel/traps.h"

namespace kernel::sys {

// a0-a5 of the call.
struct Args {
  uint64_t a[6];
};

#define DCPI_DECLARE_SYSCALL_HANDLER(name, number) \
  int64_t sys_##name(Process* self, TrapFrame* frame, const Args& args);
DCPI_SYSCALLS(DCPI_DECLARE_SYSCALL_HANDLER)
#undef DCPI_DECLARE_SYSCALL_HANDLER

inline int64_t error(int e) { return -static_cast<int64_t>(e); }
// A handler that set every register itself (sigreturn): v0 and a3 are left alone.
inline constexpr int64_t kRegistersSet = INT64_MIN;

// A path argument copied in and resolved (kernel/path_walk.h): 0, or a
// negative errno (EFAULT, ENAMETOOLONG, ELOOP). Symbolic links are followed
// in every component, the last one too unless `follow_last` is kNoFollow
// (the calls that act on a link itself: lstat, unlink, rename, readlink, ...).
inline constexpr uint64_t kMaxPath = 256;
enum FollowLast : bool { kNoFollow = false, kFollow = true };
int64_t path_from_user(Process* self, uint64_t path_va, char (&path)[kMaxPath],
                       FollowLast follow_last = kFollow);
// The path as the program wrote it (EFAULT, ENAMETOOLONG), and the path
// resolved: a relative one made absolute inside `directory` ("" or "/": the
// root), symbolic links, ".", ".." and repeated or trailing slashes
// resolved ("" stays).
int64_t raw_path_from_user(Process* self, uint64_t path_va, char (&path)[kMaxPath]);
int64_t resolve_in(const char* directory, char (&path)[kMaxPath], FollowLast follow_last = kFollow);
// /proc/self/exe, Linux's link to the program the process runs (programs
// re-exec and reopen themselves through it), followed to that program's
// path unless the last component is not followed (readlink: its target).
void follow_self_exe(const Process* self, char (&path)[kMaxPath], FollowLast follow_last);
// A path for an *at() call (absolute, or relative to "/" with AT_FDCWD):
// 0 or -errno. kernel/sys_files.cpp.
int64_t at_path(Process* self, uint64_t dirfd, uint64_t path_va, char (&path)[kMaxPath],
                FollowLast follow_last = kFollow);
// stat64 of a path into user memory: 0 or -errno. kernel/sys_files.cpp.
int64_t stat_path(Process* self, const char* path, uint64_t buffer);
// A description (any kind) put at the lowest free fd (O_CLOEXEC from
// `flags`): the fd or -errno; one that could not be made leaves its RAM
// file's hold to the function, one that found no free fd was released
// with it (release_description). kernel/sys_files.cpp.
int64_t open_described(Process* self, const OpenFile& open, uint64_t flags);
// open(2) of a FIFO (`node`, at `path`): a pipe end's descriptor, or -errno.
// kernel/sys_fifo.cpp.
int64_t open_fifo(Process* self, ramfs::Node* node, const char* path, uint64_t flags);
// A NULL-terminated vector of strings (argv, envp) from user memory: at
// most `max` pointers into `out`, the strings into `strings` (`used` bytes
// of `capacity` advanced); the count, or -errno (EFAULT, E2BIG). NULL `va`:
// none. kernel/sys_process.cpp.
int64_t vector_from_user(Process* self, uint64_t va, const char** out, uint64_t max, char* strings,
                         uint64_t capacity, uint64_t* used);
// Pages for execve's and spawn's argument and environment strings.
inline constexpr uint64_t kArgPages = 4;  // 32 KB
// readv/writev (and sendmsg/recvmsg): `count` struct iovec at `iov_va`,
// one at a time through `one(base, length)`; a short transfer ends it.
template <typename Transfer>
int64_t vector_io(Process* self, uint64_t iov_va, uint64_t count, Transfer one) {
  constexpr uint64_t kIovMax = 1024;
  if (count > kIovMax) return error(EINVAL);
  int64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t iov[2];
    if (!copy_from_user(self->space(), iov, iov_va + 16 * i, sizeof iov)) return error(EFAULT);
    const int64_t n = one(iov[0], iov[1]);
    if (n < 0) return total ? total : n;
    total += n;
    if (static_cast<uint64_t>(n) < iov[1]) break;
  }
  return total;
}

// A struct timespec at `va` as cycles; 0 or -errno (EFAULT, EINVAL).
// kernel/sys_process.cpp.
int64_t timespec_cycles(Process* self, uint64_t va, uint64_t* cycles);
// A timeout (struct timespec at `va`, NULL: none) as the deadline the
// waits take: 0 wait forever, 1 do not wait, else the cycle it ends at.
// 0 or -errno. kernel/sys_process.cpp.
int64_t timespec_deadline(Process* self, uint64_t va, uint64_t* deadline);
// A struct timeval's seconds and microseconds as cycles; false if malformed
// (negative, or usec >= 1e6). kernel/sys_timers.cpp.
bool timeval_cycles(int64_t sec, int64_t usec, uint64_t* cycles);
// The thread `tid` names (0: the caller), or nullptr; with sched::lock.
// kernel/sys_sched.cpp.
Process* thread_or_self_locked(Process* self, uint64_t tid);
// fcntl's F_GETLK, F_SETLK, F_SETLKW on `file` with the struct flock at
// `flock_va`: 0 or -errno. kernel/sys_file_state.cpp.
int64_t record_lock(Process* self, OpenFile* file, uint64_t command, uint64_t flock_va);

}  // namespace kernel::sys
