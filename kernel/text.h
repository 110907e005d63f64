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

inline bool same_string(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

}  // namespace kernel
