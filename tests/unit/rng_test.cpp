// Park–Miller minimal standard generator (firmware/park_miller.h), checked
// against the published values and a plain 64-bit modulo reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "firmware/exponential_table.h"
#include "firmware/park_miller.h"

namespace dcpi {
namespace {

uint32_t reference_next(uint32_t seed) {
  return static_cast<uint32_t>(uint64_t{16807} * seed % 2147483647u);
}

TEST(Rng, FirstValuesFromSeedOneMatchPublishedSequence) {
  const uint32_t expected[] = {16807,      282475249, 1622650073, 984943658,
                               1144108930, 470211272, 101027544,  1457850878};
  uint32_t value = 1;
  for (uint32_t want : expected) {
    value = park_miller_next(value);
    EXPECT_EQ(value, want);
  }
}

// Park & Miller (1988): "z_10001 = 1043618065" starting from z_1 = 1.
TEST(Rng, TenThousandStepsFromSeedOneGivePublishedCheckValue) {
  uint32_t value = 1;
  for (int i = 0; i < 10000; ++i) value = park_miller_next(value);
  EXPECT_EQ(value, 1043618065u);
}

TEST(Rng, CartaFormMatchesModuloReferenceForRandomSeeds) {
  std::mt19937 random(12345);
  std::uniform_int_distribution<uint32_t> seeds(1, kParkMillerModulus - 1);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t seed = seeds(random);
    ASSERT_EQ(park_miller_next(seed), reference_next(seed)) << "seed " << seed;
  }
}

TEST(Rng, CartaFormMatchesReferenceAtRangeEdges) {
  for (uint32_t seed : {1u, 2u, 127773u, 127774u, kParkMillerModulus - 2, kParkMillerModulus - 1})
    EXPECT_EQ(park_miller_next(seed), reference_next(seed)) << "seed " << seed;
}

TEST(Rng, SanitizeSeedAvoidsFixedPoints) {
  EXPECT_EQ(sanitize_seed(0), 1u);
  EXPECT_EQ(sanitize_seed(kParkMillerModulus), 1u);
  EXPECT_EQ(sanitize_seed(0x80000000u), 1u);
  EXPECT_EQ(sanitize_seed(42), 42u);
}

TEST(Rng, ScaleToRangeStaysInRange) {
  for (uint32_t range : {1u, 2u, 7u, 4096u, 65536u, 1000000u}) {
    EXPECT_EQ(scale_to_range(1, range), 0u);
    EXPECT_LT(scale_to_range(kParkMillerModulus - 1, range), range);
    uint32_t value = 1;
    for (int i = 0; i < 20000; ++i) {
      value = park_miller_next(value);
      ASSERT_LT(scale_to_range(value, range), range);
    }
  }
}

// DCPI's default period is uniform in [60K, 64K): every residue is reachable.
TEST(Rng, ScaleToRangeCoversSmallRangeEvenly) {
  constexpr uint32_t kRange = 16;
  std::vector<int> counts(kRange);
  uint32_t value = 1;
  for (int i = 0; i < 160000; ++i) {
    value = park_miller_next(value);
    ++counts[scale_to_range(value, kRange)];
  }
  for (int count : counts) EXPECT_NEAR(count, 10000, 500);
}

// ProfileMe's intervals (firmware/park_miller.h exponential_interval): the
// integer −ln against libm's, and the draws' mean and tail against an
// exponential's (mean S + 1/2 for 1 + floor(S·E); P(interval > 2S) = e^-2).
TEST(ExponentialInterval, LogMatchesLibmAndDrawsAreExponential) {
  for (uint32_t value : {1u, 2u, 3u, 1000u, 65536u, 123456789u, 1u << 30, 0x7ffffffeu}) {
    const double exact = -std::log(static_cast<double>(value) / 2147483648.0);
    EXPECT_NEAR(neg_log_q16(value) / 65536.0, exact, 1e-3) << value;
  }
  // Rounded to the last bit of Q16 everywhere (within 0.6 of its unit): a
  // million generator values, and every power of two and its neighbours.
  uint32_t probe = 777;
  for (int i = 0; i < 1000000; ++i) {
    probe = park_miller_next(probe);
    const double exact = -std::log(static_cast<double>(probe) / 2147483648.0) * 65536.0;
    ASSERT_NEAR(neg_log_q16(probe), exact, 0.6) << probe;
  }
  for (uint32_t bit = 0; bit < 31; ++bit)
    for (uint32_t value : {(1u << bit) - 1, 1u << bit, (1u << bit) + 1}) {
      if (value == 0 || value > 0x7ffffffeu) continue;
      const double exact = -std::log(static_cast<double>(value) / 2147483648.0) * 65536.0;
      ASSERT_NEAR(neg_log_q16(value), exact, 0.6) << value;
    }
  // The tables are what their comment says.
  for (uint32_t i = 0; i < 16; ++i) {
    const double c = 1.0 + (i + 0.5) / 16.0;
    EXPECT_EQ(park_miller_detail::kReciprocalQ32[i],
              static_cast<uint32_t>(std::llround(4294967296.0 / c)));
    EXPECT_EQ(park_miller_detail::kLnQ32[i],
              static_cast<uint32_t>(std::llround(std::log(c) * 4294967296.0)));
  }
  for (uint32_t v : {1u, 2u, 3u, 255u, 256u, 0x7fffffffu, 0xffffffffu})
    EXPECT_EQ(park_miller_detail::floor_log2(v), 31u - static_cast<uint32_t>(__builtin_clz(v)))
        << v;
  constexpr uint32_t kMean = 4096;
  constexpr int kDraws = 200000;
  uint32_t seed = 12345;
  double sum = 0;
  int beyond_2s = 0;
  for (int i = 0; i < kDraws; ++i) {
    seed = park_miller_next(seed);
    const uint64_t interval = exponential_interval(seed, kMean);
    ASSERT_GE(interval, 1u);
    sum += static_cast<double>(interval);
    beyond_2s += interval > 2 * kMean;
  }
  // Standard error of the mean: 4096 / sqrt(200000) = 9.2.
  EXPECT_NEAR(sum / kDraws, kMean + 0.5, 40.0);
  EXPECT_NEAR(static_cast<double>(beyond_2s) / kDraws, std::exp(-2.0), 0.005);
}

// ProfileMe's table draw (firmware/exponential_table.h): every bin's start
// and width against libm's quantiles of the exponential, and the draws'
// mean, tail (the open last bin's redraws) and their head, where the
// re-arming handler sits: P(interval <= d) = d / S for d << S, as for an
// exponential, within the first bin's 1/(2N) relative deficit.
TEST(ExpTableInterval, BinsAreExponentialQuantilesAndDrawsAreMemoryless) {
  for (uint32_t mean : {1024u, 65536u, 1u << 30}) {
    static ExpTable table;
    exp_table_fill(table, mean);
    // neg_log_q32 is within ~2^-22 of exact (here 2e-7 at worst); the fixed
    // point's last bit.
    const double kTolerance = std::ldexp(mean * 256.0, -21) + 1;
    for (uint32_t i = 0; i < kExpTableBins; ++i) {
      const double start = -std::log(1.0 - static_cast<double>(i) / kExpTableBins) * mean * 256;
      ASSERT_NEAR(static_cast<double>(table.bins[i].base), start, kTolerance) << mean << " " << i;
      if (i + 1 == kExpTableBins) {
        EXPECT_EQ(table.bins[i].width, 0u);
        continue;
      }
      const double end = -std::log(1.0 - (i + 1.0) / kExpTableBins) * mean * 256;
      ASSERT_NEAR(static_cast<double>(table.bins[i].width), end - start, 2 * kTolerance)
          << mean << " " << i;
    }
  }
  constexpr uint32_t kMean = 4096;
  static ExpTable table;
  exp_table_fill(table, kMean);
  constexpr int kDraws = 1000000;
  uint32_t seed = 4242;
  double sum = 0;
  int beyond_2s = 0, beyond_8s = 0, within_64 = 0;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t interval = exp_table_interval(table, seed);
    ASSERT_GE(interval, 1u);
    sum += static_cast<double>(interval);
    beyond_2s += interval > 2 * kMean;
    beyond_8s += interval > 8 * kMean;  // past ln 256 = 5.5 S: the redrawn tail
    within_64 += interval <= 64;
  }
  // Standard errors: the mean's 4096 / sqrt(1e6) = 4.1; e^-8's count 335,
  // sigma 18; 64/4096 of 1e6 = 15,500, sigma 124.
  EXPECT_NEAR(sum / kDraws, kMean + 0.5, 16.0);
  EXPECT_NEAR(static_cast<double>(beyond_2s) / kDraws, std::exp(-2.0), 0.002);
  EXPECT_NEAR(beyond_8s, kDraws * std::exp(-8.0), 80);
  EXPECT_NEAR(within_64, kDraws * (1 - std::exp(-64.0 / kMean)), 500);
}

}  // namespace
}  // namespace dcpi
