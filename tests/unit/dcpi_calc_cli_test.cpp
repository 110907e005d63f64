// `dcpi calc` and `dcpi score` on a synthetic profile database (written with
// hostdump's ProfileDatabaseWriter) holding DCPI Figure 2's samples for the
// assembled copy loop (fixtures/copy_fig2.S).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/own_weighed_samples.h"
#include "copy_fig2_profile.h"
#include "profiledb/profile_db_writer.h"
#include "test_support.h"

namespace dcpi {
namespace {

using testing::run_dcpi;

class CalcCli : public ::testing::Test {
 protected:
  void SetUp() override {
    elf_ = testing::fixture_path("copy_fig2.elf");
    if (elf_.empty()) GTEST_SKIP() << "alpha-linux-gnu binutils not installed";
    total_ = static_cast<double>(testing::write_copy_fig2_epoch(db(), 1));
  }
  std::string db() const { return dir_.file("db"); }

  testing::TempDir dir_;
  std::string elf_;
  double total_ = 0;
};

TEST_F(CalcCli, Ev5ListingHasFigure2sBestCaseBubblesAndCulprits) {
  const auto r = run_dcpi(
      {"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--model", "ev5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  if (std::getenv("DCPI_SHOW_CALC")) std::cout << r.out;  // the example in docs/calc.md
  EXPECT_NE(r.out.find("model:  alpha-21164 (EV5)"), std::string::npos) << r.out;
  // Issue 17: the profile is from QEMU's 1-IPC machine; the header says so.
  EXPECT_NE(r.out.find("note:   HYPOTHETICAL STALLS: this profile comes from QEMU"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("*** Best-case 8/13 = 0.62CPI"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(dual issue)"), std::string::npos);
  // The stq at 9834: a slotting line, then D-cache (the ldq at 981c), DTB and
  // write-buffer bubbles shortened to three lines.
  const size_t at = r.out.find("9834        stq");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string before =
      r.out.substr(r.out.rfind("9830        stq", at), at - r.out.rfind("9830        stq", at));
  EXPECT_NE(before.find("\n          s\n"), std::string::npos) << before;
  EXPECT_NE(before.find("          dDw ... "), std::string::npos) << before;
  EXPECT_NE(r.out.substr(at, r.out.find('\n', at) - at).find("981c"), std::string::npos);
  EXPECT_NE(r.out.find("*** D-cache miss"), std::string::npos);
  EXPECT_NE(r.out.find("*** Slotting"), std::string::npos);
  EXPECT_NE(r.out.find("*** Total tallied       100.0%"), std::string::npos) << r.out;
}

TEST_F(CalcCli, QemuModelIsTheDefaultAndInventsNoStalls) {
  const auto r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("model:  qemu-icount"), std::string::npos);
  EXPECT_NE(r.out.find("1 CPU"), std::string::npos);
  EXPECT_NE(r.out.find("*** Best-case 13/13 = 1.00CPI"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("*** No dynamic stalls"), std::string::npos);
  EXPECT_EQ(r.out.find("HYPOTHETICAL"), std::string::npos);
  EXPECT_NE(r.out.find("*** Subtotal dynamic    0.0%"), std::string::npos);
  EXPECT_EQ(r.out.find("\n          d"), std::string::npos) << "no bubble lines under QEMU";
  EXPECT_EQ(r.out.find("D-cache"), std::string::npos);

  const auto j = run_dcpi({"calc", "--db", db(), "--image", "copy_fig2", "--images",
                           elf_.substr(0, elf_.rfind('/')), "--procedure", "copy_fig2", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.out.find("\"model_has_dynamic_stalls\": false"), std::string::npos);
  EXPECT_NE(j.out.find("\"stalls_hypothetical\": false"), std::string::npos);
  EXPECT_NE(j.out.find("\"dynamic_total\": 0,"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"address\": \"0x9834\""), std::string::npos);
}

TEST_F(CalcCli, ScoreBucketsEstimatesAgainstExactCounts) {
  // Under the QEMU model the loop's frequency is its samples per instruction.
  const double executions = total_ / 13 * default_mean_period();
  for (const auto& [factor, bucket] : {std::pair{1.0, "+5%"}, std::pair{1.12, "+15%"}}) {
    std::ofstream counts(dir_.file("counts.txt"));
    counts << "dcpi-exec-counts 1\n";
    for (uint64_t a = 0x9810; a < 0x9844; a += 4)
      counts << "insn " << std::hex << a << std::dec << ' '
             << static_cast<uint64_t>(executions / factor) << '\n';
    counts.close();
    const auto r = run_dcpi({"score", "--db", db(), "--counts", dir_.file("counts.txt"), "--image",
                             elf_, "--procedure", "copy_fig2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string line = std::string(bucket) + "  100.0%";
    EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
  }
}

TEST_F(CalcCli, FlowEstimateIsOfferedAndNamedInTheHeader) {
  const auto r = run_dcpi(
      {"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--estimate", "flow"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("estimate: flow"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", min-cost flow) = "), std::string::npos) << r.out;
  const auto bad = run_dcpi(
      {"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--estimate", "profi"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--estimate must be dcpi or flow"), std::string::npos) << bad.err;
}

TEST_F(CalcCli, ErrorsNameTheProblem) {
  auto r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no procedure matches 'nope' in " + elf_ + "; the closest are:\n"),
            std::string::npos)
      << r.err;
  // The same selection rules as list and values (procedure_match.h): a glob,
  // and the closest candidates when nothing matches.
  r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_f*"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the closest are:\n  copy_fig2  [sampled]\n"), std::string::npos) << r.err;
  std::ofstream(dir_.file("header-only.txt")) << "dcpi-exec-counts 1\n";
  r = run_dcpi({"score", "--db", db(), "--counts", dir_.file("header-only.txt"), "--image", elf_,
                "--procedure", "copy_fig"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the closest are:\n  copy_fig2  [sampled]\n"), std::string::npos) << r.err;
  EXPECT_EQ(run_dcpi({"calc", "--db", db(), "--image", elf_}).exit_code, 2);
  r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--all", "--model", "ev6"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_dcpi({"calc", "--db", db(), "--image", "/bin/other", "--all"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no cycles samples for image"), std::string::npos) << r.err;
  r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("copy_fig2"), std::string::npos);
}

// A guest path that is also a host file of other bytes (the real mix's
// /bin/dash on a Debian host): --image names the database image, whose ELF
// is found as for any guest path; before, the host file was taken as the
// image and nothing matched ("no cycles samples for image '/bin/dash'").
TEST_F(CalcCli, GuestPathThatIsAnotherHostFileNamesTheDatabaseImage) {
  const std::string other_elf = testing::fixture_path("fake_kernel.elf");
  if (other_elf.empty()) GTEST_SKIP() << "alpha-linux-gnu binutils not installed";
  std::filesystem::create_directories(dir_.file("host/bin"));
  std::filesystem::create_directories(dir_.file("images"));
  std::filesystem::copy_file(elf_, dir_.file("images/copy_fig2.elf"));
  const std::string guest = dir_.file("host/bin/copy_fig2");
  testing::write_copy_fig2_epoch(dir_.file("guest-db"), 1, std::string(kMachineQemu), guest);
  for (const bool is_elf : {true, false}) {
    std::filesystem::remove(guest);
    if (is_elf)
      std::filesystem::copy_file(other_elf, guest);
    else
      std::ofstream(guest) << "not an ELF\n";
    const auto r = run_dcpi({"calc", "--db", dir_.file("guest-db"), "--image", guest, "--images",
                             dir_.file("images"), "--procedure", "copy_fig2"});
    ASSERT_EQ(r.exit_code, 0) << (is_elf ? "another ELF: " : "not an ELF: ") << r.err;
    EXPECT_NE(r.out.find("copy_fig2"), std::string::npos) << r.out;
  }
  // A host ELF that no sampled image is, under no sampled image's name, is
  // still refused naming the images.
  const auto r = run_dcpi({"calc", "--db", dir_.file("guest-db"), "--image", other_elf, "--all"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no cycles samples for image"), std::string::npos) << r.err;
}

// A database written before the period was recorded: the driver's default,
// and the header says it is an assumption.
TEST_F(CalcCli, UnrecordedPeriodFallsBackToTheDefaultAndSaysSo) {
  const auto r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mean sampling period 63487.5 cycles (driver default [61440, 65536), not "
                       "recorded)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("note:   the database does not record the sampling period"),
            std::string::npos)
      << r.out;
  const auto j =
      run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.out.find("\"period\": 63487.5,\n  \"period_source\": \"default\""), std::string::npos)
      << j.out;
}

TEST_F(CalcCli, RecordedPeriodIsUsedAndPeriodOptionOverridesIt) {
  {
    ProfileDatabaseWriter writer(db());
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 1, .period = {8192, 1024, false}});
  }
  auto r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mean sampling period 8703.5 cycles (recorded [8192, 9216))"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("note:"), std::string::npos) << r.out;
  // F x period: the loop's executions at the recorded period.
  const double executions = total_ / 13 * 8703.5;
  EXPECT_NE(r.out.find("= " + std::to_string(static_cast<long>(executions + 0.5)) + " executions"),
            std::string::npos)
      << r.out;
  r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--json"});
  EXPECT_NE(r.out.find("\"period\": 8703.5,\n  \"period_source\": \"recorded\",\n  "
                       "\"period_notes\": []"),
            std::string::npos)
      << r.out;
  r = run_dcpi(
      {"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--period", "9000"});
  EXPECT_NE(r.out.find("mean sampling period 9000.0 cycles (--period)"), std::string::npos)
      << r.out;
  // A period change inside the epoch is reported, not hidden.
  {
    ProfileDatabaseWriter writer(db());
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 1, .period = {61440, 4096, false}});
  }
  r = run_dcpi({"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--json"});
  EXPECT_NE(r.out.find("\"period_source\": \"mixed\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the period changed during epoch(s) 1 (periods in [8192, 65536))"),
            std::string::npos)
      << r.out;
}

TEST(CalcPeriod, ChoiceFromTheEpochsPeriods) {
  const SamplingPeriod fast{8192, 1024, false}, slow{61440, 4096, false};
  // --period wins.
  EXPECT_EQ(choose_mean_period({{1, fast, 10}}, 5000.0).mean, 5000.0);
  EXPECT_EQ(choose_mean_period({{1, fast, 10}}, 5000.0).source, "option");
  // One period everywhere the image has samples (epoch 2 has none of them).
  PeriodChoice c = choose_mean_period({{1, fast, 10}, {2, slow, 0}, {3, fast, 5}}, std::nullopt);
  EXPECT_EQ(c.mean, 8703.5);
  EXPECT_EQ(c.source, "recorded");
  EXPECT_TRUE(c.notes.empty());
  // Different periods: weighted by the image's samples, and said so.
  c = choose_mean_period({{1, fast, 30}, {2, slow, 10}}, std::nullopt);
  EXPECT_DOUBLE_EQ(c.mean, (30 * 8703.5 + 10 * 63487.5) / 40);
  EXPECT_EQ(c.source, "mixed");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("epoch 1 [8192, 9216); epoch 2 [61440, 65536)"), std::string::npos)
      << c.notes[0];
  // An epoch without a record counts at the default, and is named.
  c = choose_mean_period({{1, fast, 10}, {2, SamplingPeriod{}, 10}}, std::nullopt);
  EXPECT_DOUBLE_EQ(c.mean, (8703.5 + default_mean_period()) / 2);
  EXPECT_EQ(c.source, "mixed");
  EXPECT_EQ(c.notes.size(), 2u);
  // Nothing recorded: the default.
  c = choose_mean_period({{1, SamplingPeriod{}, 10}}, std::nullopt);
  EXPECT_EQ(c.mean, default_mean_period());
  EXPECT_EQ(c.source, "default");
  EXPECT_EQ(c.notes.size(), 1u);
}

// Several CPUs under -icount's one clock (profiledb/own_cycles.h): F x
// period uses the sampling period times the own share of the image's
// samples, epochs weighted by them; an epoch without it counts whole.
TEST(CalcPeriod, TheOwnShareOfTheCpusScalesThePeriod) {
  const SamplingPeriod fast{8192, 1024, false};
  const OwnCycleShare quarter{.share = 0.25};
  PeriodChoice c = choose_mean_period({{1, fast, 10, quarter}}, std::nullopt);
  EXPECT_DOUBLE_EQ(c.sampling_mean, 8703.5);
  EXPECT_DOUBLE_EQ(c.mean, 8703.5 / 4);
  EXPECT_EQ(c.own_share, 0.25);
  EXPECT_TRUE(c.notes.empty());
  c = choose_mean_period({{1, fast, 30, quarter}, {2, fast, 10, std::nullopt}}, std::nullopt);
  EXPECT_DOUBLE_EQ(*c.own_share, (30 * 0.25 + 10 * 1.0) / 40);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("epoch(s) 2 do not record"), std::string::npos) << c.notes[0];
  c = choose_mean_period({{1, fast, 10, std::nullopt}}, 5000.0);  // none recorded
  EXPECT_EQ(c.mean, 5000.0);
  EXPECT_FALSE(c.own_share.has_value());
}

// The shares themselves: the CPUs' from epoch.meta, a thread's own from
// the process table, the idle loops' (id 0) none, an image's by samples.
TEST(CalcPeriod, ThreadsOwnSharesComeFromTheTableOrTheEpoch) {
  EpochMetadata meta;
  EXPECT_FALSE(own_cycle_share(meta).has_value());
  meta.cpu_stats[0] = {{"thread_cycles", 1000}, {"own_cycles", 500}};
  meta.cpu_stats[1] = {{"thread_cycles", 1000}, {"own_cycles", 300}};
  ASSERT_TRUE(own_cycle_share(meta).has_value());
  EXPECT_DOUBLE_EQ(own_cycle_share(meta)->share, 0.4);
  EXPECT_DOUBLE_EQ(own_cycle_share(meta)->running_cpus(), 2.5);
  ProcessTable table;
  table.threads[7] = {7, 7, 0, 10, 0, "t", ThreadCpuTime{4000, 1000}};
  table.threads[8] = {8, 7, 0, std::nullopt, std::nullopt, "t", std::nullopt};
  const ThreadOwnShares shares({.epoch = own_cycle_share(meta)}, &table);
  EXPECT_EQ(shares.of_thread(7), 0.25);
  EXPECT_EQ(shares.of_thread(8), 0.4);  // still running at the end: the epoch's
  EXPECT_EQ(shares.of_thread(0), std::nullopt);
  OwnShareSum sum;
  sum.add(30, shares.of_thread(7));
  sum.add(10, shares.of_thread(0));
  ASSERT_TRUE(sum.result().has_value());
  EXPECT_DOUBLE_EQ(sum.result()->share, (30 * 0.25 + 10) / 40);
  EXPECT_FALSE(OwnShareSum{}.result().has_value());
  // Late samples (2.5 CPUs ran threads): r = 0.95 of the threads' cycles ÷
  // period; a thread's samples are late by its waiting over the epoch's.
  const double late = measured_lateness(*own_cycle_share(meta), 950, 2, 2000);
  EXPECT_DOUBLE_EQ(late, 1 / 0.95 - 1);
  const ThreadOwnShares with_late({.epoch = own_cycle_share(meta), .lateness = late}, &table);
  EXPECT_DOUBLE_EQ(*with_late.of_thread(7), 0.25 * (1 + late * 0.75 / 0.6));
  EXPECT_DOUBLE_EQ(*with_late.of_thread(8), 0.4 * (1 + late));  // the epoch's own: 1/r
  // Not measured: fewer than 1.5 CPUs ran threads, more samples than cycles
  // (runs accumulated in one epoch), or implausibly few.
  EXPECT_EQ(measured_lateness({.share = 0.8}, 950, 2, 2000), 0);
  EXPECT_EQ(measured_lateness(*own_cycle_share(meta), 2000, 2, 2000), 0);
  EXPECT_EQ(measured_lateness(*own_cycle_share(meta), 500, 2, 2000), 0);
}

// Each thread's samples weighed by its share over the image's mean, so that
// samples x (mean period x mean share) are each instruction's own cycles: a
// serial phase (share 1) and a parallel one (1/4) in one image.
TEST(CalcPeriod, EachThreadsSamplesAreWeighedByItsShare) {
  OwnWeighedSamples weighed;
  weighed.add(1, 0x100, 10, 1.0);           // the serial phase: 10 samples, own 10 periods
  weighed.add(1, 0x200, 40, 0.25);          // the workers: 40 samples, own 10 periods
  weighed.add(2, 0x200, 10, std::nullopt);  // an epoch without shares: whole periods
  calc::SamplesByAddress cycles;
  const auto shares = weighed.add_to(cycles);
  const double mean = (10 * 1.0 + 40 * 0.25 + 10 * 1.0) / 60;
  EXPECT_DOUBLE_EQ(cycles.at(0x100), 10 / mean);
  EXPECT_DOUBLE_EQ(cycles.at(0x200), (40 * 0.25 + 10) / mean);
  EXPECT_DOUBLE_EQ(cycles.at(0x100) + cycles.at(0x200), 60);  // the total unchanged
  ASSERT_TRUE(shares.at(1).has_value());
  EXPECT_DOUBLE_EQ(shares.at(1)->share, 20.0 / 50);
  EXPECT_FALSE(shares.at(2).has_value());
  // One CPU: every share 1, every weight exactly 1.
  OwnWeighedSamples alone;
  alone.add(1, 0x100, 7, 1.0);
  calc::SamplesByAddress one;
  alone.add_to(one);
  EXPECT_EQ(one.at(0x100), 7.0);
}

}  // namespace
}  // namespace dcpi

namespace dcpi {
namespace {

// dcpi score over an image where one procedure's table is unread (`unbounded`
// in fixtures/jump_tables_asm.S) and one's is read (`got_table`): issue 16
// point 7's per-procedure table flags the one with missing edges, and the
// transfers the exact counts saw over edges the CFG lacks are scored (issue 17).
TEST(ScoreCli, PerProcedureTableFlagsMissingEdges) {
  const std::string elf = testing::fixture_path("jump_tables_asm.elf");
  if (elf.empty()) GTEST_SKIP() << "alpha-linux-gnu binutils not installed";
  testing::TempDir dir;
  const CodeImage image = CodeImage::open(elf);
  const ImageIdentity identity{.path = "/bin/jump_tables_asm.elf", .image_size = 4096};
  std::vector<ProfileRow> rows;
  std::ofstream counts(dir.file("counts.txt"));
  counts << "dcpi-exec-counts 1\n";
  uint64_t jump = 0, case_0 = 0;
  for (const char* name : {"unbounded", "got_table"}) {
    const ProcedureRange* p = image.find(name);
    ASSERT_NE(p, nullptr) << name;
    const ProcedureCode code = image.code(*p);
    for (const calc::InstructionRecord& r : code.records) {
      rows.push_back({.pid = 7, .cpu = 0, .address = r.address, .count = 50});
      counts << "insn " << std::hex << r.address << std::dec << " 3174375\n";
      if (std::string(name) == "unbounded" && r.control_flow == calc::ControlFlow::kIndirectJump)
        jump = r.address, case_0 = r.address + 4;
    }
  }
  ASSERT_NE(jump, 0u);
  std::sort(rows.begin(), rows.end(),
            [](const ProfileRow& a, const ProfileRow& b) { return a.address < b.address; });
  counts << "edge " << std::hex << jump << ' ' << case_0 << std::dec << " 3174375\n";
  counts.close();
  {
    ProfileDatabaseWriter writer(dir.file("db"));
    writer.merge_profile(1, identity, 0, rows);
    EpochMetadata meta{.epoch = 1, .samples = 50 * rows.size()};
    meta.cpu_stats[0] = {{"interrupts", meta.samples}};
    writer.merge_epoch_metadata(meta);
  }
  const auto r = run_dcpi(
      {"score", "--db", dir.file("db"), "--counts", dir.file("counts.txt"), "--image", elf});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 procedures (1 with missing edges)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Per procedure"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unbounded  MISSING EDGES (3174375 executions over edges the CFG lacks)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("got_table  MISSING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Estimators (within 5/10/15 %):\n  dcpi "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  flow "), std::string::npos) << r.out;

