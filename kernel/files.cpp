#include "kernel/files.h"

#include "kernel/linux_errno.h"

namespace kernel {

OpenFile* file_at(FdTable* fds, uint64_t fd) {
  if (fd >= kMaxFiles || fds->files[fd].kind == OpenFile::kNone) return nullptr;
  return &fds->files[fd];
}

int64_t install_file(FdTable* fds, uint64_t lowest, const OpenFile& file, bool cloexec) {
  LockGuard guard(fds->lock);  // threads sharing the table may open at once
  for (uint64_t fd = lowest; fd < kMaxFiles; ++fd) {
    if (fds->files[fd].kind != OpenFile::kNone) continue;
    fds->files[fd] = file;
    fds->cloexec = cloexec ? fds->cloexec | (1u << fd) : fds->cloexec & ~(1u << fd);
    return static_cast<int64_t>(fd);
  }
  return -EMFILE;
}

void install_file_at(FdTable* fds, uint64_t fd, const OpenFile& file, bool cloexec) {
  LockGuard guard(fds->lock);
  fds->files[fd] = file;
  fds->cloexec = cloexec ? fds->cloexec | (1u << fd) : fds->cloexec & ~(1u << fd);
}

void close_file(FdTable* fds, uint64_t fd) {
  LockGuard guard(fds->lock);
  fds->files[fd].kind = OpenFile::kNone;
  fds->cloexec &= ~(1u << fd);
}

}  // namespace kernel
