#include "kernel/fd_links.h"

#include "kernel/console.h"
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

namespace {

// The name Linux's /proc gives an open file that has no path.
void name_of_pathless(const OpenFile& f, char* target, uint64_t capacity) {
  // A stable number for the pipe or socket (Linux: its inode's).
  const void* object =
      f.pipe ? static_cast<const void*>(f.pipe) : f.socket;  // unconnected: its record
  const uint64_t id = (reinterpret_cast<uint64_t>(object) >> 4) & 0xffffff;
  switch (f.kind) {
    case OpenFile::kConsole:
      copy_name(target, capacity, "/dev/ttyS0");
      return;
    case OpenFile::kPipeRead:
    case OpenFile::kPipeWrite:
      kformat(target, capacity, "pipe:[%lu]", id);
      return;
    case OpenFile::kSocket:
      kformat(target, capacity, "socket:[%lu]", id);
      return;
    case OpenFile::kEventfd:
      copy_name(target, capacity, "anon_inode:[eventfd]");
      return;
    case OpenFile::kEpoll:
      copy_name(target, capacity, "anon_inode:[eventpoll]");
      return;
    case OpenFile::kTimerfd:
      copy_name(target, capacity, "anon_inode:[timerfd]");
      return;
    case OpenFile::kSignalfd:
      copy_name(target, capacity, "anon_inode:[signalfd]");
      return;
    default:
      copy_name(target, capacity, "/");
  }
}

}  // namespace

int64_t link_target(Process* self, const char* path, char* target, uint64_t capacity) {
  const int64_t fd = descriptor_named(path);
  if (fd < 0) return error(ENOENT);
  if (starts_with(path, "/dev/std")) {
    kformat(target, capacity, "/proc/self/fd/%ld", fd);
    return static_cast<int64_t>(string_length(target));
  }
  const OpenFile* f = file_or_path_at(self->fds, static_cast<uint64_t>(fd));
  if (f == nullptr) return error(ENOENT);
  if (f->path[0] != 0 && f->kind != OpenFile::kConsole)
    copy_name(target, capacity, f->path);
  else
    name_of_pathless(*f, target, capacity);
  return static_cast<int64_t>(string_length(target));
}

int64_t reopen(Process* self, int64_t fd, uint64_t flags, const char* path) {
  OpenFile* f = file_at(self->fds, static_cast<uint64_t>(fd));
  if (f == nullptr) return error(ENOENT);
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
    return sys::open_described(self, open, flags);
  }
  hold_description(f);
  return install_file(self->fds, 0, f, flags & LINUX_O_CLOEXEC);
}

}  // namespace kernel::fd_links
