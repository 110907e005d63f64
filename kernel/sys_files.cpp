// File system calls over the initrd (read-only) and the console: the
// Linux/Alpha calls newlib and glibc (with its dynamic loader) make.
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/eventfd.h"
#include "kernel/fd_links.h"
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/pipe.h"
#include "kernel/procfs.h"
#include "kernel/ramfs.h"
#include "kernel/signalfd.h"
#include "kernel/socket_end.h"
#include "kernel/syscall_handlers.h"
#include "kernel/text.h"
#include "kernel/timerfd.h"

namespace kernel::sys {
namespace {

constexpr uint32_t kModeCharDevice = 0020620, kModeNull = 0020666, kModeFifo = 0010600,
                   kModeSocket = 0140777, kModeGenerated = 0100444;
constexpr uint32_t kModeTypeMask = 0170000, kModeDirectory = 0040000, kModeRegular = 0100000;
constexpr uint64_t kTcgets = 0x402c7413;  // _IOR('t', 19, struct termios): isatty()
constexpr uint64_t kTermiosBytes = 44;
constexpr uint64_t kFGetfd = 1, kFSetfd = 2, kFGetfl = 3, kFSetfl = 4, kFDupfd = 0,
                   kFDupfdCloexec = 1030, kFGetlk = 7, kFSetlk = 8, kFSetlkw = 9;

constexpr uint64_t kOCloexec = LINUX_O_CLOEXEC, kODirectory = 0100000, kONofollow = 0200000,
                   kOPath = LINUX_O_PATH, kFdCloexec = 1;  // Linux/Alpha's (asm/fcntl.h)
constexpr uint64_t kAtSymlinkNofollow = 0x100;
constexpr uint32_t kModeSymbolicLink = 0120000, kModeFifoType = 0010000;
constexpr uint64_t kBounceBytes = 512;  // RAM file data goes through the stack

OpenFile* file_of(Process* self, uint64_t fd) { return file_at(self->fds, fd); }
OpenFile* file_or_path_of(Process* self, uint64_t fd) { return file_or_path_at(self->fds, fd); }

// The memory device (kernel/files.h) a path names; its minor, or 0.
uint32_t memory_device(const char* path) {
  if (same_string(path, "/dev/null")) return kDevNull;
  if (same_string(path, "/dev/zero")) return kDevZero;
  if (same_string(path, "/dev/random")) return kDevRandom;
  if (same_string(path, "/dev/urandom")) return kDevUrandom;
  return 0;
}

// A read of /dev/zero (zeroes) or /dev/random and /dev/urandom (getrandom's
// words): all `count` bytes, or -EFAULT.
int64_t read_device(Process* self, const OpenFile* f, uint64_t buffer, uint64_t count) {
  uint64_t words[kBounceBytes / 8];
  for (uint64_t done = 0; done < count; done += kBounceBytes) {
    for (uint64_t& word : words) word = f->device == kDevZero ? 0 : clock::random_word();
    const uint64_t n = count - done < kBounceBytes ? count - done : kBounceBytes;
    if (!copy_to_user(self->space(), buffer + done, words, n))
      return done ? static_cast<int64_t>(done) : error(EFAULT);
  }
  return static_cast<int64_t>(count);
}

// Reads from `offset` without moving the file's offset; bytes read or -errno.
int64_t read_at(Process* self, OpenFile* f, uint64_t buffer, uint64_t count, uint64_t offset) {
  if (f->kind == OpenFile::kNull && f->device != kDevNull)
    return read_device(self, f, buffer, count);
  if (f->kind == OpenFile::kConsole || f->kind == OpenFile::kNull) return 0;  // end of file
  if (f->kind == OpenFile::kPipeWrite) return error(EBADF);
  if (f->kind == OpenFile::kDirectory) return error(EISDIR);
  if (f->kind == OpenFile::kRamFile) {
    if ((f->flags & LINUX_O_ACCMODE) == LINUX_O_WRONLY) return error(EBADF);
    uint64_t done = 0;
    char bounce[kBounceBytes];
    while (done < count) {
      const uint64_t want = count - done < kBounceBytes ? count - done : kBounceBytes;
      const uint64_t got = ramfs::read(f->node, offset + done, bounce, want);
      if (got == 0) break;
      if (!copy_to_user(self->space(), buffer + done, bounce, got))
        return done ? static_cast<int64_t>(done) : error(EFAULT);
      done += got;
    }
    return static_cast<int64_t>(done);
  }
  if (offset >= f->file.size) return 0;
  const uint64_t left = f->file.size - offset;
  if (count > left) count = left;
  if (!copy_to_user(self->space(), buffer, f->file.data + offset, count)) return error(EFAULT);
  return static_cast<int64_t>(count);
}

// A write at `offset` of a RAM file; bytes written or -errno.
int64_t write_ram_at(Process* self, OpenFile* f, uint64_t buffer, uint64_t count, uint64_t offset) {
  if ((f->flags & LINUX_O_ACCMODE) == 0) return error(EBADF);  // opened read-only
  uint64_t done = 0;
  char bounce[kBounceBytes];
  while (done < count) {
    const uint64_t n = count - done < kBounceBytes ? count - done : kBounceBytes;
    if (!copy_from_user(self->space(), bounce, buffer + done, n)) break;
    if (!ramfs::write(f->node, offset + done, bounce, n)) {
      if (done == 0) return error(ENOSPC);
      break;
    }
    done += n;
  }
  return done || count == 0 ? static_cast<int64_t>(done) : error(EFAULT);
}

// A write at the description's offset (the end with O_APPEND), moving it.
int64_t write_ram_file(Process* self, OpenFile* f, uint64_t buffer, uint64_t count) {
  if (f->flags & LINUX_O_APPEND) f->offset = ramfs::size(f->node);
  const int64_t n = write_ram_at(self, f, buffer, count, f->offset);
  if (n > 0) f->offset += static_cast<uint64_t>(n);
  return n;
}

int64_t write_console(Process* self, OpenFile* f, uint64_t buffer, uint64_t count) {
  if (f->kind == OpenFile::kRamFile) return write_ram_file(self, f, buffer, count);
  if (f->kind == OpenFile::kEventfd) return eventfd::write(self, f, buffer, count);
  if (f->kind == OpenFile::kNull) return static_cast<int64_t>(count);
  if (f->kind == OpenFile::kPipeWrite || writes_fifo(f))
    return pipe::write(self, f->pipe, f->flags & LINUX_O_NONBLOCK, false, buffer, count);
  if (f->kind == OpenFile::kSocket) return socket_end::write(self, f, 0, buffer, count);
  if (f->kind == OpenFile::kSignalfd) return error(EINVAL);  // Linux: no write there
  if (f->kind != OpenFile::kConsole) return error(EBADF);
  char chunk[256];
  const bool to_host = is_init(self->tgid);
  for (uint64_t done = 0; done < count;) {
    const uint64_t n = count - done < sizeof chunk ? count - done : sizeof chunk;
    if (!copy_from_user(self->space(), chunk, buffer + done, n))
      return done ? static_cast<int64_t>(done) : error(EFAULT);
    console_write(chunk, n, to_host, f->console_stream);
    done += n;
  }
  return static_cast<int64_t>(count);
}

// Files read without an offset: a pipe's read end, a socket, an eventfd,
// a timerfd, a signalfd.
bool reads_as_stream(const OpenFile* f) {
  return f->kind == OpenFile::kPipeRead || f->kind == OpenFile::kSocket || anonymous(f);
}

// One of those, as read(2) reads it.
int64_t read_stream(Process* self, OpenFile* f, uint64_t buffer, uint64_t count) {
  if (f->kind == OpenFile::kSocket) return socket_end::read(self, f, 0, buffer, count);
  if (f->kind == OpenFile::kEventfd) return eventfd::read(self, f, buffer, count);
  if (f->kind == OpenFile::kTimerfd) return timerfd::read(self, f, buffer, count);
  if (f->kind == OpenFile::kSignalfd) return signalfd::read(self, f, buffer, count);
  return pipe::read(self, f->pipe, f->flags & LINUX_O_NONBLOCK, buffer, count);
}

// O_PATH keeps only O_DIRECTORY, O_NOFOLLOW and O_CLOEXEC (Linux's
// O_PATH_FLAGS): O_CREAT, O_TRUNC and the access mode are ignored.
uint64_t open_flags(uint64_t flags) {
  return (flags & kOPath) ? flags & (kOPath | kODirectory | kONofollow | kOCloexec) : flags;
}

// open(2) follows a symbolic link in the last component unless O_NOFOLLOW
// (then ELOOP) or O_CREAT|O_EXCL (then EEXIST: a dangling link is not
// created through) say not to.
FollowLast open_flags_follow(uint64_t flags) {
  if (flags & kONofollow) return kNoFollow;
  return (flags & LINUX_O_CREAT) && (flags & LINUX_O_EXCL) ? kNoFollow : kFollow;
}

// A /proc or /sys file (kernel/procfs.h), made now, read-only.
int64_t open_generated(Process* self, const char* path, uint64_t flags) {
  if ((flags & LINUX_O_ACCMODE) != 0) return error(EACCES);
  OpenFile made{};
  made.kind = OpenFile::kGenerated;
  uint64_t data;
  if (!procfs::make(self, path, &data, &made.held_pages, &made.file.size)) return error(ENOMEM);
  made.file.data = reinterpret_cast<const char*>(data);
  made.file.mode = kModeGenerated;
  copy_name(made.path, sizeof made.path, path);
  const int64_t fd = open_description(self->fds, made, flags & kOCloexec);
  if (fd == error(ENFILE)) pages::release(data, made.held_pages);
  return fd;
}

bool is_directory(const ramfs::Found& found) {
  const uint32_t mode = found.node ? ramfs::mode(found.node) : found.file.mode;
  return (mode & kModeTypeMask) == kModeDirectory;
}

// What `found` names, described as open for reading: a directory (for
// getdents64 and as a dirfd), a RAM file (held until the last close) or an
// initrd file.
void describe_found(const ramfs::Found& found, OpenFile* open) {
  const uint32_t mode = found.node ? ramfs::mode(found.node) : found.file.mode;
  open->kind = is_directory(found) ? OpenFile::kDirectory
               : found.node        ? OpenFile::kRamFile
                                   : OpenFile::kInitrd;
  open->file = found.file;
  open->file.mode = mode;
  open->node = found.node;
  if (open->kind == OpenFile::kRamFile) ramfs::hold(found.node);
}

// O_PATH (Linux 2.6.39): a description that names the file `path` leads to
// without opening it (path_only, kernel/files.h): no access is checked, a
// FIFO is not waited on, no /proc text is made; a symbolic link left
// unfollowed (O_NOFOLLOW) is named itself. Only the calls that take
// file_or_path_at use it; F_GETFL says O_PATH, O_DIRECTORY, O_NOFOLLOW.
int64_t open_path_only(Process* self, const char* path, uint64_t flags) {
  OpenFile named{};
  named.flags = static_cast<uint32_t>(flags & (kOPath | kODirectory | kONofollow));
  copy_name(named.path, sizeof named.path, path);
  if (const uint32_t device = memory_device(path)) {
    named.kind = OpenFile::kNull;
    named.device = device;
  } else if (procfs::provides(path)) {
    named.kind = OpenFile::kInitrd;  // as stat_path describes it: size 0
    named.file = initrd::File{nullptr, 0, kModeGenerated};
  } else {
    const ramfs::Found found = ramfs::lookup(path);
    if (!found.exists) return error(ENOENT);
    if ((flags & kODirectory) && !is_directory(found)) return error(ENOTDIR);
    describe_found(found, &named);
    return open_described(self, named, flags);
  }
  if (flags & kODirectory) return error(ENOTDIR);
  return open_described(self, named, flags);
}

// Opens a memory device (/dev/null, /dev/zero, /dev/urandom; any access) or
// an initrd path read-only.
int64_t open_path(Process* self, const char* path, uint64_t flags) {
  if (flags & kOPath) return open_path_only(self, path, flags);
  if (starts_with(path, "/proc/self/task/") || starts_with(path, "/proc/thread-self/")) {
    // glibc's pthread_setname_np/getname_np of another thread go through
    // /proc/self/task/TID/comm; this kernel has no /proc file system (a
    // thread names itself with prctl, which the process table records).
    kprintf(
        "dcpi-kernel: pid %u (%s): %s: no /proc/self/task here (ENOENT); a thread names "
        "itself with prctl(PR_SET_NAME)\n",
        self->tgid, self->name, path);
    return error(ENOENT);
  }
  if (const int64_t fd = fd_links::descriptor_named(path); fd >= 0)
    return fd_links::reopen(self, fd, flags, path);
  if (procfs::provides(path)) return open_generated(self, path, flags);
  if (const uint32_t device = memory_device(path)) {
    OpenFile null{};
    null.kind = OpenFile::kNull;
    null.device = device;
    null.flags = static_cast<uint32_t>(flags & (LINUX_O_ACCMODE | LINUX_O_NONBLOCK));
    copy_name(null.path, sizeof null.path, path);
    return open_description(self->fds, null, flags & kOCloexec);
  }
  const ramfs::Found named = ramfs::lookup(path);
  const uint32_t named_type = named.node ? ramfs::mode(named.node) & kModeTypeMask : 0;
  // A link here was left unfollowed (open_flags_follow): by O_CREAT|O_EXCL,
  // which Linux answers EEXIST, or by O_NOFOLLOW, ELOOP.
  if (named_type == kModeSymbolicLink)
    return error((flags & LINUX_O_CREAT) && (flags & LINUX_O_EXCL) ? EEXIST : ELOOP);
  if (named_type == kModeFifoType) {
    if ((flags & LINUX_O_CREAT) && (flags & LINUX_O_EXCL)) return error(EEXIST);
    if (flags & kODirectory) return error(ENOTDIR);
    return open_fifo(self, named.node, path, flags);
  }
  if (named_type == (kModeSocket & kModeTypeMask)) return error(ENXIO);  // a bound socket's name
  OpenFile open{};
  open.flags = static_cast<uint32_t>(flags & (LINUX_O_ACCMODE | LINUX_O_NONBLOCK | LINUX_O_APPEND));
  copy_name(open.path, sizeof open.path, path);
  const bool writing = (flags & LINUX_O_ACCMODE) != 0 || (flags & (LINUX_O_CREAT | LINUX_O_TRUNC));
  if (writing) {  // a RAM file (the initrd's copied up)
    if (flags & kODirectory) return error(EISDIR);
    ramfs::Node* node;
    if (const int e =
            ramfs::open_for_write(path, flags & LINUX_O_CREAT, flags & LINUX_O_EXCL, &node))
      return error(e);
    if ((flags & LINUX_O_TRUNC) && !ramfs::truncate(node, 0)) return error(ENOSPC);
    open.kind = OpenFile::kRamFile;
    open.node = node;
    ramfs::hold(node);
  } else {
    if (!named.exists) return error(ENOENT);
    if ((flags & kODirectory) && !is_directory(named)) return error(ENOTDIR);
    describe_found(named, &open);
  }
  return open_described(self, open, flags);
}

void fill_stat64(const OpenFile& f, linux_alpha_stat64* st) {
  *st = linux_alpha_stat64{};
  st->st_nlink = 1;
  st->st_blksize = pages::kPageBytes;
  if (f.kind == OpenFile::kConsole) {
    st->st_mode = kModeCharDevice;
    st->st_rdev = (4 << 8) | 64;  // like /dev/ttyS0
    return;
  }
  if (f.kind == OpenFile::kNull) {
    st->st_mode = kModeNull;
    st->st_rdev = (1 << 8) | f.device;  // Linux's mem major 1
    return;
  }
  if (f.kind == OpenFile::kSocket) {
    st->st_mode = kModeSocket;
    st->st_ino = reinterpret_cast<uint64_t>(f.pipe) >> 4;
    return;
  }
  if (anonymous(&f)) {
    st->st_mode = 0600;
    st->st_ino = reinterpret_cast<uint64_t>(&f) >> 4;
    return;
  }
  if (f.kind == OpenFile::kPipeRead || f.kind == OpenFile::kPipeWrite) {
    st->st_mode = kModeFifo;
    st->st_size = static_cast<int64_t>(pipe::available(f.pipe));
    st->st_dev = 2;
    st->st_ino = reinterpret_cast<uint64_t>(f.pipe) >> 4;
    return;
  }
  if (f.kind == OpenFile::kRamFile) {
    st->st_mode = ramfs::mode(f.node);
    st->st_nlink = ramfs::names(f.node);
    st->st_size = static_cast<int64_t>(ramfs::size(f.node));
    st->st_blocks = (ramfs::size(f.node) + 511) >> 9;
    st->st_ino = ramfs::inode(f.node);
    st->st_dev = 1;
    uint64_t times[6];
    ramfs::get_times(f.node, times);
    for (int i = 0; i < 6; ++i) st->st_times[i] = times[i];
    return;
  }
  st->st_mode = f.file.mode;
  st->st_size = static_cast<int64_t>(f.file.size);
  st->st_blocks = (f.file.size + 511) >> 9;
  st->st_ino = reinterpret_cast<uint64_t>(f.file.data) >> 2;
  st->st_dev = 1;
  // The initrd's files were made when dcpi run booted the machine.
  uint64_t boot[2];
  clock::to_timespec(clock::realtime_cycles() - clock::cycles(), boot);
  for (int i = 0; i < 6; i += 2) st->st_times[i] = boot[0];
}

int64_t stat64_to_user(Process* self, const OpenFile& f, uint64_t buffer) {
  linux_alpha_stat64 st;
  fill_stat64(f, &st);
  if (!copy_to_user(self->space(), buffer, &st, sizeof st)) return error(EFAULT);
  return 0;
}

}  // namespace

int64_t open_described(Process* self, const OpenFile& open, uint64_t flags) {
  const int64_t fd = open_description(self->fds, open, flags & kOCloexec);
  if (fd == error(ENFILE) && open.kind == OpenFile::kRamFile) ramfs::release(open.node);
  return fd;
}

// A path for an *at() call: absolute, or relative to the working directory
// (AT_FDCWD) or to the directory `dirfd` was opened as (libstdc++'s
// filesystem::remove_all walks a tree by directory descriptors).
int64_t at_path(Process* self, uint64_t dirfd, uint64_t path_va, char (&path)[kMaxPath],
                FollowLast follow_last) {
  if (static_cast<int64_t>(dirfd) == LINUX_AT_FDCWD)
    return path_from_user(self, path_va, path, follow_last);
  if (const int64_t e = raw_path_from_user(self, path_va, path); e < 0) return e;
  const char* directory = "";
  if (path[0] != '/' && path[0] != 0) {
    const OpenFile* named = file_or_path_of(self, dirfd);  // O_PATH's too
    if (named == nullptr) return error(EBADF);
    if (named->kind != OpenFile::kDirectory) return error(ENOTDIR);
    directory = named->path[0] ? named->path : "/";
  }
  if (const int64_t e = resolve_in(directory, path, follow_last); e < 0) return e;
  follow_self_exe(self, path, follow_last);
  return 0;
}

// stat of a path: /dev/null, a RAM file or directory, the initrd's.
int64_t stat_path(Process* self, const char* path, uint64_t buffer) {
  if (const int64_t fd = fd_links::descriptor_named(path); fd >= 0) {  // the file it links to
    const OpenFile* linked = file_of(self, static_cast<uint64_t>(fd));
    return linked ? stat64_to_user(self, *linked, buffer) : error(ENOENT);
  }
  OpenFile found{};
  if (const uint32_t device = memory_device(path)) {
    found.kind = OpenFile::kNull;
    found.device = device;
    return stat64_to_user(self, found, buffer);
  }
  if (procfs::provides(path)) {  // size 0, as procfs says of its files
    found.kind = OpenFile::kInitrd;
    found.file = initrd::File{nullptr, 0, kModeGenerated};
    return stat64_to_user(self, found, buffer);
  }
  const ramfs::Found where = ramfs::lookup(path);
  if (!where.exists) return error(ENOENT);
  found.kind = where.node ? OpenFile::kRamFile : OpenFile::kInitrd;
  found.node = where.node;
  found.file = where.file;
  if (where.node && (ramfs::mode(where.node) & kModeTypeMask) == kModeDirectory) {
    found.kind = OpenFile::kInitrd;  // a RAM directory: its mode, no data
    found.file = initrd::File{nullptr, 0, ramfs::mode(where.node)};
  }
  return stat64_to_user(self, found, buffer);
}

int64_t sys_read(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (reads_as_stream(f)) return read_stream(self, f, args.a[1], args.a[2]);
  const int64_t n = read_at(self, f, args.a[1], args.a[2], f->offset);
  if (n > 0) f->offset += static_cast<uint64_t>(n);
  return n;
}

int64_t sys_pread64(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (cannot_seek(f)) return error(ESPIPE);
  return read_at(self, f, args.a[1], args.a[2], args.a[3]);
}

// pwrite64: at an offset, the description's own unmoved (RAM files only:
// the initrd is read-only, the console and pipes cannot seek).
int64_t sys_pwrite64(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (cannot_seek(f)) return error(ESPIPE);
  if (f->kind == OpenFile::kNull) return static_cast<int64_t>(args.a[2]);
  if (f->kind != OpenFile::kRamFile) return error(EBADF);
  if (static_cast<int64_t>(args.a[3]) < 0) return error(EINVAL);
  return write_ram_at(self, f, args.a[1], args.a[2], args.a[3]);
}

int64_t sys_readv(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  return vector_io(self, args.a[1], args.a[2], [&](uint64_t base, uint64_t length) {
    if (reads_as_stream(f)) return read_stream(self, f, base, length);
    const int64_t n = read_at(self, f, base, length, f->offset);
    if (n > 0) f->offset += static_cast<uint64_t>(n);
    return n;
  });
}

int64_t sys_write(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  return write_console(self, f, args.a[1], args.a[2]);
}

int64_t sys_writev(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  return vector_io(self, args.a[1], args.a[2], [&](uint64_t base, uint64_t length) {
    return write_console(self, f, base, length);
  });
}

int64_t sys_open(Process* self, TrapFrame* frame, const Args& args) {
  const auto cwd = static_cast<uint64_t>(LINUX_AT_FDCWD);
  return sys_openat(self, frame, Args{{cwd, args.a[0], args.a[1], args.a[2]}});
}

int64_t sys_openat(Process* self, TrapFrame*, const Args& args) {
  const uint64_t flags = open_flags(args.a[2]);
  char path[kMaxPath];
  if (const int64_t e = at_path(self, args.a[0], args.a[1], path, open_flags_follow(flags)); e < 0)
    return e;
  return open_path(self, path, flags);
}

int64_t sys_close(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  close_file(self->fds, args.a[0]);
  return 0;
}

int64_t sys_lseek(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (anonymous(f) || f->kind == OpenFile::kEpoll) return 0;  // Linux's noop_llseek: at 0
  if (cannot_seek(f)) return error(ESPIPE);
  const auto offset = static_cast<int64_t>(args.a[1]);
  int64_t base;
  switch (args.a[2]) {
    case 0:
      base = 0;
      break;
    case 1:
      base = static_cast<int64_t>(f->offset);
      break;
    case 2:
      base =
          static_cast<int64_t>(f->kind == OpenFile::kRamFile ? ramfs::size(f->node) : f->file.size);
      break;
    default:
      return error(EINVAL);
  }
  if (base + offset < 0) return error(EINVAL);
  f->offset = static_cast<uint64_t>(base + offset);
  return base + offset;
}

// The old struct stat newlib uses (firmware/syscalls.h's linux_alpha_stat).
int64_t sys_fstat(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  linux_alpha_stat64 wide;
  fill_stat64(*f, &wide);
  linux_alpha_stat st{};
  st.st_mode = wide.st_mode;
  st.st_nlink = 1;
  st.st_rdev = static_cast<uint32_t>(wide.st_rdev);
  st.st_size = wide.st_size;
  st.st_blksize = wide.st_blksize;
  st.st_blocks = static_cast<uint32_t>(wide.st_blocks);
  st.st_ino = static_cast<uint32_t>(wide.st_ino);
  if (!copy_to_user(self->space(), args.a[1], &st, sizeof st)) return error(EFAULT);
  return 0;
}

int64_t sys_fstat64(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  return stat64_to_user(self, *f, args.a[1]);
}

// fstatat64(dirfd, path, buf, flags): AT_EMPTY_PATH with "" is fstat64(dirfd);
// AT_SYMLINK_NOFOLLOW is lstat's.
int64_t sys_fstatat64(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  const FollowLast follow = (args.a[3] & kAtSymlinkNofollow) ? kNoFollow : kFollow;
  if (const int64_t e = at_path(self, args.a[0], args.a[1], path, follow); e < 0) return e;
  if (path[0] == 0) {
    if (!(args.a[3] & LINUX_AT_EMPTY_PATH)) return error(ENOENT);
    OpenFile* f = file_or_path_of(self, args.a[0]);
    return f ? stat64_to_user(self, *f, args.a[2]) : error(EBADF);
  }
  return stat_path(self, path, args.a[2]);
}

int64_t sys_access(Process* self, TrapFrame* frame, const Args& args) {
  const auto cwd = static_cast<uint64_t>(LINUX_AT_FDCWD);
  return sys_faccessat2(self, frame, Args{{cwd, args.a[0], args.a[1], 0}});
}

int64_t sys_faccessat(Process* self, TrapFrame* frame, const Args& args) {
  return sys_faccessat2(self, frame, Args{{args.a[0], args.a[1], args.a[2], 0}});
}

// faccessat2(dirfd, path, mode, flags): root may do anything to what
// exists; AT_EMPTY_PATH asks about dirfd itself; AT_SYMLINK_NOFOLLOW asks
// about a link itself. AT_EACCESS changes nothing here (one user).
int64_t sys_faccessat2(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kAtEaccess = 0x200, kAtEmptyPath = 0x1000;
  if (args.a[2] & ~uint64_t{7}) return error(EINVAL);
  if (args.a[3] & ~(kAtEaccess | kAtSymlinkNofollow | kAtEmptyPath)) return error(EINVAL);
  char path[kMaxPath];
  const FollowLast follow = (args.a[3] & kAtSymlinkNofollow) ? kNoFollow : kFollow;
  if (const int64_t e = at_path(self, args.a[0], args.a[1], path, follow); e < 0) return e;
  if (path[0] == 0 && (args.a[3] & kAtEmptyPath))
    return static_cast<int64_t>(args.a[0]) == LINUX_AT_FDCWD || file_or_path_of(self, args.a[0])
               ? 0
               : error(EBADF);
  if (memory_device(path) != 0 || procfs::provides(path)) return 0;
  return ramfs::lookup(path).exists ? 0 : error(ENOENT);
}

namespace {

// readlinkat's empty path (Linux 2.6.39): the symbolic link `dirfd` names
// itself (an O_PATH|O_NOFOLLOW descriptor); its target's length into
// `target`, or -errno: ENOENT for anything else, the working directory too.
int64_t descriptor_link_target(Process* self, uint64_t dirfd, char (&target)[kMaxPath]) {
  if (static_cast<int64_t>(dirfd) == LINUX_AT_FDCWD) return error(ENOENT);
  const OpenFile* f = file_or_path_of(self, dirfd);
  if (f == nullptr) return error(EBADF);
  if (f->kind != OpenFile::kRamFile || (ramfs::mode(f->node) & kModeTypeMask) != kModeSymbolicLink)
    return error(ENOENT);
  return static_cast<int64_t>(ramfs::read(f->node, 0, target, sizeof target));
}

}  // namespace

// readlinkat(dirfd, path, buffer, size): a RAM symbolic link's target, cut
// to `size` bytes, no NUL (Linux); /proc/self/exe names the program,
// /proc/self/fd/N the descriptor's file (fd_links::link_target); an
// empty path reads the link dirfd names. A size <= 0 is EINVAL, anything
// else EINVAL, a missing name ENOENT.
int64_t sys_readlinkat(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = raw_path_from_user(self, args.a[1], path); e < 0) return e;
  const bool empty = path[0] == 0;
  if (!empty)
    if (const int64_t e = at_path(self, args.a[0], args.a[1], path, kNoFollow); e < 0) return e;
  if (static_cast<int64_t>(static_cast<int32_t>(args.a[3])) <= 0) return error(EINVAL);
  char target[kMaxPath];
  int64_t length = -1;
  if (empty) {
    length = descriptor_link_target(self, args.a[0], target);
    if (length < 0) return length;
  } else if (same_string(path, "/proc/self/exe")) {
    copy_name(target, sizeof target, self->name);
    length = static_cast<int64_t>(string_length(target));
  } else if (fd_links::descriptor_named(path) >= 0) {
    length = fd_links::link_target(self, path, target, sizeof target);
    if (length < 0) return length;
  } else {
    length = ramfs::link_target(path, target, sizeof target);
  }
  if (length < 0) return ramfs::lookup(path).exists ? error(EINVAL) : error(ENOENT);
  uint64_t n = static_cast<uint64_t>(length);
  if (n > args.a[3]) n = args.a[3];
  if (!copy_to_user(self->space(), args.a[2], target, n)) return error(EFAULT);
  return static_cast<int64_t>(n);
}

