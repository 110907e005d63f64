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

// −ln(value / 2^31) in Q16 (16 fraction bits) for a generator value in
// [1, 2^31 − 2]: (31 − log2 value) · ln 2, log2's fraction by the bitwise
// method (square the mantissa, a bit for each time it reaches 2), all in
// integers for the guest kernel, which keeps no FP state.
constexpr uint32_t neg_log_q16(uint32_t value) {
  const uint32_t whole = 31u - static_cast<uint32_t>(__builtin_clz(value));  // floor(log2 value)
  uint64_t mantissa = uint64_t{value} << (31 - whole);  // [2^31, 2^32): [1, 2) in Q31
  uint32_t fraction = 0;
  for (int bit = 15; bit >= 0; --bit) {
    mantissa = (mantissa * mantissa) >> 31;
    if (mantissa >= (uint64_t{1} << 32)) {
      fraction |= 1u << bit;
      mantissa >>= 1;
    }
  }
  const uint64_t log2_q16 = uint64_t{whole} << 16 | fraction;
  constexpr uint64_t kLn2Q16 = 45426;  // ln 2 · 2^16
  return static_cast<uint32_t>(((uint64_t{31} << 16) - log2_q16) * kLn2Q16 >> 16);
}

// An interval with a memoryless distribution of mean ≈ `mean` + 1/2:
// 1 + floor(mean · E), E exponential with mean 1 (from `value`). ProfileMe
// (firmware/profileme.h) draws its intervals so: every fetched instruction
// is then equally likely to be chosen, wherever it sits after the
// software that re-armed the counter (seed 004 §5.1: E[kS] = fN).
constexpr uint64_t exponential_interval(uint32_t value, uint32_t mean) {
  return 1 + ((uint64_t{mean} * neg_log_q16(value)) >> 16);
}

// A seed must be in [1, 2^31 − 2]; 0 and the modulus are fixed points.
constexpr uint32_t sanitize_seed(uint32_t seed) {
  seed &= kParkMillerModulus;
  return (seed == 0 || seed == kParkMillerModulus) ? 1u : seed;
}

}  // namespace dcpi
