// Unsigned 64-bit division for the few non-constant divisions the kernel
// needs (Alpha has no divide instruction; the kernel links no __divqu).
// Shift-and-subtract: at most 64 steps, for system calls, not hot paths.
#pragma once
#include <cstdint>

namespace kernel {

inline uint64_t udiv(uint64_t n, uint64_t d, uint64_t* remainder = nullptr) {
  uint64_t q = 0, r = 0;
  for (int bit = 63; bit >= 0; --bit) {
    r = (r << 1) | ((n >> bit) & 1);
    if (r >= d) {
      r -= d;
      q |= uint64_t{1} << bit;
    }
  }
  if (remainder) *remainder = r;
  return q;
}

}  // namespace kernel
