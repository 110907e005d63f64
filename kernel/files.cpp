#include "kernel/files.h"

#include "kernel/epoll.h"
#include "kernel/file_locks.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/pipe.h"
#include "kernel/ramfs.h"
#include "kernel/record_locks.h"
#include "kernel/socket_end.h"

namespace kernel {
namespace {

constexpr uint32_t kDescriptions = 1024;
OpenFile descriptions[kDescriptions];
SpinLock lock;  // the pool and every `refs`

}  // namespace

OpenFile* new_description(const OpenFile& file) {
  IrqLockGuard guard(lock);
  for (OpenFile& slot : descriptions) {
    if (slot.refs != 0) continue;
    slot = file;
    slot.refs = 1;
    return &slot;
  }
  return nullptr;
}

void hold_description(OpenFile* file) {
  IrqLockGuard guard(lock);
  ++file->refs;
}

void release_description(OpenFile* file) {
  {
    IrqLockGuard guard(lock);
    if (--file->refs != 0) return;
    ++file->refs;  // kept while the end is closed, so nobody takes the slot
  }
  if (file->kind == OpenFile::kPipeRead || file->kind == OpenFile::kPipeWrite) {
    pipe::close_end(file->pipe, file->kind == OpenFile::kPipeWrite);
    if (writes_fifo(file)) pipe::close_end(file->pipe, true);
    if (file->node != nullptr) ramfs::release(file->node);  // a FIFO's (sys_fifo.cpp)
  }
  if (file->kind == OpenFile::kSocket) socket_end::close(file);
  if (file->kind == OpenFile::kEpoll) epoll::release(file->epoll);
  epoll::forget(file);
  flocks::drop(file);  // a flock lock is the description's
  if (file->kind == OpenFile::kGenerated)
    pages::release(reinterpret_cast<uint64_t>(file->file.data), file->held_pages);
  if (file->kind == OpenFile::kRamFile) ramfs::release(file->node);
  IrqLockGuard guard(lock);
  file->kind = OpenFile::kNone;
  file->refs = 0;
}

int64_t open_description(FdTable* fds, const OpenFile& file, bool cloexec) {
  OpenFile* description = new_description(file);
  if (description == nullptr) return -ENFILE;
  return install_file(fds, 0, description, cloexec);
}

OpenFile* file_of_kind(FdTable* fds, uint64_t fd, OpenFile::Kind kind, int wrong_kind,
                       int64_t* error) {
  OpenFile* f = file_at(fds, fd);
  *error = f == nullptr ? -EBADF : f->kind != kind ? -wrong_kind : 0;
  return *error ? nullptr : f;
}

OpenFile* file_or_path_at(FdTable* fds, uint64_t fd) {
  if (fd >= kMaxFiles) return nullptr;
  return fds->files[fd];
}

OpenFile* file_at(FdTable* fds, uint64_t fd) {
  OpenFile* f = file_or_path_at(fds, fd);
  return f != nullptr && !path_only(f) ? f : nullptr;
}

uint64_t descriptor_limit(const Process* p) {
  if (p == nullptr || p->kernel_thread || p->group == nullptr) return kMaxFiles;
  const uint64_t soft = p->group->limits[kRlimitNofile][0];
  return soft < kMaxFiles ? soft : kMaxFiles;
}

int64_t install_file(FdTable* fds, uint64_t lowest, OpenFile* file, bool cloexec) {
  const uint64_t limit = descriptor_limit(current());
  {
    LockGuard guard(fds->lock);  // threads sharing the table may open at once
    for (uint64_t fd = lowest; fd < limit; ++fd) {
      if (fds->files[fd] != nullptr) continue;
      fds->files[fd] = file;
      fds->cloexec =
          cloexec ? fds->cloexec | (uint64_t{1} << fd) : fds->cloexec & ~(uint64_t{1} << fd);
      return static_cast<int64_t>(fd);
    }
  }
  release_description(file);
  return -EMFILE;
}

namespace {

// A descriptor of `file` closed: the calling process's record locks on the
// file go (POSIX's rule; not for an O_PATH one, as Linux's filp_flush), then
// its reference.
void release_closed(OpenFile* file) {
  if (const Process* self = current(); self != nullptr && !self->kernel_thread && !path_only(file))
    locks::release(lock_key(file), self->tgid);
  release_description(file);
}

}  // namespace

void install_file_at(FdTable* fds, uint64_t fd, OpenFile* file, bool cloexec) {
  OpenFile* old;
  {
    LockGuard guard(fds->lock);
    old = fds->files[fd];
    fds->files[fd] = file;
    fds->cloexec =
        cloexec ? fds->cloexec | (uint64_t{1} << fd) : fds->cloexec & ~(uint64_t{1} << fd);
  }
  if (old != nullptr) release_closed(old);  // dup2 over a descriptor closes it
}

const void* lock_key(const OpenFile* file) {
  switch (file->kind) {
    case OpenFile::kRamFile:
      return file->node;
    case OpenFile::kInitrd:
      return file->file.data;
    default:
      return file;  // a pipe end, the console: the description itself
  }
}

void close_file(FdTable* fds, uint64_t fd) {
  OpenFile* old;
  {
    LockGuard guard(fds->lock);
    old = fds->files[fd];
    fds->files[fd] = nullptr;
    fds->cloexec &= ~(uint64_t{1} << fd);
  }
  if (old != nullptr) release_closed(old);
}

void close_all(FdTable* fds) {
  for (uint64_t fd = 0; fd < kMaxFiles; ++fd) close_file(fds, fd);
}

}  // namespace kernel
