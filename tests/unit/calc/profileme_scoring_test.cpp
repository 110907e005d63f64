// ProfileMe's per-procedure latency projections against the truth (issue 27;
// profileme_scoring.h): their σ must cover the spread of a latency within
// one PC, which the records' log2 distributions show, or "within 2σ" fails
// wherever long misses mix with hits.
#include "analysis/calc/truth/profileme_scoring.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

namespace dcpi::calc {
namespace {

constexpr uint64_t kPc = 0x1000;
constexpr double kInterval = 1000;  // S
// One load: 900,000 executions wait 1 cycle, 100,000 wait 100 (a miss).
constexpr uint64_t kHits = 900000, kMisses = 100000, kMissCycles = 100;

GroundTruth truth_of_the_load() {
  std::ostringstream text;
  text << "dcpi-exec-counts 2\nmachine ev5\nvcpus 1\n"
       << "insn " << std::hex << kPc << std::dec << ' ' << kHits + kMisses << '\n'
       << "cycles " << std::hex << kPc << std::dec << ' ' << kHits + kMisses * kMissCycles << '\n';
  std::istringstream in(text.str());
  GroundTruth truth;
  std::string error;
  EXPECT_TRUE(read_ground_truth(in, truth, error)) << error;
  return truth;
}

// One run's records: every execution tagged with probability 1/S (Poisson
// counts), each record's latency summed and counted in its log2 bucket.
ProfileMeRecords sample(std::mt19937_64& random, bool with_distribution) {
  const double hits = std::poisson_distribution<uint64_t>(kHits / kInterval)(random);
  const double misses = std::poisson_distribution<uint64_t>(kMisses / kInterval)(random);
  ProfileMeRecords records;
  records.interval = kInterval;
  records.samples[kPc] = records.retired[kPc] = hits + misses;
  records.latency[kPc] = records.stall[kPc] = hits + misses * kMissCycles;
  if (with_distribution) {
    records.stall_log2[0][kPc] = hits;    // [1, 2)
    records.stall_log2[6][kPc] = misses;  // [64, 128)
  }
  return records;
}

double share_within_2sigma(bool with_distribution) {
  const GroundTruth truth = truth_of_the_load();
  const std::vector<NamedRange> procedures = {{"load", {kPc, kPc + 4}}};
  std::mt19937_64 random(27);
  constexpr int kRuns = 400;
  int within = 0;
  for (int run = 0; run < kRuns; ++run) {
    const ProfileMeScore score =
        score_profileme(sample(random, with_distribution), truth, procedures);
    EXPECT_EQ(score.procedures.size(), 1u);
    EXPECT_EQ(score.procedures_judged, 1u);
    within += static_cast<int>(score.procedures_within);
  }
  return double(within) / kRuns;
}

TEST(ProfileMeScoring, SigmaCoversALatencysSpreadWithinAPc) {
  // σ ≈ S·√(Σ v²): about 95 % of runs within 2σ.
  const double share = share_within_2sigma(true);
  EXPECT_GE(share, 0.90);
  EXPECT_LE(share, 0.99);
  // Each record at its PC's mean alone: σ a third of the spread's, about
  // half the runs outside 2σ.
  EXPECT_LT(share_within_2sigma(false), 0.70);
}

TEST(ProfileMeScoring, AProcedureWithFewRecordsIsShownButNotJudged) {
  const GroundTruth truth = truth_of_the_load();
  ProfileMeRecords records;
  records.interval = kInterval;
  records.samples[kPc] = records.retired[kPc] = 7;
  records.latency[kPc] = records.stall[kPc] = 7;  // seven hits: the misses' cycles unseen
  const ProfileMeScore score = score_profileme(records, truth, {{"load", {kPc, kPc + 4}}});
  ASSERT_EQ(score.procedures.size(), 1u);
  EXPECT_FALSE(score.procedures[0].judged());
  EXPECT_FALSE(score.procedures[0].within_2sigma());
  EXPECT_EQ(score.procedures_judged, 0u);
  EXPECT_EQ(score.procedures_within, 0u);
}

}  // namespace
}  // namespace dcpi::calc