int64_t sys_readlink(Process* self, TrapFrame* frame, const Args& args) {
  return sys_readlinkat(
      self, frame, Args{{static_cast<uint64_t>(LINUX_AT_FDCWD), args.a[0], args.a[1], args.a[2]}});
}

int64_t sys_getcwd(Process* self, TrapFrame*, const Args& args) {
  const char* cwd = self->group->cwd[0] ? self->group->cwd : "/";
  const uint64_t bytes = string_length(cwd) + 1;
  if (args.a[1] < bytes) return error(ERANGE);
  return copy_to_user(self->space(), args.a[0], cwd, bytes) ? static_cast<int64_t>(bytes)
                                                            : error(EFAULT);
}

// isatty(): the console answers TCGETS like a terminal when dcpi run's
// output of its stream is one (tty=N), else ENOTTY as a redirected stdout would; no other
// request is known (ENOTTY), nor is any file but the console a terminal.
int64_t sys_ioctl(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (f->kind != OpenFile::kConsole || args.a[1] != kTcgets ||
      !console_is_terminal(f->console_stream))
    return error(ENOTTY);
  uint8_t termios[kTermiosBytes] = {};
  return copy_to_user(self->space(), args.a[2], termios, sizeof termios) ? 0 : error(EFAULT);
}

