#include "kernel/clock.h"

#include "driver/kernel_services.h"
#include "kernel/palcalls.h"
#include "kernel/udiv.h"

namespace kernel::clock {
namespace {

constexpr uint64_t kLowMask = 0xffffffffull;
constexpr uint64_t kWrap = uint64_t{1} << 32;

uint64_t latest = 0;           // the largest value any CPU has returned
uint64_t realtime_offset = 0;  // cycles from 1970 to boot (set once at boot)

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
  uint64_t rest;
  timespec[0] = udiv(cycles, kCyclesPerSecond, &rest);
  timespec[1] = rest * (1'000'000'000 / kCyclesPerSecond);
}

uint64_t random_word() {
  static uint64_t state = 0x9e3779b97f4a7c15ull;
  state ^= cycles();
  state ^= state << 13, state ^= state >> 7, state ^= state << 17;
  return state;
}

}  // namespace kernel::clock
