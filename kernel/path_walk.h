// Path resolution with symbolic links (kernel/ramfs.h's): a path made
// absolute and walked one component at a time, as Linux's namei does. A
// component naming a symbolic link is replaced by its target, an absolute
// one from the root, a relative one from the link's own directory, so a
// later ".." leaves the directory the link led to, not the link's. At most
// 40 links a walk (Linux's MAXSYMLINKS), then ELOOP. The last component is
// followed only when asked (lstat, unlink, rename, readlink, O_NOFOLLOW and
// O_CREAT|O_EXCL are not), or when a slash follows it ("link/" means the
// directory). Components that do not exist are taken lexically, as the
// kernel did before (the lookup that follows says ENOENT).
#pragma once
#include <cstdint>

namespace kernel {

inline constexpr uint32_t kMaxSymbolicLinks = 40;  // Linux's MAXSYMLINKS

// `path` (absolute, or relative to `directory`: "" or "/" is the root)
// resolved into `out` (capacity bytes): absolute, without ".", "..",
// repeated slashes or symbolic links but perhaps the last. 0 or a positive
// errno: ELOOP, ENAMETOOLONG.
int walk_path(const char* directory, const char* path, bool follow_last, char* out,
              uint64_t capacity);

}  // namespace kernel
