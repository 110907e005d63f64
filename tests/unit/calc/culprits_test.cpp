// Culprits of dynamic stalls (DCPI §6.3), on the Figure 2 copy loop.
#include "analysis/calc/estimate/culprits.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/calc/decode/isa_adapter.h"
#include "analysis/calc/model/ev5_model.h"
#include "analysis/calc/model/qemu_icount_model.h"
#include "copy_loop_fixture.h"

namespace dcpi::calc {
namespace {

SamplesByAddress figure7_samples() {
  SamplesByAddress samples;
  const auto block = testing::copy_loop_block();
  const auto s = testing::copy_loop_samples();
  for (size_t i = 0; i < block.size(); ++i) samples[block[i].address] = s[i];
  return samples;
}

const DynamicStall* stall_at(const CulpritReport& report, uint64_t address) {
  for (const DynamicStall& s : report.stalls)
    if (s.address == address) return &s;
  return nullptr;
}

// dcpicalc's culprits for `code` with `samples` on the EV5 model.
CulpritReport ev5_culprits(const std::vector<InstructionRecord>& code,
                           const SamplesByAddress& samples) {
  const Ev5Model model;
  return find_culprits(analyze_procedure(build_cfg(code), model, samples), model);
}

bool has(const DynamicStall& stall, StallCause cause) {
  return std::any_of(stall.candidates.begin(), stall.candidates.end(),
                     [&](const CulpritCandidate& c) { return c.cause == cause; });
}

TEST(Culprits, StalledStoreAt9834IsDcacheWriteBufferOrDtbAsInFigure2) {
  const Ev5Model model;
  const ProcedureAnalysis analysis =
      analyze_procedure(build_cfg(testing::copy_loop_block()), model, figure7_samples());
  const CulpritReport report = find_culprits(analysis, model);
  EXPECT_TRUE(report.machine_has_dynamic_stalls);
  const DynamicStall* stall = stall_at(report, 0x9834);
  ASSERT_NE(stall, nullptr);
  EXPECT_GT(stall->cycles, 100.0);  // Figure 2: 114.5 cycles
  EXPECT_TRUE(has(*stall, StallCause::kDCacheMiss));
  EXPECT_TRUE(has(*stall, StallCause::kWriteBufferOverflow));
  EXPECT_TRUE(has(*stall, StallCause::kDtbMiss));
  EXPECT_FALSE(has(*stall, StallCause::kICacheMiss));  // mid-line, mid-block
  EXPECT_FALSE(has(*stall, StallCause::kBranchMispredict));
  EXPECT_FALSE(has(*stall, StallCause::kMultiplierBusy));
  // One D-cache culprit is the ldq t6 at 00981c that loaded the stored
  // register (the other: t2 may arrive loaded from the unknown caller).
  EXPECT_TRUE(std::any_of(stall->candidates.begin(), stall->candidates.end(),
                          [](const CulpritCandidate& c) {
                            return c.cause == StallCause::kDCacheMiss && c.instruction == 0x981cu;
                          }));
  // Issue points that ran at their static cycles have no dynamic stall.
  EXPECT_EQ(stall_at(report, 0x9838), nullptr);
}

// A third of a cycle per execution is below min_stall_cycles, but on a hot
// loop it is hundreds of samples beyond the best case's (here 11 sigma):
// listed. The same share on a cold copy (1/100 of the samples) is noise.
TEST(Culprits, ASmallStallIsListedWhereTheSamplesMakeItSignificant) {
  const Ev5Model model;
  SamplesByAddress hot = figure7_samples();
  hot[0x9838] = 1985;  // F ~ 1527 per cycle: 0.3 cycles beyond its M = 1
  const ProcedureAnalysis hot_analysis =
      analyze_procedure(build_cfg(testing::copy_loop_block()), model, hot);
  const CulpritReport hot_report = find_culprits(hot_analysis, model);  // stall points into it
  const DynamicStall* stall = stall_at(hot_report, 0x9838);
  ASSERT_NE(stall, nullptr);
  EXPECT_NEAR(stall->cycles, 0.3, 0.05);
  EXPECT_TRUE(has(*stall, StallCause::kWriteBufferOverflow));

  SamplesByAddress cold;
  for (const auto& [address, samples] : hot) cold[address] = samples / 100;
  const ProcedureAnalysis cold_analysis =
      analyze_procedure(build_cfg(testing::copy_loop_block()), model, cold);
  EXPECT_EQ(stall_at(find_culprits(cold_analysis, model), 0x9838), nullptr);
}

bool names(const std::vector<CulpritCandidate>& list, StallCause cause,
           std::optional<uint64_t> load) {
  return std::any_of(list.begin(), list.end(), [&](const CulpritCandidate& c) {
    return c.cause == cause && c.instruction == load;
  });
}

// DCPI §6.3 with DMISS samples (issue 26): the event is charged at the load
// that missed, so no DMISS sample at the ldq at 981c over ~96 M executions
// of the block (721 samples expected had its misses explained even half a
// cycle per execution) rules 981c out; the anonymous candidate (t2 from the
// unknown caller, its load out of sight) stays, and so does the write buffer.
TEST(Culprits, DmissSamplesRuleOutTheLoadWithoutMisses) {
  const Ev5Model model;
  const ProcedureAnalysis analysis =
      analyze_procedure(build_cfg(testing::copy_loop_block()), model, figure7_samples());
  CulpritOptions options;
  options.events[StallCause::kDCacheMiss] = {"dmiss", {{0x9810, 40000}}, 256};
  options.cycles_period = 62000;
  const CulpritReport report = find_culprits(analysis, model, options);
  const DynamicStall* stall = stall_at(report, 0x9834);
  ASSERT_NE(stall, nullptr);
  EXPECT_FALSE(names(stall->candidates, StallCause::kDCacheMiss, 0x981cu));
  EXPECT_TRUE(names(stall->ruled_out, StallCause::kDCacheMiss, 0x981cu));
  EXPECT_TRUE(names(stall->candidates, StallCause::kDCacheMiss, std::nullopt));
  EXPECT_TRUE(has(*stall, StallCause::kWriteBufferOverflow));
  const auto ruled =
      std::find_if(stall->ruled_out.begin(), stall->ruled_out.end(),
                   [](const CulpritCandidate& c) { return c.instruction == 0x981cu; });
  ASSERT_NE(ruled, stall->ruled_out.end());
  EXPECT_GT(ruled->expected_samples, 500);
  // The stq at 9828 waits for the ldq at 9810, which has DMISS samples: kept,
  // bounded by 40000 x 256 misses x 260 cycles over its executions.
  const DynamicStall* first = stall_at(report, 0x9828);
  ASSERT_NE(first, nullptr);
  const auto kept =
      std::find_if(first->candidates.begin(), first->candidates.end(),
                   [](const CulpritCandidate& c) { return c.instruction == 0x9810u; });
  ASSERT_NE(kept, first->candidates.end());
  ASSERT_TRUE(kept->upper_bound_cycles.has_value());
  const double executions = analysis.block_frequency(0).value() * 62000;
  EXPECT_NEAR(*kept->upper_bound_cycles, 40000.0 * 256 * 260 / executions, 1e-9);
}

// Absence means something only where enough samples were expected: with a
// short run (period 62000 but a sampling rate so low that < 3 DMISS samples
// were expected) the load stays a candidate, unbounded.
TEST(Culprits, AbsenceOfTooFewExpectedSamplesRulesNothingOut) {
  const Ev5Model model;
  const ProcedureAnalysis analysis =
      analyze_procedure(build_cfg(testing::copy_loop_block()), model, figure7_samples());
  CulpritOptions options;
  options.events[StallCause::kDCacheMiss] = {"dmiss", {}, 1e9};  // one sample per 1e9 misses
  options.cycles_period = 62000;
  const CulpritReport report = find_culprits(analysis, model, options);
  const DynamicStall* stall = stall_at(report, 0x9834);
  ASSERT_NE(stall, nullptr);
  EXPECT_TRUE(names(stall->candidates, StallCause::kDCacheMiss, 0x981cu));
  EXPECT_TRUE(stall->ruled_out.empty());
}

// IMISS samples at an instruction bound its I-cache explanation (§6.3: each
// miss at the worst cost); none there, where many were expected, rule it out.
TEST(Culprits, ImissSamplesBoundOrRuleOutICacheMisses) {
  const Ev5Model model;
  const ProcedureAnalysis analysis =
      analyze_procedure(build_cfg(testing::copy_loop_block()), model, figure7_samples());
  CulpritOptions options;
  options.cycles_period = 62000;
  const CulpritReport without = find_culprits(analysis, model, options);
  const DynamicStall* entry = stall_at(without, 0x9810);
  ASSERT_NE(entry, nullptr);
  ASSERT_TRUE(has(*entry, StallCause::kICacheMiss)) << "the block's head may miss";
  options.events[StallCause::kICacheMiss] = {"imiss", {{0x9810, 2000}}, 512};
  const CulpritReport bounded = find_culprits(analysis, model, options);
  const DynamicStall* head = stall_at(bounded, 0x9810);
  ASSERT_NE(head, nullptr);
  const auto icache =
      std::find_if(head->candidates.begin(), head->candidates.end(),
                   [](const CulpritCandidate& c) { return c.cause == StallCause::kICacheMiss; });
  ASSERT_NE(icache, head->candidates.end());
  const double executions = analysis.block_frequency(0).value() * 62000;
  EXPECT_NEAR(icache->upper_bound_cycles.value(), 2000.0 * 512 * 260 / executions, 1e-9);
  options.events[StallCause::kICacheMiss] = {"imiss", {}, 512};
  const CulpritReport ruled = find_culprits(analysis, model, options);
  ASSERT_NE(stall_at(ruled, 0x9810), nullptr);
  EXPECT_FALSE(has(*stall_at(ruled, 0x9810), StallCause::kICacheMiss));
}

// Issue 17: a register-only instruction whose operands arrive from outside
// the block (here the unknown caller) has no load to blame; a D-cache "d"
// with an empty culprit column explained nothing. A load we can name stays.
TEST(Culprits, RegisterOnlyInstructionsBlameOnlyNamedLoads) {
  using testing::op;
  const std::vector<InstructionRecord> code = {
      op(0x100, isa::Ev5Class::kIadd, 1, 2, 3),  // addq t0,t1,t2: operands from the caller
      op(0x104, isa::Ev5Class::kIld, std::nullopt, 16, 4),  // ldq t3,0(a0)
      op(0x108, isa::Ev5Class::kIadd, 4, 3, 5),             // addq t3,t2,t4: waits on the ldq
      op(0x10c, isa::Ev5Class::kIadd, 17, 18, 6),           // independent adds, no stalls
      op(0x110, isa::Ev5Class::kIadd, 17, 18, 7),
      op(0x114, isa::Ev5Class::kIadd, 17, 18, 8),
      op(0x118, isa::Ev5Class::kIadd, 17, 18, 22),
      testing::branch(0x11c, ControlFlow::kReturn, std::nullopt)};
  SamplesByAddress samples = {{0x100, 4000}, {0x104, 100}, {0x108, 4000}};
  for (uint64_t a = 0x10c; a <= 0x11c; a += 4) samples[a] = 100;
  const CulpritReport report = ev5_culprits(code, samples);
  const DynamicStall* first = stall_at(report, 0x100);
  ASSERT_NE(first, nullptr);
  EXPECT_FALSE(has(*first, StallCause::kDCacheMiss));
  EXPECT_TRUE(has(*first, StallCause::kICacheMiss)) << "the entry may miss";
  const DynamicStall* user = stall_at(report, 0x108);
  ASSERT_NE(user, nullptr);
  EXPECT_TRUE(
      std::any_of(user->candidates.begin(), user->candidates.end(), [](const CulpritCandidate& c) {
        return c.cause == StallCause::kDCacheMiss && c.instruction == 0x104u;
      }));
  for (const CulpritCandidate& c : user->candidates) {
    if (c.cause == StallCause::kDCacheMiss) {
      EXPECT_TRUE(c.instruction.has_value());
    }
  }
}

// A mulq right after a call returns may wait for the multiplier the callee
// left busy (mathcall: llround's mulq, 4 M cycles in main's next mulq):
// the call stands for the callee's code; without it nothing multiplies.
TEST(Culprits, AMultiplyAfterACallMayFindTheMultiplierBusy) {
  using testing::op;
  for (const bool with_call : {true, false}) {
    const std::vector<InstructionRecord> code = {
        testing::branch(0x100, ControlFlow::kConditionalBranch, 0x110, 1),  // beq t0, mulq
        op(0x104, isa::Ev5Class::kIadd, 17, 18, 6),
        with_call ? testing::branch(0x108, ControlFlow::kCall, 0x2000, 26)
                  : op(0x108, isa::Ev5Class::kIadd, 17, 18, 7),
        op(0x10c, isa::Ev5Class::kIadd, 17, 18, 8),
        op(0x110, isa::Ev5Class::kImulq, 17, 18, 9),  // mulq: stalled in the samples
        testing::branch(0x114, ControlFlow::kReturn, std::nullopt)};
    SamplesByAddress samples = {{0x110, 4000}};
    for (uint64_t a : {0x100, 0x104, 0x108, 0x10c, 0x114}) samples[a] = 400;
    const CulpritReport report = ev5_culprits(code, samples);
    const DynamicStall* stall = stall_at(report, 0x110);
    ASSERT_NE(stall, nullptr);
    EXPECT_EQ(has(*stall, StallCause::kMultiplierBusy), with_call) << "call " << with_call;
  }
}

// A unop (ldq_u zero,0(sp)) is the Alpha universal NOP: it never accesses
// memory, so at a stalled line head it can miss the I-cache but names no
// DTB, D-cache or write-buffer culprit (mathcall: main's unop after the
// llround call listed DTB and an anonymous d for its I-cache stall).
TEST(Culprits, AUnopNamesNoMemoryCause) {
  using testing::op;
  for (const bool padding : {true, false}) {
    InstructionRecord head = op(0x120, isa::Ev5Class::kIld, std::nullopt, 16, std::nullopt);
    head.no_op = padding;  // padding: ldq_u zero,0(a0); else ldq zero... read as a real load
    const std::vector<InstructionRecord> code = {
        head, op(0x124, isa::Ev5Class::kIadd, 17, 18, 6),
        op(0x128, isa::Ev5Class::kIadd, 17, 18, 7),
        testing::branch(0x12c, ControlFlow::kReturn, std::nullopt)};
    const SamplesByAddress samples = {{0x120, 4000}, {0x124, 400}, {0x128, 400}, {0x12c, 400}};
    const CulpritReport report = ev5_culprits(code, samples);
    const DynamicStall* stall = stall_at(report, 0x120);
    ASSERT_NE(stall, nullptr);
    EXPECT_TRUE(has(*stall, StallCause::kICacheMiss)) << "a line head may miss";
    EXPECT_NE(has(*stall, StallCause::kDtbMiss), padding);
    EXPECT_NE(has(*stall, StallCause::kDCacheMiss), padding);
  }
}

// The 21164's load-after-store hazard (21164PC HRM p. 2-33): mathcall's
// conversions go through the stack (cvttq, stt f0,16(sp), ldq t0,16(sp)),
// and the load right after the store replays. dcpicalc names the store as
// the load's `replay` culprit, and not a DTB miss (the store just put the
// page's translation in the DTB); a load of another address gets neither
// the replay nor the DTB rule.
TEST(Culprits, ALoadRightAfterAStoreToItsAddressBlamesTheStoreNotTheDtb) {
  constexpr uint32_t kSttF0At16Sp = (0x27u << 26) | (0u << 21) | (30u << 16) | 16;
  constexpr uint32_t kAddqT0T0T1 = (0x10u << 26) | (1u << 21) | (1u << 16) | (0x20u << 5) | 2;
  constexpr uint32_t kRet = (0x1au << 26) | (31u << 21) | (26u << 16) | (2u << 14) | 1;
  for (const int16_t load_displacement : {int16_t(16), int16_t(24)}) {
    const uint32_t ldq_t0 = (0x29u << 26) | (1u << 21) | (30u << 16) | uint16_t(load_displacement);
    const std::vector<uint32_t> words = {kSttF0At16Sp, ldq_t0, kAddqT0T0T1, kRet};
    const std::vector<InstructionRecord> code = decode_records(words, 0x100);
    const SamplesByAddress samples = {{0x100, 400}, {0x104, 4000}, {0x108, 400}, {0x10c, 400}};
    const CulpritReport report = ev5_culprits(code, samples);
    const DynamicStall* stall = stall_at(report, 0x104);
    ASSERT_NE(stall, nullptr);
    const bool same = load_displacement == 16;
    const auto replay = std::find_if(stall->candidates.begin(), stall->candidates.end(),
                                     [](const auto& c) { return c.cause == StallCause::kReplay; });
    ASSERT_EQ(replay != stall->candidates.end(), same) << "displacement " << load_displacement;
    if (same) {
      EXPECT_EQ(replay->instruction, 0x100u) << "the store is the culprit";
    }
    EXPECT_NE(has(*stall, StallCause::kDtbMiss), same) << "displacement " << load_displacement;
  }
}

// The stack pointer is never loaded (it changes only by its frame's
// arithmetic), so a stack access whose sp arrives from outside the block
// waits on no D-cache miss through it; the same load through a0, which the
// unknown caller may have loaded, keeps its anonymous d.
TEST(Culprits, AStackAccessWaitsOnNoDcacheMissThroughSp) {
  using testing::op;
  for (const uint8_t base : {uint8_t(30), uint8_t(16)}) {
    const std::vector<InstructionRecord> code = {
        op(0x100, isa::Ev5Class::kIld, std::nullopt, base, 3),  // ldq t2,112(base)
        op(0x104, isa::Ev5Class::kIadd, 17, 18, 6), op(0x108, isa::Ev5Class::kIadd, 17, 18, 7),
        testing::branch(0x10c, ControlFlow::kReturn, std::nullopt)};
    const SamplesByAddress samples = {{0x100, 4000}, {0x104, 400}, {0x108, 400}, {0x10c, 400}};
    const CulpritReport report = ev5_culprits(code, samples);
    const DynamicStall* stall = stall_at(report, 0x100);
    ASSERT_NE(stall, nullptr);
    EXPECT_EQ(has(*stall, StallCause::kDCacheMiss), base != 30) << "base r" << int(base);
    EXPECT_TRUE(has(*stall, StallCause::kDtbMiss)) << "its page may still miss";
  }
}

// A 2-bit counter (21164 HRM §2.2.4) mispredicts a branch's frequent
// direction at most about once per execution of its rare one: the head of
// a loop whose back edge is taken 99 times per exit is not a mispredict
// candidate (mathcall: main's mulq after a rarely taken bne), while the
// exit block, the rare direction, stays one; and a loop of two iterations
// per entry keeps the candidate at its head too.
TEST(Culprits, AFrequentEdgeOfAConditionalBranchIsRarelyMispredicted) {
  using testing::op;
  for (const double iterations : {100.0, 2.0}) {
    const std::vector<InstructionRecord> code = {
        op(0x100, isa::Ev5Class::kIadd, 17, 18, 6),  // entry
        op(0x104, isa::Ev5Class::kIadd, 17, 18, 7),
        op(0x110, isa::Ev5Class::kIadd, 17, 18, 8),  // loop head: stalled in the samples
        op(0x114, isa::Ev5Class::kIadd, 17, 18, 9),
        op(0x118, isa::Ev5Class::kIadd, 17, 18, 10),
        testing::branch(0x11c, ControlFlow::kConditionalBranch, 0x110, 1),  // bne t0, head
        op(0x120, isa::Ev5Class::kIadd, 17, 18, 11),                        // exit: stalled too
        op(0x124, isa::Ev5Class::kIadd, 17, 18, 12),
        testing::branch(0x128, ControlFlow::kReturn, std::nullopt)};
    const double entries = 20;  // samples per instruction of the blocks run once per loop
    SamplesByAddress samples = {{0x100, entries},
                                {0x104, entries},
                                {0x120, 4 * entries},
                                {0x124, entries},
                                {0x128, entries}};
    for (uint64_t a : {0x114, 0x118, 0x11c}) samples[a] = entries * iterations;
    samples[0x110] = 4 * entries * iterations;
    const CulpritReport report = ev5_culprits(code, samples);
    const DynamicStall* head = stall_at(report, 0x110);
    const DynamicStall* exit = stall_at(report, 0x120);
    ASSERT_NE(head, nullptr);
    ASSERT_NE(exit, nullptr);
    EXPECT_EQ(has(*head, StallCause::kBranchMispredict), iterations < 10) << iterations;
    EXPECT_TRUE(has(*exit, StallCause::kBranchMispredict)) << iterations;
  }
}

// A loop without calls spanning less than the 21164's direct-mapped 8 KB
// I-cache keeps its lines once fetched: a line head inside it misses at most
// once per entry, so on a loop of 10000 iterations per entry its stall is
// not an I-cache candidate (stream: its loops' line heads, 500 M cycles of
// D-cache stall also listed as I-cache misses). A call in the loop, whose
// callee may take the loop's sets, keeps the candidate.
// A loop of 10000 iterations per entry (0x118-0x12b) whose line head 0x120
// is stalled in the samples; a call at 0x11c to `callee` if given.
ProcedureAnalysis loop_with_stalled_line_head(const Ev5Model& model,
                                              std::optional<uint64_t> callee) {
  using testing::op;
  const std::vector<InstructionRecord> code = {
      op(0x100, isa::Ev5Class::kIadd, 17, 18, 6),  // entry
      op(0x104, isa::Ev5Class::kIadd, 17, 18, 7),
      op(0x118, isa::Ev5Class::kIadd, 17, 18, 8),  // loop
      callee ? testing::branch(0x11c, ControlFlow::kCall, *callee, 26)
             : op(0x11c, isa::Ev5Class::kIadd, 17, 18, 9),
      op(0x120, isa::Ev5Class::kIadd, 17, 18, 10),  // a line head: stalled in the samples
      op(0x124, isa::Ev5Class::kIadd, 17, 18, 11),
      testing::branch(0x128, ControlFlow::kConditionalBranch, 0x118, 1),  // bne t0, loop
      testing::branch(0x12c, ControlFlow::kReturn, std::nullopt)};
  SamplesByAddress samples = {{0x100, 10}, {0x104, 10}, {0x12c, 10}};
  for (uint64_t a : {0x118, 0x11c, 0x124, 0x128}) samples[a] = 100000;
  samples[0x120] = 400000;
  return analyze_procedure(build_cfg(code), model, samples);
}

bool icache_candidate_at_line_head(const ProcedureAnalysis& analysis, const Ev5Model& model,
                                   const CulpritOptions& options = {}) {
  const CulpritReport report = find_culprits(analysis, model, options);
  const DynamicStall* stall = stall_at(report, 0x120);
  EXPECT_NE(stall, nullptr);
  return stall && has(*stall, StallCause::kICacheMiss);
}

TEST(Culprits, ALineInALoopWithoutCallsMissesOncePerEntry) {
  const Ev5Model model;
  EXPECT_FALSE(
      icache_candidate_at_line_head(loop_with_stalled_line_head(model, std::nullopt), model));
  EXPECT_TRUE(icache_candidate_at_line_head(loop_with_stalled_line_head(model, 0x2000), model))
      << "a call whose code is unknown";
}

// The loop rule across calls: a callee whose code (CulpritOptions::
// call_footprint) maps to sets of its own leaves the loop's lines in place
// (bytecode's dispatch loop calling __divq); one that shares a set with the
// loop's line head (0x2120 is 0x120 + 8 KB), or an unknown one, does not.
TEST(Culprits, ALoopCallingCodeOfItsOwnSetsMissesOncePerEntry) {
  const Ev5Model model;
  const ProcedureAnalysis analysis = loop_with_stalled_line_head(model, 0x4000);
  const auto icache_candidate = [&](std::optional<CodeRange> callee) {
    CulpritOptions options;
    options.call_footprint = [callee](uint64_t target,
                                      uint64_t) -> std::optional<std::vector<CodeRange>> {
      if (!callee || target != 0x4000) return std::nullopt;
      return std::vector<CodeRange>{*callee};
    };
    return icache_candidate_at_line_head(analysis, model, options);
  };
  EXPECT_FALSE(icache_candidate(CodeRange{0x4000, 0x4060})) << "sets of its own";
  EXPECT_TRUE(icache_candidate(CodeRange{0x2100, 0x2140})) << "0x2120 takes 0x120's set";
  EXPECT_TRUE(icache_candidate(std::nullopt)) << "unknown callee";
}

// A register every frequent path writes without a load, up to four blocks
// back and through a call that leaves it alone (CulpritOptions::
// call_clobbers), brings no D-cache miss: the load through it names no
// anonymous `d`; a call that may change it does.
TEST(Culprits, ABaseRegisterWrittenWithoutALoadOnEveryPathWaitsOnNoDcacheMiss) {
  using testing::op;
  const std::vector<InstructionRecord> code = {
      op(0x100, isa::Ev5Class::kIadd, 17, 18, 2),              // addq a1,a2,t1
      testing::branch(0x104, ControlFlow::kCall, 0x4000, 23),  // bsr t9,helper
      op(0x108, isa::Ev5Class::kIadd, 17, 18, 6),              // (the call's return)
      testing::branch(0x10c, ControlFlow::kConditionalBranch, 0x118, 6),
      op(0x110, isa::Ev5Class::kIadd, 17, 18, 7),
      op(0x114, isa::Ev5Class::kIadd, 17, 18, 8),
      op(0x118, isa::Ev5Class::kIld, std::nullopt, 2, 3),  // ldq t2,0(t1): stalled
      op(0x11c, isa::Ev5Class::kIadd, 17, 18, 9),
      testing::branch(0x120, ControlFlow::kReturn, std::nullopt)};
  SamplesByAddress samples;
  for (uint64_t a = 0x100; a <= 0x120; a += 4) samples[a] = 1000;
  samples[0x118] = 10000;
  const Ev5Model model;
  const ProcedureAnalysis analysis = analyze_procedure(build_cfg(code), model, samples);
  for (const uint32_t clobbers : {uint32_t{1} << 23, uint32_t{1} << 2}) {
    CulpritOptions options;
    options.call_clobbers = [clobbers](const InstructionRecord&) { return clobbers; };
    const CulpritReport report = find_culprits(analysis, model, options);
    const DynamicStall* stall = stall_at(report, 0x118);
    ASSERT_NE(stall, nullptr);
    EXPECT_EQ(has(*stall, StallCause::kDCacheMiss), clobbers == (uint32_t{1} << 2))
        << "clobbers " << clobbers;
  }
}

TEST(Culprits, QemuModelReportsNoDynamicStallsAndSaysWhy) {
  const QemuIcountModel model;
  const ProcedureAnalysis analysis =
      analyze_procedure(build_cfg(testing::copy_loop_block()), model, figure7_samples());
  const CulpritReport report = find_culprits(analysis, model);
  EXPECT_FALSE(report.machine_has_dynamic_stalls);
  EXPECT_TRUE(report.stalls.empty());
  EXPECT_NE(report.note.find("no dynamic stalls"), std::string::npos);
}

}  // namespace
}  // namespace dcpi::calc
