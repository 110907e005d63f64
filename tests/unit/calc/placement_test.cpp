// The sample-placement oracle (analysis/calc/truth/placement.h).
#include "analysis/calc/truth/placement.h"

#include <gtest/gtest.h>

#include <random>

#include "firmware/truth_format.h"

namespace dcpi::calc {
namespace {

// A loop of 40 instructions: mostly one cycle, a few long stalls.
std::unordered_map<uint64_t, uint64_t> loop_cycles() {
  std::unordered_map<uint64_t, uint64_t> cycles;
  for (uint64_t i = 0; i < 40; ++i) cycles[0x120000000 + 4 * i] = (i % 7 == 3) ? 90000 : 10000;
  return cycles;
}

// What an ideal sampler gives: N samples drawn independently from the cycles.
SamplesByAddress ideal_samples(const std::unordered_map<uint64_t, uint64_t>& cycles, int n,
                               uint64_t seed) {
  std::vector<uint64_t> pcs;
  std::vector<double> weights;
  for (const auto& [pc, c] : cycles) {
    pcs.push_back(pc);
    weights.push_back(static_cast<double>(c));
  }
  std::mt19937_64 rng(seed);
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());
  SamplesByAddress samples;
  for (int i = 0; i < n; ++i) samples[pcs[pick(rng)]] += 1;
  return samples;
}

TEST(Placement, AnIdealSamplerScoresAboutOneTimesNoise) {
  const auto cycles = loop_cycles();
  for (uint64_t seed : {11u, 12u, 13u}) {
    const PlacementScore s = score_placement(ideal_samples(cycles, 20000, seed), cycles);
    EXPECT_EQ(s.samples, 20000);
    EXPECT_EQ(s.instructions, 40u);
    EXPECT_GT(s.ratio, 0.6) << seed;
    EXPECT_LT(s.ratio, 1.5) << seed;
    EXPECT_TRUE(s.outliers.empty()) << seed;
    EXPECT_EQ(s.judged, 40u);  // ≥ 200 expected each
    // Its own draw is one more of the noise's: not beyond all of them, and
    // the noise's 95th percentile lies above the mean.
    EXPECT_GT(s.noise_farther, 0.0) << seed;
    EXPECT_GT(s.noise_ratio_p95, 1.0) << seed;
    EXPECT_LT(s.noise_ratio_p95, 2.0) << seed;
  }
}

TEST(Placement, ASkidToTheNextInstructionIsFarAboveNoiseAndNamesBothPcs) {
  const auto cycles = loop_cycles();
  SamplesByAddress samples = ideal_samples(cycles, 20000, 5);
  const uint64_t stalled = 0x120000000 + 4 * 10;  // i = 10: 10 % 7 == 3, a long stall
  const double moved = samples[stalled] / 2;
  samples[stalled] -= moved;
  samples[stalled + 4] += moved;
  const PlacementScore s = score_placement(samples, cycles);
  EXPECT_GT(s.ratio, 3);
  EXPECT_EQ(s.noise_farther, 0.0);  // no draw of the noise is as far
  ASSERT_GE(s.outliers.size(), 2u);
  EXPECT_TRUE((s.outliers[0].pc == stalled && s.outliers[1].pc == stalled + 4) ||
              (s.outliers[1].pc == stalled && s.outliers[0].pc == stalled + 4));
  EXPECT_EQ(s.worst.pc, s.outliers[0].pc);
  for (const PlacementOutlier& o : s.outliers) {
    if (o.pc == stalled) {
      EXPECT_LT(o.z, -4);
    } else if (o.pc == stalled + 4) {
      EXPECT_GT(o.z, 4);
    }
  }
}

TEST(Placement, SamplesWhereTheTruthHasNoCyclesAreMisplaced) {
  const auto cycles = loop_cycles();
  SamplesByAddress samples = ideal_samples(cycles, 20000, 6);
  samples[0x120001000] += 2000;  // outside the truth: 2000 / 22000 of the mass
  const PlacementScore s = score_placement(samples, cycles);
  EXPECT_EQ(s.instructions, 41u);
  EXPECT_GT(s.distance, 2000.0 / 22000 - 0.01);
  EXPECT_GT(s.ratio, 5);
}

TEST(Placement, ExactlyProportionalSamplesAreCloserThanNoise) {
  const auto cycles = loop_cycles();
  SamplesByAddress samples;
  for (const auto& [pc, c] : cycles) samples[pc] = static_cast<double>(c) / 100;
  const PlacementScore s = score_placement(samples, cycles);
  EXPECT_NEAR(s.distance, 0, 1e-12);
  EXPECT_GT(s.noise_distance, 0);
  EXPECT_LT(s.ratio, 0.01);
}

TEST(Placement, TheNoiseIsReproducibleForASeedAndMovesWithIt) {
  const auto cycles = loop_cycles();
  const SamplesByAddress samples = ideal_samples(cycles, 5000, 7);
  const PlacementScore a = score_placement(samples, cycles, {.seed = 3});
  const PlacementScore b = score_placement(samples, cycles, {.seed = 3});
  const PlacementScore c = score_placement(samples, cycles, {.seed = 4});
  EXPECT_EQ(a.noise_distance, b.noise_distance);
  EXPECT_NE(a.noise_distance, c.noise_distance);
  EXPECT_EQ(a.draws, 64);
  EXPECT_GT(a.noise_spread, 0);
}

// A truth without visible lines (the qemu machine's) cannot say how many of
// PALcode's samples land after a CALL_PAL: those instructions are left out,
// samples and cycles, and counted; with visible lines they stay.
TEST(Placement, WithoutVisibleLinesTheInstructionsPalReturnsToAreLeftOut) {
  const auto cycles = loop_cycles();
  GroundTruth truth;
  for (const auto& [pc, c] : cycles) truth.add_instruction(pc, c);
  SamplesByAddress samples = ideal_samples(cycles, 20000, 5);
  const uint64_t after_callsys = 0x120000000 + 4 * 10;
  samples[after_callsys] += 6000;  // PALcode's samples
  const std::vector<AddressRange> loop{{0x120000000, 0x120000000 + 4 * 40}};
  const PlacementScore counted = score_placement_in(samples, truth, loop);
  EXPECT_GT(counted.ratio, 3.0);
  EXPECT_EQ(counted.left_out, 0u);
  const PlacementScore left =
      score_placement_in(samples, truth, loop, std::vector<uint64_t>{after_callsys});
  EXPECT_LT(left.ratio, 1.5);
  EXPECT_EQ(left.left_out, 1u);
  EXPECT_GT(left.left_out_samples, 6000);
  EXPECT_EQ(left.instructions, 39u);
  truth.add_event(DCPI_TRUTH_VISIBLE_CYCLES_EVENT, 1);  // a truth that says where samples land
  EXPECT_EQ(score_placement_in(samples, truth, loop, std::vector<uint64_t>{after_callsys}).left_out,
            0u);
}

TEST(Placement, NothingToJudgeWithoutSamplesOrCycles) {
  EXPECT_EQ(score_placement({}, loop_cycles()).ratio, 0);
  EXPECT_EQ(score_placement({{0x10, 5}}, {}).ratio, 0);
  const PlacementScore few = score_placement({{0x120000000, 3}}, loop_cycles());
  EXPECT_EQ(few.judged, 0u);  // 3 samples: nothing reaches 200 expected
  EXPECT_EQ(few.worst.pc, 0u);
}

}  // namespace
}  // namespace dcpi::calc
