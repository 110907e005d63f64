// Gibbons–Matias concise samples (seed 001 §2.2): exact while the table
// fits, at most N values always, and unbiased estimates C[v]/p.
#include "profiledb/concise_sample.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace dcpi::values {
namespace {

TEST(ConciseSample, ExactWhileTheTableFits) {
  ConciseSample sample(1);
  for (int i = 0; i < 100; ++i) sample.add(7);
  for (int i = 0; i < 30; ++i) sample.add(9);
  EXPECT_EQ(sample.probability(), 1.0);
  const auto list = sample.hotlist();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].value, 7u);
  EXPECT_EQ(list[0].count, 100u);
  EXPECT_EQ(list[1].value, 9u);
  EXPECT_DOUBLE_EQ(list[1].estimate, 30.0);
  EXPECT_EQ(sample.seen(), 130u);
}

// A stream with two hot values and many cold ones, in a fixed shuffled order.
std::vector<uint64_t> skewed_stream() {
  std::vector<uint64_t> stream(1000, 0xAAAA);
  stream.insert(stream.end(), 300, 0xBBBB);
  for (uint64_t v = 0; v < 200; ++v) stream.insert(stream.end(), 5, v);
  std::shuffle(stream.begin(), stream.end(), std::mt19937_64(42));
  return stream;
}

TEST(ConciseSample, NeverHoldsMoreThanNValues) {
  ConciseSample sample(3);
  for (uint64_t v : skewed_stream()) {
    sample.add(v);
    ASSERT_LE(sample.distinct(), kHotlistCapacity);
  }
  EXPECT_LT(sample.probability(), 1.0);  // the stream had 202 distinct values
  EXPECT_EQ(sample.hotlist().front().value, 0xAAAAu);
}

double estimate_of(const ConciseSample& sample, uint64_t value) {
  for (const HotValue& h : sample.hotlist())
    if (h.value == value) return h.estimate;
  return 0.0;  // not retained: the estimate is zero, which keeps the mean unbiased
}

// The mean of C[v]/p over independent runs converges to the true count; we
// allow 4 standard errors of the mean, measured from the same runs.
TEST(ConciseSample, EstimatesAreUnbiased) {
  const auto stream = skewed_stream();
  constexpr int kRuns = 400;
  for (const auto& [value, truth] :
       {std::pair<uint64_t, double>{0xAAAA, 1000}, {0xBBBB, 300}, {17, 5}}) {
    double sum = 0, sum_sq = 0;
    for (int seed = 0; seed < kRuns; ++seed) {
      ConciseSample sample(1000 + seed);
      for (uint64_t v : stream) sample.add(v);
      const double e = estimate_of(sample, value);
      sum += e;
      sum_sq += e * e;
    }
    const double mean = sum / kRuns;
    const double variance = std::max(sum_sq / kRuns - mean * mean, 1e-9);
    const double standard_error = std::sqrt(variance / kRuns);
    EXPECT_NEAR(mean, truth, 4 * standard_error + 1e-9) << "value " << value;
  }
}

TEST(ConciseSample, RejectsBadParameters) {
  EXPECT_THROW(ConciseSample(1, 0), std::invalid_argument);
  EXPECT_THROW(ConciseSample(1, 16, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace dcpi::values
