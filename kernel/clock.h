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

// The wall clock (CLOCK_REALTIME, gettimeofday, file times): what the host's
// clock said when dcpi run booted the machine (the command line's
// realtime=SECONDS, as Linux reads its RTC once at boot), plus the virtual
// time since. Without it the wall clock starts at 1970, as before.
void set_realtime_at_boot(uint64_t seconds);
// The wall clock in cycles since 1970.
uint64_t realtime_cycles();
// A wall-clock time (cycles since 1970) as a time since boot (what the
// kernel's deadlines count): 1 for a time before boot, which has passed.
uint64_t boot_cycles_of_realtime(uint64_t realtime);
// CLOCK_REALTIME, _COARSE, _ALARM and TAI: the clocks that read the wall
// clock (the others count from boot, or a process's CPU time).
constexpr bool is_wall_clock(uint64_t id) { return id == 0 || id == 5 || id == 8 || id == 11; }
// A count of cycles as seconds and nanoseconds (struct timespec).
void to_timespec(uint64_t cycles, uint64_t (&timespec)[2]);

// A word mixed from the cycle counter (xorshift64): AT_RANDOM's bytes and
// getrandom(). Not cryptographic; reproducible under icount, which a
// profiler's runs want more than unpredictability.
uint64_t random_word();

}  // namespace kernel::clock
