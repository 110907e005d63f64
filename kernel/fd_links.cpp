#include "kernel/fd_links.h"

#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/ramfs.h"
#include "kernel/syscall_handlers.h"
#include "kernel/text.h"

namespace kernel::fd_links {
using sys::error;
namespace {

// The decimal number `digits` spells whole (no sign, no leading '+'); -1 if not.
int64_t whole_number(const char* digits) {
  if (*digits == 0) return -1;
  int64_t value = 0;
  for (; *digits; ++digits) {
    if (*digits < '0' || *digits > '9' || value > kMaxFiles) return -1;
    value = value * 10 + (*digits - '0');
  }
  return value;
}

}  // namespace

int64_t descriptor_named(const char* path) {
  if (same_string(path, "/dev/stdin")) return 0;
  if (same_string(path, "/dev/stdout")) return 1;
  if (same_string(path, "/dev/stderr")) return 2;
  if (starts_with(path, "/dev/fd/")) return whole_number(path + 8);
  if (starts_with(path, "/proc/self/fd/")) return whole_number(path + 14);
  return -1;
}

int64_t reopen(Process* self, int64_t fd, uint64_t flags, const char* path) {
  OpenFile* f = file_at(self->fds, static_cast<uint64_t>(fd));
  if (f == nullptr) return error(ENOENT);
  const bool cloexec = flags & LINUX_O_CLOEXEC;
  if (f->kind == OpenFile::kRamFile || f->kind == OpenFile::kConsole) {
    OpenFile open{};
    open.kind = f->kind;
    open.flags =
        static_cast<uint32_t>(flags & (LINUX_O_ACCMODE | LINUX_O_NONBLOCK | LINUX_O_APPEND));
    open.console_stream = f->console_stream;
    open.node = f->node;
    copy_name(open.path, sizeof open.path, path);
    if (f->kind == OpenFile::kRamFile) {
      if ((flags & LINUX_O_TRUNC) && !ramfs::truncate(f->node, 0)) return error(ENOSPC);
      ramfs::hold(f->node);
    }
    const int64_t opened = open_description(self->fds, open, cloexec);
    if (opened == error(ENFILE) && f->kind == OpenFile::kRamFile) ramfs::release(f->node);
    return opened;
  }
  hold_description(f);
  return install_file(self->fds, 0, f, cloexec);
}

}  // namespace kernel::fd_links
