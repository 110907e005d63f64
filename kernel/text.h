// NUL-terminated strings in the freestanding kernel (no libc): the few
// operations process names, load-map paths and system calls need.
#pragma once
#include <cstdint>

namespace kernel {

// Copies `from` into `to` (capacity bytes including the NUL), cut if too long.
inline void copy_name(char* to, uint64_t capacity, const char* from) {
  uint64_t n = 0;
  for (; n + 1 < capacity && from[n]; ++n) to[n] = from[n];
  to[n] = 0;
}

inline uint64_t string_length(const char* s) {
  uint64_t n = 0;
  while (s[n]) ++n;
  return n;
}

inline bool starts_with(const char* s, const char* prefix) {
  while (*prefix && *s == *prefix) ++s, ++prefix;
  return *prefix == 0;
}

// `path` ("a/../b/./c", "/x//y") as an absolute path without ".", ".." or
// empty components ("/b/c", "/x/y"; ".." at the root stays there) in `to`
// (capacity bytes). False if it does not fit.
inline bool normalize_path(const char* path, char* to, uint64_t capacity) {
  uint64_t n = 0;
  while (*path) {
    while (*path == '/') ++path;
    const char* end = path;
    while (*end && *end != '/') ++end;
    const uint64_t length = static_cast<uint64_t>(end - path);
    if (length == 2 && path[0] == '.' && path[1] == '.') {
      while (n > 0 && to[n - 1] != '/') --n;  // drop the last component
      if (n > 0) --n;                         // and its slash
    } else if (length > 0 && !(length == 1 && path[0] == '.')) {
      if (n + 1 + length + 1 > capacity) return false;
      to[n++] = '/';
      for (uint64_t i = 0; i < length; ++i) to[n++] = path[i];
    }
    path = end;
  }
  if (n == 0) to[n++] = '/';
  if (n + 1 > capacity) return false;
  to[n] = 0;
  return true;
}

inline bool same_string(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

}  // namespace kernel
