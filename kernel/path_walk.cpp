#include "kernel/path_walk.h"

#include "kernel/linux_errno.h"
#include "kernel/ramfs.h"
#include "kernel/text.h"

namespace kernel {
namespace {

constexpr uint64_t kWalkBytes = 1024;  // what is left to walk: a link's target and the rest

// `first` + "/" + `second` into `to`; false if it does not fit.
bool join(char (&to)[kWalkBytes], const char* first, const char* second) {
  const uint64_t a = string_length(first), b = string_length(second);
  if (a + 1 + b + 1 > kWalkBytes) return false;
  char joined[kWalkBytes];
  __builtin_memcpy(joined, first, a);
  joined[a] = '/';
  __builtin_memcpy(joined + a + 1, second, b + 1);
  __builtin_memcpy(to, joined, a + b + 2);
  return true;
}

bool only_slashes(const char* s) {
  while (*s == '/') ++s;
  return *s == 0;
}

}  // namespace

int walk_path(const char* directory, const char* path, bool follow_last, char* out,
              uint64_t capacity) {
  char rest[kWalkBytes];
  if (path[0] == '/') {
    if (string_length(path) + 1 > kWalkBytes) return ENAMETOOLONG;
    copy_name(rest, kWalkBytes, path);
  } else if (!join(rest, directory, path)) {
    return ENAMETOOLONG;
  }
  uint64_t n = 0;  // out[0, n): the components resolved so far, each after a '/'
  uint32_t links = 0;
  const char* at = rest;
  for (;;) {
    while (*at == '/') ++at;
    if (*at == 0) break;
    const char* end = at;
    while (*end && *end != '/') ++end;
    const auto length = static_cast<uint64_t>(end - at);
    if (length == 1 && at[0] == '.') {
      at = end;
      continue;
    }
    if (length == 2 && at[0] == '.' && at[1] == '.') {  // out has no links: lexical is right
      while (n > 0 && out[n - 1] != '/') --n;
      if (n > 0) --n;
      at = end;
      continue;
    }
    if (n + 1 + length + 1 > capacity) return ENAMETOOLONG;
    const uint64_t before = n;
    out[n++] = '/';
    for (uint64_t i = 0; i < length; ++i) out[n++] = at[i];
    out[n] = 0;
    const bool last = only_slashes(end);
    if (last && !follow_last && *end == 0) break;
    char target[kWalkBytes];
    if (ramfs::link_target(out, target, sizeof target) < 0) {
      at = end;
      continue;
    }
    if (++links > kMaxSymbolicLinks) return ELOOP;
    n = target[0] == '/' ? 0 : before;  // relative: from the link's directory
    if (!join(rest, target, end)) return ENAMETOOLONG;
    at = rest;
  }
  if (n == 0) out[n++] = '/';
  if (n + 1 > capacity) return ENAMETOOLONG;
  out[n] = 0;
  return 0;
}

}  // namespace kernel