namespace {

// An O_PATH descriptor takes only the descriptor commands (Linux's
// check_fcntl_cmd); the rest would use the file: EBADF.
bool path_only_command(uint64_t command) {
  return command == kFDupfd || command == kFDupfdCloexec || command == kFGetfd ||
         command == kFSetfd || command == kFGetfl;
}

}  // namespace

int64_t sys_fcntl(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_of(self, args.a[0]);
  if (f == nullptr || (path_only(f) && !path_only_command(args.a[1]))) return error(EBADF);
  switch (args.a[1]) {
    case kFDupfd:
    case kFDupfdCloexec:
      if (args.a[2] >= descriptor_limit(self)) return error(EINVAL);
      hold_description(f);
      return install_file(self->fds, args.a[2], f, args.a[1] == kFDupfdCloexec);
    case kFGetfd:
      return (self->fds->cloexec >> args.a[0]) & 1;
    case kFSetfd: {
      LockGuard guard(self->fds->lock);
      const uint64_t bit = uint64_t{1} << args.a[0];
      self->fds->cloexec =
          (args.a[2] & kFdCloexec) ? self->fds->cloexec | bit : self->fds->cloexec & ~bit;
      return 0;
    }
    case kFGetfl:
      return f->flags;
    case kFSetfl:  // only O_NONBLOCK and O_APPEND change (as Linux)
      f->flags = (f->flags & ~(LINUX_O_NONBLOCK | LINUX_O_APPEND)) |
                 static_cast<uint32_t>(args.a[2] & (LINUX_O_NONBLOCK | LINUX_O_APPEND));
      return 0;
    case kFGetlk:
    case kFSetlk:
    case kFSetlkw:
      return record_lock(self, f, args.a[1], args.a[2]);
    default:
      return error(EINVAL);
  }
}

