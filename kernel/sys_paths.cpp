// File system calls on paths and directories over the RAM file system
// (kernel/ramfs.h, issue 29): unlink, rmdir, mkdir, rename, truncate,
// stat64/lstat64, getdents64. Those that act on a name itself do not follow
// a symbolic link in the last component, as on Linux: unlink and rmdir,
// mkdir (a link there, even a dangling one, is EEXIST), rename (both names),
// lstat.
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/ramfs.h"
#include "kernel/syscall_handlers.h"
#include "kernel/text.h"

namespace kernel::sys {
namespace {

constexpr uint64_t kAtRemovedir = 0x200;  // linux/fcntl.h
constexpr uint64_t kRenameNoreplace = 1;  // renameat2's flags
constexpr uint8_t kDtFifo = 1, kDtChr = 2, kDtDir = 4, kDtReg = 8, kDtLnk = 10;

int64_t result(int e) { return e ? error(e) : 0; }

int64_t rename_paths(Process* self, uint64_t from_dirfd, uint64_t from_va, uint64_t to_dirfd,
                     uint64_t to_va, uint64_t flags) {
  char from[kMaxPath], to[kMaxPath];
  if (const int64_t e = at_path(self, from_dirfd, from_va, from, kNoFollow); e < 0) return e;
  if (const int64_t e = at_path(self, to_dirfd, to_va, to, kNoFollow); e < 0) return e;
  if (flags & ~kRenameNoreplace) return error(EINVAL);
  if ((flags & kRenameNoreplace) && ramfs::lookup(to).exists) return error(EEXIST);
  return result(ramfs::rename(from, to));
}

// One struct linux_dirent64 (d_ino, d_off, d_reclen, d_type, d_name) into
// `out`; its length (8-byte aligned), or 0 if it does not fit.
uint64_t dirent(uint8_t* out, uint64_t room, uint64_t ino, uint64_t next, uint8_t type,
                const char* name) {
  const uint64_t length = (19 + string_length(name) + 1 + 7) & ~uint64_t{7};
  if (length > room) return 0;
  __builtin_memset(out, 0, length);
  __builtin_memcpy(out, &ino, 8);
  __builtin_memcpy(out + 8, &next, 8);
  const auto reclen = static_cast<uint16_t>(length);
  __builtin_memcpy(out + 16, &reclen, 2);
  out[18] = type;
  copy_name(reinterpret_cast<char*>(out + 19), length - 19, name);
  return length;
}

uint8_t type_of(uint32_t mode) {
  switch (mode & 0170000) {
    case 0040000:
      return kDtDir;
    case 0020000:
      return kDtChr;
    case 0120000:
      return kDtLnk;
    case 0010000:
      return kDtFifo;
    default:
      return kDtReg;
  }
}

// Makes `path` (absolute, or relative to "/") the working directory every
// relative path starts from (path_from_user): a directory of the RAM file
// system or the initrd. 0 or -errno.
int64_t change_directory(Process* self, const char* path) {
  constexpr uint32_t kTypeMask = 0170000, kDirectory = 0040000;
  char absolute[kMaxPath];
  if (!normalize_path(path, absolute, sizeof absolute)) return error(ENAMETOOLONG);
  const ramfs::Found found = ramfs::lookup(absolute);
  if (!found.exists) return error(ENOENT);
  const uint32_t mode = found.node ? ramfs::mode(found.node) : found.file.mode;
  if ((mode & kTypeMask) != kDirectory) return error(ENOTDIR);
  copy_name(self->group->cwd, sizeof self->group->cwd, same_string(absolute, "/") ? "" : absolute);
  return 0;
}

}  // namespace

int64_t sys_unlinkat(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = at_path(self, args.a[0], args.a[1], path, kNoFollow); e < 0) return e;
  if (args.a[2] & ~kAtRemovedir) return error(EINVAL);
  return result(ramfs::remove(path, args.a[2] & kAtRemovedir));
}

int64_t sys_unlink(Process* self, TrapFrame* frame, const Args& args) {
  return sys_unlinkat(self, frame, Args{{static_cast<uint64_t>(LINUX_AT_FDCWD), args.a[0], 0}});
}

int64_t sys_rmdir(Process* self, TrapFrame* frame, const Args& args) {
  return sys_unlinkat(self, frame,
                      Args{{static_cast<uint64_t>(LINUX_AT_FDCWD), args.a[0], kAtRemovedir}});
}

