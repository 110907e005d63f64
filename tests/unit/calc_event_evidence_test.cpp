// dcpicalc's event evidence (DCPI §6.3, issue 26): the 21164 counts
// mispredicted branches (branchmp) and mispredicted jump targets
// (pcmispredict) apart, and both are the evidence of the one
// branch-mispredict candidate, whose restart both land on.
#include <gtest/gtest.h>

#include "analysis/calc/frontend/event_evidence.h"
#include "analysis/calc/frontend/inputs.h"

namespace dcpi {
namespace {

TEST(CalcEventEvidence, BranchAndPcMispredictsAreOneCandidatesEvidence) {
  EXPECT_EQ(cause_of_event("pcmispredict"), calc::StallCause::kBranchMispredict);
  EXPECT_EQ(cause_of_event("branchmp"), calc::StallCause::kBranchMispredict);
  ImageSamples samples;
  samples.cycles[0x1000] = 100;
  samples.events["branchmp"][0x1010] = 3;
  samples.events["pcmispredict"][0x1020] = 2;
  samples.events["pcmispredict"][0x1010] = 1;
  samples.sampled_events = {"branchmp", "pcmispredict"};
  samples.events_per_sample["branchmp"] = 4000;
  samples.events_per_sample["pcmispredict"] = 8000;  // half the time on counter 2
  const calc::CulpritOptions options = culprit_options(samples, 60000, true, nullptr);
  const auto found = options.events.find(calc::StallCause::kBranchMispredict);
  ASSERT_NE(found, options.events.end());
  const calc::EventEvidence& evidence = found->second;
  EXPECT_DOUBLE_EQ(evidence.events_per_sample, 4000);
  // In branchmp's samples: a pcmispredict sample stands for twice its events.
  EXPECT_DOUBLE_EQ(evidence.samples.at(0x1010), 3 + 2);
  EXPECT_DOUBLE_EQ(evidence.samples.at(0x1020), 4);
}

}  // namespace
}  // namespace dcpi
