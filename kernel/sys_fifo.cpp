// Named pipes (FIFOs) in the RAM file system: mknod and mknodat make them
// (glibc's mkfifo is mknodat with S_IFIFO), open(2) of one gives a pipe end
// (kernel/pipe.h's open_named: the opens of one FIFO share a pipe). mknod
// makes regular files too, as Linux does for S_IFREG or type 0; character
// and block devices and sockets are EPERM (this kernel has no device
// numbers to give them; Linux says EPERM without CAP_MKNOD).
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/pipe.h"
#include "kernel/ramfs.h"
#include "kernel/syscall_handlers.h"
#include "kernel/text.h"

namespace kernel::sys {
namespace {

constexpr uint32_t kTypeMask = 0170000, kFifo = 0010000, kCharacter = 0020000, kBlock = 0060000,
                   kRegular = 0100000, kSocket = 0140000;

int64_t make_node(Process* self, uint64_t dirfd, uint64_t path_va, uint64_t mode) {
  uint32_t type = static_cast<uint32_t>(mode) & kTypeMask;
  if (type == 0) type = kRegular;  // Linux: no type is a regular file
  if (type != kFifo && type != kRegular && type != kCharacter && type != kBlock && type != kSocket)
    return error(EINVAL);
  char path[kMaxPath];  // a symbolic link there is not followed: EEXIST
  if (const int64_t e = at_path(self, dirfd, path_va, path, kNoFollow); e < 0) return e;
  if (type != kFifo && type != kRegular) return error(ramfs::lookup(path).exists ? EEXIST : EPERM);
  const uint32_t permissions = static_cast<uint32_t>(mode) & 07777 & ~self->group->umask;
  const int e = ramfs::make_node(path, type | permissions);
  return e ? error(e) : 0;
}

}  // namespace

int64_t open_fifo(Process* self, ramfs::Node* node, const char* path, uint64_t flags) {
  const uint64_t access = flags & LINUX_O_ACCMODE;
  if (access == LINUX_O_ACCMODE) return error(EINVAL);  // Linux's fifo_open: neither way
  const bool reading = access != LINUX_O_WRONLY, writing = access != 0;  // O_RDONLY
  const bool nonblocking = flags & LINUX_O_NONBLOCK;
  ramfs::hold(node);  // the node outlives an unlink while its pipe is open: the pipe's name
  int e = 0;
  Pipe* pipe = pipe::open_named(self, node, reading, writing, nonblocking, &e);
  if (pipe == nullptr) {
    ramfs::release(node);
    return error(e);
  }
  OpenFile end{};
  end.kind = reading ? OpenFile::kPipeRead : OpenFile::kPipeWrite;  // O_RDWR: writes_fifo
  end.flags = static_cast<uint32_t>(flags & (LINUX_O_ACCMODE | LINUX_O_NONBLOCK));
  end.pipe = pipe;
  end.node = node;
  copy_name(end.path, sizeof end.path, path);
  OpenFile* description = new_description(end);
  if (description == nullptr) {
    if (reading) pipe::close_end(pipe, false);
    if (writing) pipe::close_end(pipe, true);
    ramfs::release(node);
    return error(ENFILE);
  }
  return install_file(self->fds, 0, description, flags & LINUX_O_CLOEXEC);  // EMFILE: released
}

int64_t sys_mknodat(Process* self, TrapFrame*, const Args& args) {
  return make_node(self, args.a[0], args.a[1], args.a[2]);
}

int64_t sys_mknod(Process* self, TrapFrame*, const Args& args) {
  return make_node(self, static_cast<uint64_t>(LINUX_AT_FDCWD), args.a[0], args.a[1]);
}

}  // namespace kernel::sys