int64_t sys_dup(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_of(self, args.a[0]);
  if (f == nullptr) return error(EBADF);
  hold_description(f);
  return install_file(self->fds, 0, f, false);
}

int64_t sys_dup2(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_of(self, args.a[0]);
  if (f == nullptr || args.a[1] >= descriptor_limit(self)) return error(EBADF);
  if (args.a[0] == args.a[1]) return static_cast<int64_t>(args.a[1]);
  hold_description(f);
  install_file_at(self->fds, args.a[1], f, false);
  return static_cast<int64_t>(args.a[1]);
}

// dup3(old, new, flags): dup2 that refuses old == new and takes O_CLOEXEC.
int64_t sys_dup3(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_of(self, args.a[0]);
  if (f == nullptr || args.a[1] >= descriptor_limit(self)) return error(EBADF);
  if (args.a[0] == args.a[1] || (args.a[2] & ~kOCloexec)) return error(EINVAL);
  hold_description(f);
  install_file_at(self->fds, args.a[1], f, args.a[2] & kOCloexec);
  return static_cast<int64_t>(args.a[1]);
}

}  // namespace kernel::sys

namespace kernel::sys {
namespace {

// Both ends of a new pipe at the lowest free fds; -errno if none.
int64_t open_pipe(Process* self, uint64_t flags, int32_t fds[2]) {
  if (flags & ~(kOCloexec | LINUX_O_NONBLOCK)) return error(EINVAL);
  Pipe* pipe = pipe::create();
  if (pipe == nullptr) return error(ENFILE);
  OpenFile end{};
  end.pipe = pipe;
  end.flags = static_cast<uint32_t>(flags & LINUX_O_NONBLOCK);
  end.kind = OpenFile::kPipeRead;
  OpenFile* read_end = new_description(end);
  end.kind = OpenFile::kPipeWrite;
  OpenFile* write_end = read_end ? new_description(end) : nullptr;
  if (write_end == nullptr) {
    if (read_end) release_description(read_end);  // closes the reader's end
    pipe::close_end(pipe, true);
    return error(ENFILE);
  }
  const int64_t reader = install_file(self->fds, 0, read_end, flags & kOCloexec);
  const int64_t writer = reader < 0 ? (release_description(write_end), reader)
                                    : install_file(self->fds, 0, write_end, flags & kOCloexec);
  if (writer < 0) {
    if (reader >= 0) close_file(self->fds, static_cast<uint64_t>(reader));
    return writer;
  }
  fds[0] = static_cast<int32_t>(reader);
  fds[1] = static_cast<int32_t>(writer);
  return 0;
}

}  // namespace

int64_t sys_pipe2(Process* self, TrapFrame*, const Args& args) {
  int32_t fds[2];
  if (!touch_user(self->space(), args.a[0], true) ||
      !touch_user(self->space(), args.a[0] + 7, true))
    return error(EFAULT);
  if (const int64_t e = open_pipe(self, args.a[1], fds); e < 0) return e;
  if (copy_to_user(self->space(), args.a[0], fds, sizeof fds)) return 0;
  close_file(self->fds, static_cast<uint64_t>(fds[0]));
  close_file(self->fds, static_cast<uint64_t>(fds[1]));
  return error(EFAULT);
}

// memfd_create(name, flags): an anonymous RAM file, read-write, sized by
// ftruncate or write and mappable (MAP_SHARED maps its own pages). Made as
// a file of /dev/shm unlinked at once, so it lives as long as its
// descriptions (fork and dup share it). MFD_CLOEXEC only: sealing
// (MFD_ALLOW_SEALING) and huge pages are refused with EINVAL, as a kernel
// built without them does.
int64_t sys_memfd_create(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kMfdCloexec = 1;
  constexpr uint64_t kMaxName = 249;  // Linux's MFD_NAME_MAX_LEN (NAME_MAX - "memfd:")
  if (args.a[1] & ~kMfdCloexec) return error(EINVAL);
  char name[kMaxName + 1];
  if (string_from_user(self->space(), name, args.a[0], sizeof name) < 0)
    return error(translate_user(self->space(), args.a[0], false) ? EINVAL : EFAULT);
  static uint32_t made = 0;
  char path[kMaxPath];
  kformat(path, sizeof path, "/dev/shm/.memfd-%u", __atomic_add_fetch(&made, 1, __ATOMIC_RELAXED));
  ramfs::Node* node;
  if (const int e = ramfs::open_for_write(path, true, true, &node)) return error(e);
  ramfs::hold(node);
  ramfs::remove(path, false);  // the description's hold keeps the node
  OpenFile file{};
  file.kind = OpenFile::kRamFile;
  file.flags = LINUX_O_RDWR;
  file.node = node;
  kformat(file.path, sizeof file.path, "/memfd:%s", name);
  const int64_t fd = open_description(self->fds, file, args.a[1] & kMfdCloexec);
  if (fd == error(ENFILE)) ramfs::release(node);
  return fd;
}

// Linux/Alpha's pipe(): the read end in v0, the write end in a4 (OSF/1).
int64_t sys_pipe(Process* self, TrapFrame* frame, const Args&) {
  int32_t fds[2];
  if (const int64_t e = open_pipe(self, 0, fds); e < 0) return e;
  frame->reg(20) = static_cast<uint64_t>(fds[1]);
  return fds[0];
}

// eventfd2(initval, flags): EFD_CLOEXEC, EFD_NONBLOCK, EFD_SEMAPHORE.
int64_t sys_eventfd2(Process* self, TrapFrame*, const Args& args) {
  const uint64_t flags = args.a[1];
  if (flags & ~(kOCloexec | LINUX_O_NONBLOCK | eventfd::kSemaphore)) return error(EINVAL);
  OpenFile counter{};
  counter.kind = OpenFile::kEventfd;
  counter.flags = static_cast<uint32_t>(LINUX_O_RDWR | (flags & LINUX_O_NONBLOCK));
  counter.offset = args.a[0] & 0xffffffffu;  // an unsigned int
  counter.semaphore = flags & eventfd::kSemaphore;
  return open_description(self->fds, counter, flags & kOCloexec);
}

int64_t sys_eventfd(Process* self, TrapFrame* frame, const Args& args) {
  return sys_eventfd2(self, frame, Args{{args.a[0], 0}});
}

}  // namespace kernel::sys
