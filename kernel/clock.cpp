#include "kernel/clock.h"

#include "driver/kernel_services.h"
#include "kernel/palcalls.h"

namespace kernel::clock {
namespace {

constexpr uint64_t kLowMask = 0xffffffffull;
constexpr uint64_t kWrap = uint64_t{1} << 32;

uint64_t latest = 0;           // the largest value any CPU has returned
uint64_t realtime_offset = 0;  // cycles from 1970 to boot (set once at boot)

// Seconds in `cycles`, in the same instructions whatever the value (udiv's
// loop takes more for more set bits: a file written at another second of the
// day would move a deterministic run's sampling): 250,000,000 = 2^7 x
// 1,953,125, and x / 1,953,125 = umulh(x, ceil(2^84 / 1,953,125)) >> 20 for
// every x < 2^57 (the error term stays below 2^84).
uint64_t seconds_of(uint64_t cycles) {
  static_assert(kCyclesPerSecond == (uint64_t{1953125} << 7));
  return __builtin_alpha_umulh(cycles >> 7, 0x89705f4136b4a598ull) >> 20;
}

}  // namespace

uint64_t cycles() {
  const uint64_t low = pal::rpcc() & kLowMask;
  uint64_t seen = __atomic_load_n(&latest, __ATOMIC_ACQUIRE);
  for (;;) {
    uint64_t now = (seen & ~kLowMask) | low;
    // Behind `seen` by more than half a wrap: the low word wrapped since.
    // Behind by less: another CPU stored a later reading after ours.
    if (now < seen && seen - now >= kWrap / 2) now += kWrap;
    if (now <= seen) return now;
    if (__atomic_compare_exchange_n(&latest, &seen, now, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return now;
  }
}

void set_realtime_at_boot(uint64_t seconds) { realtime_offset = seconds * kCyclesPerSecond; }

uint64_t realtime_cycles() { return realtime_offset + cycles(); }

uint64_t boot_cycles_of_realtime(uint64_t realtime) {
  return realtime > realtime_offset ? realtime - realtime_offset : 1;
}

void to_timespec(uint64_t cycles, uint64_t (&timespec)[2]) {
  timespec[0] = seconds_of(cycles);
  timespec[1] = (cycles - timespec[0] * kCyclesPerSecond) * (1'000'000'000 / kCyclesPerSecond);
}

uint64_t random_word() {
  static uint64_t state = 0x9e3779b97f4a7c15ull;
  state ^= cycles();
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}

}  // namespace kernel::clock
