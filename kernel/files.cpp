#include "kernel/files.h"

#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/pipe.h"
#include "kernel/ramfs.h"

namespace kernel {
namespace {

constexpr uint32_t kDescriptions = 256;
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
  if (file->kind == OpenFile::kPipeRead || file->kind == OpenFile::kPipeWrite)
    pipe::close_end(file->pipe, file->kind == OpenFile::kPipeWrite);
  if (file->kind == OpenFile::kRamFile) ramfs::release(file->node);
  IrqLockGuard guard(lock);
  file->kind = OpenFile::kNone;
  file->refs = 0;
}

OpenFile* file_at(FdTable* fds, uint64_t fd) {
  if (fd >= kMaxFiles) return nullptr;
  return fds->files[fd];
}

int64_t install_file(FdTable* fds, uint64_t lowest, OpenFile* file, bool cloexec) {
  {
    LockGuard guard(fds->lock);  // threads sharing the table may open at once
    for (uint64_t fd = lowest; fd < kMaxFiles; ++fd) {
      if (fds->files[fd] != nullptr) continue;
      fds->files[fd] = file;
      fds->cloexec = cloexec ? fds->cloexec | (1u << fd) : fds->cloexec & ~(1u << fd);
      return static_cast<int64_t>(fd);
    }
  }
  release_description(file);
  return -EMFILE;
}

void install_file_at(FdTable* fds, uint64_t fd, OpenFile* file, bool cloexec) {
  OpenFile* old;
  {
    LockGuard guard(fds->lock);
    old = fds->files[fd];
    fds->files[fd] = file;
    fds->cloexec = cloexec ? fds->cloexec | (1u << fd) : fds->cloexec & ~(1u << fd);
  }
  if (old != nullptr) release_description(old);
}

void close_file(FdTable* fds, uint64_t fd) {
  OpenFile* old;
  {
    LockGuard guard(fds->lock);
    old = fds->files[fd];
    fds->files[fd] = nullptr;
    fds->cloexec &= ~(1u << fd);
  }
  if (old != nullptr) release_description(old);
}

void close_all(FdTable* fds) {
  for (uint64_t fd = 0; fd < kMaxFiles; ++fd) close_file(fds, fd);
}

}  // namespace kernel
