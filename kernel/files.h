// Descriptor tables (FdTable) and open file descriptions (OpenFile,
// kernel/process.h): a descriptor points at a description, which dup, fork
// and threads share (one offset, one pipe end) and which is closed with its
// last descriptor.
#pragma once
#include <cstdint>

#include "firmware/syscalls.h"
#include "kernel/process.h"

namespace kernel {

// Linux's memory devices (character major 1) by minor: OpenFile::device of
// a kNull description.
inline constexpr uint32_t kDevNull = 3, kDevZero = 5, kDevRandom = 8, kDevUrandom = 9;

// A FIFO opened O_RDWR (kernel/sys_fifo.cpp): one description, kPipeRead,
// that writes too (Linux lets such an open hold both ends).
inline bool writes_fifo(const OpenFile* f) {
  return f->kind == OpenFile::kPipeRead && f->node != nullptr &&
         (f->flags & LINUX_O_ACCMODE) == LINUX_O_RDWR;
}

// A fresh description (refs 1) holding `file`'s fields; nullptr when the
// pool is exhausted.
OpenFile* new_description(const OpenFile& file);
void hold_description(OpenFile* file);
// Drops a reference; the last one closes it (a pipe end, kernel/pipe.h).
void release_description(OpenFile* file);

// Linux's anonymous inodes that read and poll: eventfd, timerfd, signalfd.
inline bool anonymous(const OpenFile* f) {
  return f->kind == OpenFile::kEventfd || f->kind == OpenFile::kTimerfd ||
         f->kind == OpenFile::kSignalfd;
}

// What has no offset (FMODE_PREAD, FMODE_PWRITE, FMODE_LSEEK unset): the
// console, pipes, sockets, the anonymous files and epoll; pread64, pwrite64
// and lseek say ESPIPE, the copy calls EINVAL or ESPIPE (kernel/sys_copy.cpp).
inline bool cannot_seek(const OpenFile* f) {
  return f->kind == OpenFile::kConsole || f->kind == OpenFile::kPipeRead ||
         f->kind == OpenFile::kPipeWrite || f->kind == OpenFile::kSocket || anonymous(f) ||
         f->kind == OpenFile::kEpoll;
}

// An O_PATH description: it names a file without opening it (kernel/sys_files.cpp).
inline bool path_only(const OpenFile* f) { return (f->flags & LINUX_O_PATH) != 0; }

// The open file at `fd`, or nullptr if none or if it is path_only (Linux's
// fdget: every call that uses the file itself then says EBADF).
OpenFile* file_at(FdTable* fds, uint64_t fd);
// The open file at `fd`, path_only ones too, or nullptr (Linux's
// fdget_raw: close, dup, fcntl's descriptor commands, fstat, fstatfs,
// fchdir, a dirfd of the *at() calls).
OpenFile* file_or_path_at(FdTable* fds, uint64_t fd);
// The open file at `fd` if it is of `kind`; else nullptr and *error =
// -EBADF (none) or -`wrong_kind` (another kind: EINVAL, ENOTSOCK).
OpenFile* file_of_kind(FdTable* fds, uint64_t fd, OpenFile::Kind kind, int wrong_kind,
                       int64_t* error);
// A new description of `file` at the lowest free fd: the fd, -ENFILE (no
// description was made) or -EMFILE (the description was released).
int64_t open_description(FdTable* fds, const OpenFile& file, bool cloexec);
// Puts `file` (one reference handed over) at the lowest free fd >= `lowest`;
// the fd, or -EMFILE (the reference is dropped then).
int64_t install_file(FdTable* fds, uint64_t lowest, OpenFile* file, bool cloexec);
// The descriptors `p` may have: RLIMIT_NOFILE's soft limit, at most
// kMaxFiles. New descriptors stay below it (EMFILE; dup2, dup3: EBADF;
// F_DUPFD: EINVAL), as Linux's; those already open above it stay open.
uint64_t descriptor_limit(const Process* p);
// Puts `file` (one reference handed over) at exactly `fd`, closing what was
// there: dup2/dup3.
void install_file_at(FdTable* fds, uint64_t fd, OpenFile* file, bool cloexec);
// Closes `fd`; the calling process's record locks on its file go with it
// (POSIX: any close of the file releases them).
void close_file(FdTable* fds, uint64_t fd);
// What identifies an open file for record locks (kernel/record_locks.h):
// what every description of it shares.
const void* lock_key(const OpenFile* file);
// Every descriptor of a table whose last user went (process_parts).
void close_all(FdTable* fds);

}  // namespace kernel
