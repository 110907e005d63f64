// Error histograms of Figures 8 and 9 (DCPI §6.2) and the ground-truth file.
#include "analysis/calc/truth/scoring.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dcpi::calc {
namespace {

TEST(Scoring, BucketsFollowThePaperBoundaries) {
  EXPECT_EQ(error_bucket(100, 100), 1);  // [1.00, 1.05) is +5 %
  EXPECT_EQ(error_bucket(104.9, 100), 1);
  EXPECT_EQ(error_bucket(105, 100), 2);
  EXPECT_EQ(error_bucket(99.9, 100), -1);  // [0.95, 1.00) is −5 %
  EXPECT_EQ(error_bucket(95, 100), -1);
  EXPECT_EQ(error_bucket(90, 100), -2);  // 0.90 belongs to −10 %, not −15 %
  EXPECT_EQ(error_bucket(87, 100), -3);  // the paper's example: −15 % = [0.85, 0.90)
  EXPECT_EQ(error_bucket(50, 100), -10);
  EXPECT_EQ(error_bucket(200, 100), 10);
  EXPECT_EQ(error_bucket(0, 0), 1);
  EXPECT_EQ(error_bucket(3, 0), 10);
  EXPECT_EQ(bucket_label(-3), "-15%");
  EXPECT_EQ(bucket_label(1), "+5%");
  EXPECT_EQ(bucket_label(-10), "<-45%");
}

TEST(Scoring, HistogramIsWeightedAndCumulativeFractionsAdd) {
  const std::vector<ScoredCount> items = {
      {.estimated = 102, .exact = 100, .weight = 73},  // +5 %
      {.estimated = 93, .exact = 100, .weight = 14},   // −10 %
      {.estimated = 113, .exact = 100, .weight = 5},   // +15 %
      {.estimated = 40, .exact = 100, .weight = 8},    // < −45 %
  };
  const ErrorHistogram h = score(items);
  EXPECT_DOUBLE_EQ(h.total_weight(), 100);
  EXPECT_DOUBLE_EQ(h.weight(1), 73);
  EXPECT_DOUBLE_EQ(h.weight(-2), 14);
  EXPECT_DOUBLE_EQ(h.weight(3), 5);
  EXPECT_DOUBLE_EQ(h.weight(-10), 8);
  EXPECT_DOUBLE_EQ(h.fraction_within(5), 0.73);  // the paper's "73 % within 5 %"
  EXPECT_DOUBLE_EQ(h.fraction_within(10), 0.87);
  EXPECT_DOUBLE_EQ(h.fraction_within(15), 0.92);
  EXPECT_DOUBLE_EQ(h.fraction_within(45), 0.92);  // the outer bucket is never "within"
}

TEST(GroundTruth, ParsesThePluginFileAndDerivesFallThroughs) {
  std::istringstream file(
      "dcpi-exec-counts 1\n"
      "# comment\n"
      "vcpus 1\n"
      "insn 1000 10\n"
      "insn 1004 10\n"
      "insn 1008 7\n"
      "edge 1004 1000 9\n"  // loop back edge (bne at 0x1004)
      "edge 1004 2000 0\n");
  GroundTruth truth;
  std::string error;
  ASSERT_TRUE(read_ground_truth(file, truth, error)) << error;
  EXPECT_EQ(truth.executions(0x1000), 10u);
  EXPECT_EQ(truth.transfers(0x1004, 0x1000), 9u);
  EXPECT_EQ(truth.transfers(0x1004, 0x1008), 1u);  // 10 executed, 9 recorded away
  EXPECT_EQ(truth.transfers(0x1000, 0x1004), 10u);
}

TEST(GroundTruth, RejectsAFileWithoutTheHeader) {
  std::istringstream file("insn 1000 10\n");
  GroundTruth truth;
  std::string error;
  EXPECT_FALSE(read_ground_truth(file, truth, error));
  EXPECT_NE(error.find("dcpi-exec-counts"), std::string::npos);
}

}  // namespace
}  // namespace dcpi::calc
