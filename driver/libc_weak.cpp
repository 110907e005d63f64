// memcpy and memset, which GCC emits for struct copies even with
// -ffreestanding. Weak, so a kernel-wide definition takes precedence.
#include <cstddef>
#include <cstdint>

extern "C" {

__attribute__((weak)) void* memcpy(void* to, const void* from, size_t bytes) {
  auto* d = static_cast<uint8_t*>(to);
  const auto* s = static_cast<const uint8_t*>(from);
  if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s) | bytes) & 7) == 0) {
    for (size_t i = 0; i < bytes; i += 8) {
      *reinterpret_cast<uint64_t*>(d + i) = *reinterpret_cast<const uint64_t*>(s + i);
      asm("");  // keep GCC from turning the loop back into a memcpy call
    }
    return to;
  }
  for (size_t i = 0; i < bytes; ++i) {
    d[i] = s[i];
    asm("");
  }
  return to;
}

__attribute__((weak)) void* memset(void* to, int value, size_t bytes) {
  auto* d = static_cast<uint8_t*>(to);
  for (size_t i = 0; i < bytes; ++i) {
    d[i] = static_cast<uint8_t>(value);
    asm("");
  }
  return to;
}
}
