// A 64-bit cycle count since boot. RPCC gives only 32 bits of cycles (QEMU:
// the virtual clock / 4 ns, so it wraps every 2^32 x 4 ns = 17.2 s of guest
// time); the kernel extends it here. Every CPU reads the same virtual clock,
// so one global extension serves all; the scheduler tick calls cycles() far
// more often than once per wrap.
#pragma once
#include <cstdint>

namespace kernel::clock {

inline constexpr uint64_t kCyclesPerSecond = 250'000'000;  // DESIGN §3: 250 MHz

uint64_t cycles();

// A word mixed from the cycle counter (xorshift64): AT_RANDOM's bytes and
// getrandom(). Not cryptographic; reproducible under icount, which a
// profiler's runs want more than unpredictability.
uint64_t random_word();

}  // namespace kernel::clock