  const auto j = run_dcpi({"score", "--db", dir.file("db"), "--counts", dir.file("counts.txt"),
                           "--image", elf, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_NE(j.out.find("\"procedures_missing_edges\": 1"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"per_procedure\""), std::string::npos);
  EXPECT_NE(j.out.find("\"missing_edge_executions\": 3.17438e+06"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"flow\": {"), std::string::npos) << j.out;
}

}  // namespace
// Issue 30: a truth names the images of its run; another program's is refused.
TEST_F(CalcCli, AnotherProgramsTruthIsRefused) {
  const std::string truth = dir_.file("other.truth");
  std::ofstream(truth) << "dcpi-exec-counts 3\nimage 0badc0de /bin/other\ninsn 9810 5\n";
  auto r = run_dcpi(
      {"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--truth", truth});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is the truth of a run of /bin/other (0badc0de), not of /bin/copy_fig2"),
            std::string::npos)
      << r.err;
  r = run_dcpi(
      {"score", "--db", db(), "--truth", truth, "--image", elf_, "--procedure", "copy_fig2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("another program's truth"), std::string::npos) << r.err;
  std::ofstream(truth) << "dcpi-exec-counts 3\nimage 00f1900002000000 /bin/copy_fig2\n"
                          "insn 9810 5\n";
  r = run_dcpi(
      {"calc", "--db", db(), "--image", elf_, "--procedure", "copy_fig2", "--truth", truth});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace dcpi
