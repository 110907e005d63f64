// What the file system says about itself (statfs, fstatfs and their 64-bit
// forms), hard links (link, linkat) and symbolic links (symlink, symlinkat:
// kernel/ramfs.h; followed by kernel/path_walk.h).
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/ramfs.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

// f_type values (linux/magic.h).
constexpr uint32_t kRamfsMagic = 0x858458f6, kPipefsMagic = 0x50495045, kTmpfsMagic = 0x01021994,
                   kDevptsMagic = 0x1cd1;
constexpr uint32_t kStValid = 0x20;  // f_flags: the flags are meaningful (none set)
constexpr uint32_t kNameMax = 255;

struct FileSystemFacts {
  uint32_t type;
  uint64_t blocks, free_blocks, files, free_files;
};

// The RAM file system over the initrd: its blocks are the kernel's pages.
FileSystemFacts ram_facts() {
  return {kRamfsMagic, pages::total_count(), pages::free_count(), ramfs::node_capacity(),
          ramfs::free_nodes()};
}

FileSystemFacts facts_of(const OpenFile& file) {
  switch (file.kind) {
    case OpenFile::kPipeRead:
    case OpenFile::kPipeWrite:
      return {kPipefsMagic, 0, 0, 0, 0};
    case OpenFile::kConsole:
      return {kDevptsMagic, 0, 0, 0, 0};
    case OpenFile::kNull:
      return {kTmpfsMagic, 0, 0, 0, 0};  // devtmpfs's
    default:
      return ram_facts();
  }
}

// Linux/Alpha's struct statfs (asm-generic/statfs.h with 32-bit words:
// glibc's statfs() passes its own, the same) and struct statfs64 (64-bit
// counts, 88 bytes, which glibc's statfs64() asks for first).
struct Statfs32 {
  uint32_t type, bsize, blocks, bfree, bavail, files, ffree;
  int32_t fsid[2];
  uint32_t namelen, frsize, flags, spare[4];
};
static_assert(sizeof(Statfs32) == 64);
struct Statfs64 {
  uint32_t type, bsize;
  uint64_t blocks, bfree, bavail, files, ffree;
  int32_t fsid[2];
  uint32_t namelen, frsize, flags, spare[4];
};
static_assert(sizeof(Statfs64) == 88 && __builtin_offsetof(Statfs64, namelen) == 56);

uint32_t clamp32(uint64_t value) { return value > 0xffffffffu ? 0xffffffffu : uint32_t(value); }

int64_t statfs_to_user(Process* self, const FileSystemFacts& f, uint64_t va, bool wide) {
  const auto bsize = static_cast<uint32_t>(pages::kPageBytes);
  if (wide) {
    const Statfs64 out{f.type,       bsize,  f.blocks, f.free_blocks, f.free_blocks, f.files,
                       f.free_files, {0, 0}, kNameMax, bsize,         kStValid,      {}};
    return copy_to_user(self->space(), va, &out, sizeof out) ? 0 : error(EFAULT);
  }
  const Statfs32 out{f.type,
                     bsize,
                     clamp32(f.blocks),
                     clamp32(f.free_blocks),
                     clamp32(f.free_blocks),
                     clamp32(f.files),
                     clamp32(f.free_files),
                     {0, 0},
                     kNameMax,
                     bsize,
                     kStValid,
                     {}};
  return copy_to_user(self->space(), va, &out, sizeof out) ? 0 : error(EFAULT);
}

int64_t statfs_path(Process* self, uint64_t path_va, uint64_t va, bool wide) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, path_va, path); e < 0) return e;
  if (!ramfs::lookup(path).exists) return error(ENOENT);
  return statfs_to_user(self, ram_facts(), va, wide);
}

int64_t statfs_fd(Process* self, uint64_t fd, uint64_t va, bool wide) {
  const OpenFile* file = file_or_path_at(self->fds, fd);  // O_PATH's too
  if (file == nullptr) return error(EBADF);
  return statfs_to_user(self, facts_of(*file), va, wide);
}

// A new name `to` (a link there is not followed: EEXIST) of `from`, or of
// what `from` leads to with `follow` (linkat's AT_SYMLINK_FOLLOW; link(2)
// on Linux does not follow, and links the symbolic link itself).
int64_t hard_link(Process* self, uint64_t from_dirfd, uint64_t from_va, uint64_t to_dirfd,
                  uint64_t to_va, FollowLast follow) {
  char from[kMaxPath], to[kMaxPath];
  if (const int64_t e = at_path(self, from_dirfd, from_va, from, follow); e < 0) return e;
  if (const int64_t e = at_path(self, to_dirfd, to_va, to, kNoFollow); e < 0) return e;
  const int e = ramfs::link(from, to);
  return e ? error(e) : 0;
}

// symlink, symlinkat: `target` is kept as written (not checked: a link may
// dangle), an empty one is ENOENT as on Linux; the new name is not
// followed (a dangling link there is EEXIST too).
int64_t symbolic_link(Process* self, uint64_t target_va, uint64_t to_dirfd, uint64_t to_va) {
  char target[kMaxPath], to[kMaxPath];
  if (const int64_t e = raw_path_from_user(self, target_va, target); e < 0) return e;
  if (target[0] == 0) return error(ENOENT);
  if (const int64_t e = at_path(self, to_dirfd, to_va, to, kNoFollow); e < 0) return e;
  const int e = ramfs::make_symbolic_link(to, target);
  return e ? error(e) : 0;
}

constexpr auto kCwd = static_cast<uint64_t>(LINUX_AT_FDCWD);

}  // namespace

int64_t sys_statfs(Process* self, TrapFrame*, const Args& args) {
  return statfs_path(self, args.a[0], args.a[1], false);
}

int64_t sys_fstatfs(Process* self, TrapFrame*, const Args& args) {
  return statfs_fd(self, args.a[0], args.a[1], false);
}

// statfs64(path, size, buf): the size of the caller's struct statfs64.
int64_t sys_statfs64(Process* self, TrapFrame*, const Args& args) {
  if (args.a[1] != sizeof(Statfs64)) return error(EINVAL);
  return statfs_path(self, args.a[0], args.a[2], true);
}

int64_t sys_fstatfs64(Process* self, TrapFrame*, const Args& args) {
  if (args.a[1] != sizeof(Statfs64)) return error(EINVAL);
  return statfs_fd(self, args.a[0], args.a[2], true);
}

int64_t sys_link(Process* self, TrapFrame*, const Args& args) {
  return hard_link(self, kCwd, args.a[0], kCwd, args.a[1], kNoFollow);
}

// linkat(olddirfd, old, newdirfd, new, flags): AT_SYMLINK_FOLLOW links what
// a symbolic link `old` leads to; AT_EMPTY_PATH is not taken.
int64_t sys_linkat(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kAtSymlinkFollow = 0x400;
  if (args.a[4] & ~kAtSymlinkFollow) return error(EINVAL);
  return hard_link(self, args.a[0], args.a[1], args.a[2], args.a[3],
                   (args.a[4] & kAtSymlinkFollow) ? kFollow : kNoFollow);
}

int64_t sys_symlink(Process* self, TrapFrame*, const Args& args) {
  return symbolic_link(self, args.a[0], kCwd, args.a[1]);
}

int64_t sys_symlinkat(Process* self, TrapFrame*, const Args& args) {
  return symbolic_link(self, args.a[0], args.a[1], args.a[2]);
}

}  // namespace kernel::sys
