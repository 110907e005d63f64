// Park–Miller "minimal standard" generator (multiplier 16807, modulus 2^31 − 1)
// in Carta's division-free form. Shared by the guest driver and host tests.
// DCPI §4.1: the counter reset value is drawn afresh on every interrupt so that
// sampling does not lock onto periodic behaviour; this path must be cheap.
#pragma once
#include <cstdint>

namespace dcpi {

inline constexpr uint32_t kParkMillerModulus = 0x7fffffffu;  // 2^31 − 1
inline constexpr uint32_t kParkMillerMultiplier = 16807u;

// One step: seed in [1, 2^31 − 2] -> next value in the same range.
// Carta (1990): 16807·s = hi·2^31 + lo, and 2^31 ≡ 1 (mod 2^31 − 1), so
// 16807·s ≡ hi + lo; one conditional subtraction finishes the reduction.
constexpr uint32_t park_miller_next(uint32_t seed) {
  const uint64_t product = uint64_t{kParkMillerMultiplier} * seed;
  uint32_t sum =
      static_cast<uint32_t>(product & kParkMillerModulus) + static_cast<uint32_t>(product >> 31);
  if (sum & 0x80000000u) sum = (sum & kParkMillerModulus) + 1;
  return sum;
}

// Maps a generator value uniformly onto [0, range) without a division:
// values are uniform on [1, 2^31 − 2], so (value · range) >> 31 is uniform on
// [0, range) up to a bias of range / 2^31.
constexpr uint32_t scale_to_range(uint32_t value, uint32_t range) {
  return static_cast<uint32_t>((uint64_t{value} * range) >> 31);
}

// A seed must be in [1, 2^31 − 2]; 0 and the modulus are fixed points.
constexpr uint32_t sanitize_seed(uint32_t seed) {
  seed &= kParkMillerModulus;
  return (seed == 0 || seed == kParkMillerModulus) ? 1u : seed;
}

}  // namespace dcpi
