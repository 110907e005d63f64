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

namespace park_miller_detail {
// For c_i = 1 + (i + 1/2)/16, the middle of the i-th sixteenth of [1, 2):
// 1/c_i and ln c_i in Q32 (tests/unit/rng_test.cpp recomputes both).
inline constexpr uint32_t kReciprocalQ32[16] = {
    0xf83e0f84, 0xea0ea0ea, 0xdd67c8a6, 0xd20d20d2, 0xc7ce0c7d, 0xbe82fa0c, 0xb60b60b6, 0xae4c415d,
    0xa72f0539, 0xa0a0a0a1, 0x9a90e7d9, 0x94f2094f, 0x8fb823ee, 0x8ad8f2fc, 0x864b8a7e, 0x82082082};
inline constexpr uint32_t kLnQ32[16] = {
    0x07e0a6c4, 0x16f0d28b, 0x252aa5f0, 0x32a4b53a, 0x3f7230db, 0x4ba38aec, 0x5746f6fd, 0x6268ce1b,
    0x6d13ddef, 0x7751a813, 0x812a952d, 0x8aa61e98, 0x93caf094, 0x9c9f069b, 0xa527c2ee, 0xad6a0262};
inline constexpr int64_t kLn2Q32 = 0xb17217f8;  // ln 2 · 2^32

// floor(log2 v) for v > 0, by halving: the 21164 has no ctlz, and
// __builtin_clz is a call into libgcc there.
constexpr uint32_t floor_log2(uint32_t v) {
  uint32_t n = 0;
  for (uint32_t step = 16; step != 0; step >>= 1)
    if (v >> step) v >>= step, n += step;
  return n;
}
}  // namespace park_miller_detail

// −ln(value / 2^31) in Q16 (16 fraction bits, rounded) for a generator
// value in [1, 2^31 − 2], in integers for the guest kernel, which keeps no
// FP state: (31 − floor(log2 value)) · ln 2 − ln m for the mantissa m in
// [1, 2), with ln m = ln c_i + ln(1 + x), c_i the nearest of 16 table
// points and x = m / c_i − 1 (|x| < 1/33: three terms of the series are
// within 2^-26). Four multiplies where a bit-by-bit log2 took sixteen
// squarings (issue 27: ~126 of ProfileMe's ~550 cycles a record).
// neg_log_q32 is the same in Q32, unrounded (within ~2^-22 of exact):
// ProfileMe's interval table (firmware/exponential_table.h) is built from it.
constexpr int64_t neg_log_q32(uint32_t value) {
  using namespace park_miller_detail;
  const uint32_t whole = floor_log2(value);
  const uint64_t m = uint64_t{value} << (31 - whole);  // [2^31, 2^32): [1, 2) in Q31
  const uint32_t i = static_cast<uint32_t>(m >> 27) & 15;
  const int64_t x = static_cast<int64_t>((m * kReciprocalQ32[i]) >> 31) - (int64_t{1} << 32);
  const int64_t x2 = (x * x) >> 32;
  const int64_t x3 = (x2 * x) >> 32;
  const int64_t ln1p = x - x2 / 2 + x3 / 3;  // ln(1 + x), Q32
  return static_cast<int64_t>(31 - whole) * kLn2Q32 - kLnQ32[i] - ln1p;
}

constexpr uint32_t neg_log_q16(uint32_t value) {
  return static_cast<uint32_t>((neg_log_q32(value) + (int64_t{1} << 15)) >> 16);
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