int64_t sys_mkdirat(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = at_path(self, args.a[0], args.a[1], path, kNoFollow); e < 0) return e;
  return result(ramfs::make_directory(path));
}

int64_t sys_mkdir(Process* self, TrapFrame* frame, const Args& args) {
  return sys_mkdirat(self, frame,
                     Args{{static_cast<uint64_t>(LINUX_AT_FDCWD), args.a[0], args.a[1]}});
}

int64_t sys_rename(Process* self, TrapFrame*, const Args& args) {
  const auto cwd = static_cast<uint64_t>(LINUX_AT_FDCWD);
  return rename_paths(self, cwd, args.a[0], cwd, args.a[1], 0);
}

int64_t sys_renameat(Process* self, TrapFrame*, const Args& args) {
  return rename_paths(self, args.a[0], args.a[1], args.a[2], args.a[3], 0);
}

int64_t sys_renameat2(Process* self, TrapFrame*, const Args& args) {
  return rename_paths(self, args.a[0], args.a[1], args.a[2], args.a[3], args.a[4]);
}

int64_t sys_ftruncate(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_at(self->fds, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (f->kind != OpenFile::kRamFile || (f->flags & LINUX_O_ACCMODE) == 0) return error(EINVAL);
  if (static_cast<int64_t>(args.a[1]) < 0) return error(EINVAL);
  return ramfs::truncate(f->node, args.a[1]) ? 0 : error(ENOSPC);
}

int64_t sys_truncate(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, args.a[0], path); e < 0) return e;
  if (static_cast<int64_t>(args.a[1]) < 0) return error(EINVAL);
  ramfs::Node* node;
  if (const int e = ramfs::open_for_write(path, false, false, &node)) return error(e);
  return ramfs::truncate(node, args.a[1]) ? 0 : error(ENOSPC);
}

int64_t sys_chdir(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, args.a[0], path); e < 0) return e;
  if (path[0] == 0) return error(ENOENT);
  return change_directory(self, path);
}

// fchdir: to the directory an open descriptor names (a program that opened
// "." to come back to it). The description keeps the path it was opened by
// (path_from_user made it absolute, or it is relative to "/"); a directory
// removed or renamed since is ENOENT (Linux would follow the inode).
int64_t sys_fchdir(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_or_path_at(self->fds, args.a[0]);  // O_PATH's too
  if (f == nullptr) return error(EBADF);
  if (f->kind != OpenFile::kDirectory) return error(ENOTDIR);
  return change_directory(self, f->path);
}

int64_t sys_stat64(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, args.a[0], path); e < 0) return e;
  return stat_path(self, path, args.a[1]);
}

// A symbolic link itself: S_IFLNK, its target's length as st_size.
int64_t sys_lstat64(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, args.a[0], path, kNoFollow); e < 0) return e;
  return stat_path(self, path, args.a[1]);
}

// getdents64(fd, buffer, size): ".", "..", then the directory's entries,
// as many as fit in the caller's buffer (glibc's readdir asks for 32 KB, so
// a program that removes entries while it reads a directory of up to a few
// hundred sees them all, as rm -r's loops expect); the description's offset
// is the next entry's index, so entries removed between two calls shift
// the later ones past it (tmpfs keeps a cursor instead).
int64_t sys_getdents64(Process* self, TrapFrame*, const Args& args) {
  OpenFile* f = file_at(self->fds, args.a[0]);
  if (f == nullptr) return error(EBADF);
  if (f->kind != OpenFile::kDirectory) return error(ENOTDIR);
  const uint64_t room = args.a[2];
  uint64_t used = 0;
  for (;;) {
    char name[256];
    uint32_t mode = 0040755;
    const uint64_t index = f->offset;
    if (index < 2) {
      copy_name(name, sizeof name, index == 0 ? "." : "..");
    } else if (!ramfs::list(f->path, index - 2, name, sizeof name, &mode)) {
      break;
    }
    uint8_t entry[320];  // 19 bytes, a name of up to 255 and its NUL, aligned
    const uint64_t left = room - used < sizeof entry ? room - used : sizeof entry;
    const uint64_t n = dirent(entry, left, index + 1, index + 1, type_of(mode), name);
    if (n == 0) {
      if (used == 0) return error(EINVAL);  // not even one entry fits
      break;
    }
    if (!copy_to_user(self->space(), args.a[1] + used, entry, n))
      return used ? static_cast<int64_t>(used) : error(EFAULT);
    used += n;
    f->offset = index + 1;
  }
  return static_cast<int64_t>(used);
}

}  // namespace kernel::sys
