// Reports a perf user can drive (issue 30 items 11-15, 17, 18): prof --by
// line and list --sort samples, diff's counts, ratios and renamed binaries,
// calc without --image, procedures by address and C++ name, suggestions for
// mistyped commands and options, --sort as perf's --by, and prof's long names.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "analysis/reports/prof_output.h"
#include "analysis/reports/report_output.h"
#include "profiledb/profile_db_writer.h"
#include "report_fixture.h"
#include "symbols/procedure_match.h"
#include "test_support.h"

namespace dcpi {
namespace {

using testing::contains;
using testing::run_dcpi;
using testing::TempDir;

class PerfUserReports : public ::testing::Test {
 protected:
  void SetUp() override {
    images_ = testing::make_image_directory(dir_.file("images"));
    if (images_.empty()) GTEST_SKIP() << "no Alpha cross toolchain for the ELF fixtures";
    db_ = dir_.file("prof.db");
    testing::write_report_database(db_);
  }
  testing::CommandResult dcpi(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin() + 1, {"--db", db_, "--images", images_});
    return run_dcpi(arguments);
  }

  TempDir dir_;
  std::string images_;
  std::string db_;
};

// Item 11: the samples of accumulate's hot load (+0x10, +0x14: line 8) and
// copy_words' (+0x34: line 13) in epoch 1, one row per source line.
TEST_F(PerfUserReports, ProfByLineGroupsSamplesBySourceLine) {
  const auto result = dcpi({"prof", "--by", "line", "--epoch", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::regex_search(result.out, std::regex(R"(cycles +% +cum% +line +image\n)")))
      << result.out;
  EXPECT_TRUE(std::regex_search(
      result.out,
      std::regex(R"(\n +40 +40\.0% +90\.0% +dwarf_workload\.c:8 +/bin/dwarf_workload\n)")))
      << result.out;
  EXPECT_TRUE(std::regex_search(
      result.out,
      std::regex(R"(\n +8 +8\.0% +\d+\.\d% +dwarf_workload\.c:13 +/bin/dwarf_workload\n)")))
      << result.out;
  // The kernel fixture has no DWARF: its samples are one row that says so.
  EXPECT_TRUE(std::regex_search(result.out, std::regex(R"(\[no source line\] +/kernel\n)")))
      << result.out;
  const auto json = dcpi({"prof", "--by", "line", "--epoch", "1", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(std::regex_search(
      json.out,
      std::regex(R"("source":\{"file":"[^"]*dwarf_workload\.c","line":8\},"samples":40,)")))
      << json.out;
}

TEST_F(PerfUserReports, SortIsPerfsNameForBy) {
  const auto by = dcpi({"prof", "--by", "line", "--epoch", "1"});
  const auto sort = dcpi({"prof", "--sort", "srcline", "--epoch", "1"});
  ASSERT_EQ(sort.exit_code, 0) << sort.err;
  EXPECT_EQ(by.out, sort.out);
  EXPECT_EQ(dcpi({"prof", "--sort", "dso"}).out, dcpi({"prof", "--by", "image"}).out);
  const auto typo = dcpi({"prof", "--by", "pid,lnie"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_TRUE(contains(typo.err, "not 'pid,lnie'; did you mean 'line'?")) << typo.err;
  const auto both = dcpi({"prof", "--sort", "dso", "--by", "image"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "not both")) << both.err;
}

TEST_F(PerfUserReports, ListSortSamplesPutsTheHottestInstructionFirst) {
  const auto result = dcpi({"list", "--procedure", "accumulate", "--sort", "samples"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // 0x120000010 (75 samples over both epochs) before 0x120000014 (15); no
  // unsampled instruction; each with its line.
  const std::regex hottest(
      R"(address +cycles +% +line +instruction\n0x120000010 +75 +83\.3% +dwarf_workload\.c:8 +ldq +t1,0\(t0\)\n0x120000014 +15 )");
  EXPECT_TRUE(std::regex_search(result.out, hottest)) << result.out;
  EXPECT_TRUE(std::regex_search(result.out,
                                std::regex(R"(\((\d+) instructions without samples not shown\))")))
      << result.out;
  const auto bad = dcpi({"list", "--procedure", "accumulate", "--sort", "hot"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// Item 14: an address names the procedure containing it.
TEST_F(PerfUserReports, ProcedureByAddress) {
  const auto result = dcpi({"list", "--procedure", "0x120000014"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "Procedure accumulate in /bin/dwarf_workload")) << result.out;
  const auto nowhere = dcpi({"list", "--procedure", "0x5"});
  EXPECT_EQ(nowhere.exit_code, 1);
  EXPECT_TRUE(contains(nowhere.err, "no procedure contains 0x5")) << nowhere.err;
}

// Item 14: among the closest names, those with samples come first.
TEST_F(PerfUserReports, SuggestionsPreferProceduresWithSamples) {
  const auto result = dcpi({"list", "--procedure", "kernel_idle"});
  EXPECT_EQ(result.exit_code, 1);
  const std::string err = result.err;
  EXPECT_TRUE(contains(err, "[sampled]")) << err;
  // idle_loop ran; kernel_entry ran too; neither is beaten by an unsampled name.
  const size_t first = err.find("\n  ");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_NE(err.find("[sampled]", first), std::string::npos);
  EXPECT_LT(err.find("[sampled]", first), err.find('\n', first + 1)) << err;
}

// Item 13: calc finds the image from the procedure, as list does.
TEST_F(PerfUserReports, CalcWithoutImageFindsItFromTheProcedure) {
  const auto result = dcpi({"calc", "--procedure", "accumulate"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "120000010")) << result.out;
  const auto unknown = dcpi({"calc", "--image", "/bin/nothing", "--procedure", "accumulate"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_TRUE(contains(unknown.err, "no cycles samples for image '/bin/nothing'")) << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "it has /bin/dwarf_workload, /kernel")) << unknown.err;
  const auto none = dcpi({"calc", "--all"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(contains(none.err, "give --image")) << none.err;
  const auto score = dcpi({"score", "--procedure", "accumulate", "--truth", "/nonexistent"});
  EXPECT_FALSE(contains(score.err, "--image")) << score.err;
}

// Item 12: counts, their change and ratio beside the share change.
TEST_F(PerfUserReports, DiffShowsDeltaAndRatio) {
  const auto result = dcpi({"diff", "--epochs", "1,2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::regex_search(
      result.out, std::regex(R"(before +% +after +% +delta +ratio +change +procedure +image\n)")))
      << result.out;
  // accumulate: 40 -> 50 samples (+10, x1.25); copy_words 8 -> 0.
  EXPECT_TRUE(std::regex_search(
      result.out,
      std::regex(R"(\n +40 +40\.00% +50 +50\.00% +\+10 +x1\.25 +\+10\.00 +accumulate )")))
      << result.out;
  EXPECT_TRUE(std::regex_search(result.out, std::regex(R"(\n +8 +8\.00% +0 +0\.00% +-8 +x0\.00 )")))
      << result.out;
  const auto json = dcpi({"diff", "--epochs", "1,2", "--json"});
  EXPECT_TRUE(contains(json.out, R"("delta":10,"ratio":1.2500)")) << json.out;
}

// Item 12: a binary renamed between the runs is paired by its procedures.
TEST_F(PerfUserReports, DiffMatchesARenamedBinaryByProcedureName) {
  const std::string after = dir_.file("after.db");
  {
    ProfileDatabaseWriter writer(after);
    ImageIdentity renamed = testing::workload_identity();
    renamed.path = "/bin/dwarf_workload2";
    writer.merge_profile(1, renamed, 0, {{9, 0, testing::kAccumulate + 0x10, 60}});
    EpochMetadata metadata;
    metadata.epoch = 1;
    metadata.samples = 60;
    writer.merge_epoch_metadata(metadata);
  }
  std::filesystem::copy_file(images_ + "/bin/dwarf_workload", images_ + "/bin/dwarf_workload2");
  const std::vector<std::string> common = {"diff",     "--db",  db_,       "--db", after,
                                           "--images", images_, "--epoch", "1"};
  auto by_image = common;
  const auto plain = run_dcpi(by_image);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(
      std::regex_search(plain.out, std::regex(R"(\n +0 +0\.00% +60 +100\.00% +\+60 +new )")))
      << plain.out;
  auto by_name = common;
  by_name.insert(by_name.end(), {"--match", "name"});
  const auto matched = run_dcpi(by_name);
  ASSERT_EQ(matched.exit_code, 0) << matched.err;
  EXPECT_TRUE(contains(matched.out,
                       "Matched by procedure name: /bin/dwarf_workload -> /bin/dwarf_workload2"))
      << matched.out;
  EXPECT_TRUE(std::regex_search(
      matched.out,
      std::regex(
          R"(\n +40 +40\.00% +60 +100\.00% +\+20 +x1\.50 +\+60\.00 +accumulate +/bin/dwarf_workload -> /bin/dwarf_workload2\n)")))
      << matched.out;
  auto bad = common;
  bad.insert(bad.end(), {"--match", "both"});
  EXPECT_EQ(run_dcpi(bad).exit_code, 2);
}

// Item 17: the run recorded where its images are; --images only overrides.
TEST(PerfUserCli, ListHelpNoLongerSaysImagesAreRequired) {
  const auto help = run_dcpi({"help", "list"});
  EXPECT_FALSE(contains(help.out, "required")) << help.out;
  EXPECT_TRUE(contains(help.out, "--images     directories holding the ELF files; the run"))
      << help.out;
}

// Item 15: the closest command or option is named.
TEST(PerfUserCli, MistypedCommandsAndOptionsNameTheClosest) {
  const auto command = run_dcpi({"prfo"});
  EXPECT_EQ(command.exit_code, 2);
  EXPECT_TRUE(contains(command.err, "unknown command 'prfo'; did you mean 'prof'?")) << command.err;
  const auto help = run_dcpi({"help", "lsit"});
  EXPECT_TRUE(contains(help.err, "did you mean 'list'?")) << help.err;
  const auto option = run_dcpi({"prof", "--limt", "3"});
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_TRUE(contains(option.err, "unknown option '--limt'; did you mean '--limit'?"))
      << option.err;
  const auto far = run_dcpi({"prof", "--frobnicate"});
  EXPECT_FALSE(contains(far.err, "did you mean")) << far.err;
}

TEST(PerfUserCli, EventErrorsListWhatTheMachineCounts) {
  const auto unknown = run_dcpi({"run", "--events", "cylces"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "unknown event 'cylces'; did you mean 'cycles'?"))
      << unknown.err;
  EXPECT_TRUE(contains(unknown.err, "the qemu machine counts: cycles")) << unknown.err;
  // Misses need the 21164 model; issues is counter 0's, which samples cycles (issue 26).
  const auto on_qemu = run_dcpi({"run", "--events", "dmiss"});
  EXPECT_EQ(on_qemu.exit_code, 2);
  EXPECT_TRUE(contains(on_qemu.err, "cannot count 'dmiss'")) << on_qemu.err;
  EXPECT_TRUE(contains(on_qemu.err, "--machine ev5")) << on_qemu.err;
  const auto uncountable = run_dcpi({"run", "--events", "issues", "--machine", "ev5"});
  EXPECT_EQ(uncountable.exit_code, 2);
  EXPECT_TRUE(contains(uncountable.err,
                       "the ev5 machine counts: cycles, imiss, dmiss, branchmp, "
                       "itbmiss, dtbmiss, replay"))
      << uncountable.err;
}

// Item 14: C++ names as a reader writes them.
TEST(PerfUserProcedures, CxxNamesWithTemplatesAndNamespaces) {
  const std::vector<std::string> symbols = {
      // void std::sort<int*>(int*, int*)
      "_ZSt4sortIPiEvT_S1_",
      // void std::__introsort_loop<int*, long, __gnu_cxx::__ops::_Iter_less_iter>(int*, int*, long,
      // ...)
      "_ZSt16__introsort_loopIPilN9__gnu_cxx5__ops15_Iter_less_iterEEvT_S4_T0_T1_",
      // std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> >
      // >::operator[](int const&)
      "_ZNSt3mapIiiSt4lessIiESaISt4pairIKiiEEEixERS3_",
      "main",
  };
  auto matched = [&](std::string_view query) {
    std::vector<std::string> names;
    for (size_t i : match_procedures(symbols, query)) names.push_back(symbols[i]);
    return names;
  };
  EXPECT_EQ(matched("std::sort"), std::vector<std::string>{symbols[0]});
  EXPECT_EQ(matched("std::__introsort_loop"), std::vector<std::string>{symbols[1]});
  EXPECT_EQ(matched("std::map*"), std::vector<std::string>{symbols[2]});
  EXPECT_EQ(matched("std::map::operator[]"), std::vector<std::string>{symbols[2]});
  EXPECT_EQ(plain_cxx_name("void std::sort<int*>(int*, int*)"), "std::sort");
  EXPECT_EQ(plain_cxx_name("std::vector<int>::operator[](unsigned long)"),
            "std::vector::operator[]");
  EXPECT_EQ(plain_cxx_name("(anonymous namespace)::f(int)"), "(anonymous namespace)::f");
  EXPECT_EQ(procedure_address("0x120003e80"), std::optional<uint64_t>{0x120003e80});
  EXPECT_EQ(procedure_address("0xg"), std::nullopt);
  EXPECT_EQ(procedure_address("main"), std::nullopt);
}

TEST(PerfUserProcedures, ClosestRanksSampledProceduresFirst) {
  const std::vector<std::string> symbols = {"copy_lop", "copy_loop_fast", "main"};
  const SampledProcedures sampled = {"copy_loop_fast"};
  // copy_lop is one edit away but never ran: the procedure that ran comes first.
  EXPECT_EQ(symbols[closest_procedures(symbols, "copy_loop", 1, &sampled)[0]], "copy_loop_fast");
  EXPECT_EQ(symbols[closest_procedures(symbols, "copy_loop", 1)[0]], "copy_lop");
  EXPECT_EQ(name_distance("prfo", "prof"), 1u);
}

// Item 18: long C++ names are cut in the middle so the image column stays
// on screen; --wide shows them whole; the columns fit the rows printed.
TEST(PerfUserProf, LongNamesAreAbbreviatedInTheMiddle) {
  ProfileReport report;
  report.keys = {GroupKey::kProcedure};
  report.events = {"cycles"};
  report.totals = {100};
  const std::string long_name =
      "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>("
      "__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)";
  report.rows.push_back(
      {.image = "a", .image_path = "/bin/a", .procedure = long_name, .samples = {90}});
  report.rows.push_back(
      {.image = "a", .image_path = "/bin/a", .procedure = "main", .samples = {10}});
  std::ostringstream text, wide, limited;
  print_prof_text(report, std::nullopt, text);
  EXPECT_EQ(text.str().find(long_name), std::string::npos) << text.str();
  EXPECT_NE(text.str().find(abbreviate_middle(long_name, kProcedureColumnWidth) + "  /bin/a\n"),
            std::string::npos)
      << text.str();
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 90u) << line;
  print_prof_text(report, std::nullopt, wide, {.wide = true});
  EXPECT_NE(wide.str().find(long_name + "  /bin/a\n"), std::string::npos) << wide.str();
  // --limit 1 of the short one only... the widths are the printed rows'.
  std::swap(report.rows[0], report.rows[1]);
  print_prof_text(report, 1, limited);
  EXPECT_TRUE(contains(limited.str(), "procedure  image\n")) << limited.str();
  EXPECT_TRUE(contains(limited.str(), "main       /bin/a\n")) << limited.str();
  EXPECT_EQ(abbreviate_middle("abcdefghij", 7), "ab...ij");
  EXPECT_EQ(abbreviate_middle("short", 7), "short");
}

}  // namespace
}  // namespace dcpi
