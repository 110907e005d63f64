// The C library routines GCC may call even in freestanding code.
#include <cstddef>
#include <cstdint>

#define NO_PATTERN_CALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))

extern "C" {

NO_PATTERN_CALLS void* memcpy(void* to, const void* from, size_t bytes) {
  auto* d = static_cast<unsigned char*>(to);
  const auto* s = static_cast<const unsigned char*>(from);
  if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 7) == 0) {
    for (; bytes >= 8; bytes -= 8, d += 8, s += 8)
      *reinterpret_cast<uint64_t*>(d) = *reinterpret_cast<const uint64_t*>(s);
  }
  while (bytes--) *d++ = *s++;
  return to;
}

NO_PATTERN_CALLS void* memmove(void* to, const void* from, size_t bytes) {
  auto* d = static_cast<unsigned char*>(to);
  const auto* s = static_cast<const unsigned char*>(from);
  if (d <= s || d >= s + bytes) return memcpy(to, from, bytes);
  while (bytes--) d[bytes] = s[bytes];
  return to;
}

NO_PATTERN_CALLS void* memset(void* to, int value, size_t bytes) {
  auto* d = static_cast<unsigned char*>(to);
  while (bytes--) *d++ = static_cast<unsigned char>(value);
  return to;
}

NO_PATTERN_CALLS int memcmp(const void* a, const void* b, size_t bytes) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (; bytes--; ++x, ++y)
    if (*x != *y) return *x < *y ? -1 : 1;
  return 0;
}

}  // extern "C"
