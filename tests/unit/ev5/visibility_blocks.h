// Addresses and two-instruction blocks the sample-visibility tests run
// (sample_visibility_test.cpp: counter 0's cycles; event_visibility_test.cpp:
// counters 1 and 2's events).
#pragma once
#include <cstdint>
#include <vector>

#include "qemu/machine/plugins/ev5/block_timing.h"
#include "tests/unit/ev5/encode.h"

namespace dcpi::ev5::testing {

inline constexpr uint64_t kUser = 0x120000000, kKernel = 0xfffffc0000100000ull;
inline constexpr uint64_t kPal = 0xfffffc0000000000ull;  // PALcode's base in KSEG
inline constexpr uint32_t kAddq = addq(1, 1, 1);

// A block of two one-cycle instructions at `pc`, the second `last`.
inline BlockTiming two_at(uint64_t pc, uint32_t last = kAddq) {
  const std::vector<uint32_t> words{addq(2, 2, 2), last};
  return time_block(pc, words);
}

}  // namespace dcpi::ev5::testing
