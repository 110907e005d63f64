// The report commands end to end through the dcpi binary: text and JSON
// output on the hand-checked database (report_fixture.h), the pprof export
// decoded by protoc, and clear errors for bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "analysis/reports/pprof_export.h"
#include "profiledb/profile_db_writer.h"
#include "report_fixture.h"
#include "test_support.h"

namespace dcpi {
namespace {

using testing::contains;
using testing::run_dcpi;
using testing::TempDir;

class ReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    images_ = testing::make_image_directory(dir_.file("images"));
    if (images_.empty()) GTEST_SKIP() << "no Alpha cross toolchain for the ELF fixtures";
    db_ = dir_.file("prof.db");
    testing::write_report_database(db_);
  }
  testing::CommandResult run(std::vector<std::string> arguments) {
    const testing::CommandResult result = run_dcpi(arguments);
    if (std::getenv("DCPI_SHOW_REPORTS")) std::cout << result.out << result.err;
    return result;
  }

  TempDir dir_;
  std::string images_;
  std::string db_;
};

TEST_F(ReportCliTest, ProfTextHasHeaderColumnsAndCumulativePercent) {
  const auto result = run({"prof", "--db", db_, "--images", images_, "--epoch", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "Total samples for event type cycles = 100\n")) << result.out;
  EXPECT_TRUE(std::regex_search(result.out, std::regex(R"(cycles +% +cum% +procedure +image)")))
      << result.out;
  EXPECT_TRUE(std::regex_search(
      result.out, std::regex(R"(\n +40 +40\.0% +40\.0% +accumulate +/bin/dwarf_workload\n)")))
      << result.out;
  EXPECT_TRUE(
      std::regex_search(result.out, std::regex(R"(\n +33 +33\.0% +73\.0% +idle_loop +/kernel\n)")))
      << result.out;
  EXPECT_TRUE(std::regex_search(result.out,
                                std::regex(R"(\n +2 +2\.0% +100\.0% +unsized_tail +/kernel\n)")))
      << result.out;
}

TEST_F(ReportCliTest, ProfJsonRowsForScripts) {
  const auto result =
      run({"prof", "--db", db_, "--images", images_, "--json", "--limit", "2", "--pid", "7"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, R"("totals":{"cycles":50})")) << result.out;
  EXPECT_TRUE(contains(result.out, R"("row_count":3)")) << result.out;
  EXPECT_TRUE(contains(
      result.out,
      R"({"image":"dwarf_workload","image_path":"/bin/dwarf_workload",)"
      R"("build_id":"feedc0de12345678","procedure":"accumulate","start":"0x120000000","samples":40,)"
      R"("percent":80.0000,"cumulative_percent":80.0000)"))
      << result.out;
  EXPECT_TRUE(contains(result.out, R"("procedure":"copy_words")")) << result.out;
  EXPECT_FALSE(contains(result.out, R"("procedure":"[unknown]")")) << "--limit 2";
}

TEST_F(ReportCliTest, ProfByImage) {
  const auto result = run({"prof", "--db", db_, "--by", "image", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, R"("image":"kernel","image_path":"/kernel",)"
                                   R"("build_id":"0123456789abcdef","samples":100,)"
                                   R"("percent":50.0000)"))
      << result.out;
  EXPECT_TRUE(contains(
      result.out, R"("image":"[unknown]","image_path":"[unknown]","build_id":"","samples":2,)"))
      << result.out;
}

TEST_F(ReportCliTest, ListInterleavesSourceLines) {
  const auto result = run({"list", "--db", db_, "--images", images_, "--procedure", "accumulate"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out,
                       "Procedure accumulate in /bin/dwarf_workload [0x120000000, "
                       "0x120000028)"))
      << result.out;
  EXPECT_TRUE(contains(result.out, "Total samples in procedure: cycles = 90")) << result.out;
  EXPECT_TRUE(contains(result.out, "dwarf_workload.c:8:      sum += values[i]; /* LINE 8"))
      << result.out;
  EXPECT_TRUE(
      std::regex_search(result.out, std::regex(R"(0x120000010 +75 +83\.3% +ldq +t1,0\(t0\)\n)")))
      << result.out;
}

TEST_F(ReportCliTest, ListJson) {
  const auto result =
      run({"list", "--db", db_, "--images", images_, "--procedure", "copy_words", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out,
                       R"({"address":"0x120000034","word":2755723264,)"
                       R"json("text":"ldq     t1,0(t0)","samples":8,"percent":100.0000)json"))
      << result.out;
  EXPECT_TRUE(contains(result.out, R"("samples":8,"percent":100.0000)")) << result.out;
  EXPECT_TRUE(contains(result.out, R"("line":13})")) << result.out;
}

TEST_F(ReportCliTest, ListWithoutSymbolsExplainsWhy) {
  const auto result = run({"list", "--db", db_, "--procedure", "accumulate"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err,
                       "no procedure matches 'accumulate' in any image (none has "
                       "symbols: give --images)"))
      << result.err;
  EXPECT_TRUE(contains(result.err, "no --images directories given")) << result.err;
}

TEST_F(ReportCliTest, StatsAcrossEpochs) {
  const auto result = run({"stats", "--db", db_, "--epochs", "each", "--images", images_});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // The fixture's metadata records no period (a database from before it was).
  EXPECT_TRUE(contains(result.out,
                       "set 1 (epoch 1) = 100  period unknown  machine qemu\nset 2 (epoch 2) = "
                       "100  period unknown  machine qemu\nTOTAL: 200"))
      << result.out;
  EXPECT_TRUE(std::regex_search(
      result.out,
      std::regex(R"(\n +20\.5% +83 +41\.5% +2 +42 +12\.02 +33 +50 +idle_loop +/kernel\n)")))
      << result.out;
}

TEST_F(ReportCliTest, StatsShowsEachEpochsPeriod) {
  {
    ProfileDatabaseWriter writer(db_);
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 1, .period = {8192, 1024, false}});
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 2, .period = {61440, 4096, false}});
  }
  auto result = run({"stats", "--db", db_, "--epochs", "each", "--images", images_});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out, "set 1 (epoch 1) = 100  period [8192, 9216)  machine qemu\n"))
      << result.out;
  EXPECT_TRUE(contains(result.out, "set 2 (epoch 2) = 100  period [61440, 65536)  machine qemu\n"))
      << result.out;
  // Counts at different periods are not comparable count for count: said so.
  EXPECT_TRUE(contains(result.err, "not all sampled with one period")) << result.err;
  result = run({"stats", "--db", db_, "--epochs", "1,2", "--json", "--limit", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.out,
                       R"("periods":[{"epoch":1,"base":8192,"range":1024,"mean":8703.5,)"
                       R"("changed":false,"machine":"qemu"}])"))
      << result.out;
  // One database over both epochs: the period of each.
  const std::string second = dir_.file("second.db");
  testing::write_report_database(second);
  result = run({"stats", "--db", db_, "--db", second, "--images", images_});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(
      contains(result.out, "period epoch 1 [8192, 9216); epoch 2 [61440, 65536)  machine qemu\n"))
      << result.out;
  EXPECT_TRUE(contains(result.out, "period unknown  machine qemu\n")) << result.out;
}

TEST_F(ReportCliTest, StatsAcrossDatabases) {
  const std::string second = dir_.file("second.db");
  testing::write_report_database(second);
  const auto result = run({"stats", "--db", db_, "--db", second, "--json", "--epoch", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Two identical runs: every range is 0.
  EXPECT_TRUE(contains(result.out, R"("range_percent":0.0000,"sum":100)")) << result.out;
  EXPECT_FALSE(contains(result.out, R"("range_percent":1)")) << result.out;
}

TEST_F(ReportCliTest, DiffOfTwoEpochs) {
  const auto result = run({"diff", "--db", db_, "--epochs", "1,2", "--images", images_});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::regex_search(
      result.out,
      std::regex(R"(\n +33 +33\.00% +50 +50\.00% +\+17 +x1\.52 +\+17\.00 +idle_loop +/kernel\n)")))
      << result.out;
  EXPECT_LT(result.out.find("idle_loop"), result.out.find("kernel_entry"));
  EXPECT_LT(result.out.find("kernel_entry"), result.out.find("accumulate"));
}

TEST_F(ReportCliTest, ExportPprofDecodesWithProtocAndTotalsMatch) {
  const std::string output = dir_.file("profile.pb.gz");
  const auto result =
      run({"export", "--format", "pprof", "--db", db_, "--images", images_, "-o", output});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(contains(result.err, "(200 samples)")) << result.err;
  const std::string raw = read_gzip_file(output);
  ASSERT_FALSE(raw.empty());
  if (std::string(DCPI_PROTOC).empty()) GTEST_SKIP() << "protoc not installed";
  testing::write_file(dir_.file("profile.pb"), {raw.begin(), raw.end()});
  const std::string decoded = dir_.file("decoded.txt");
  const std::string command = std::string(DCPI_PROTOC) +
                              " --decode perftools.profiles.Profile -I " +
                              std::filesystem::path(DCPI_PROFILE_PROTO).parent_path().string() +
                              " profile.proto < " + dir_.file("profile.pb") + " > " + decoded;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(decoded);
  std::string text{std::istreambuf_iterator<char>(in), {}};
  if (std::getenv("DCPI_SHOW_REPORTS")) std::cout << text;
  // Sum every sample value: one value per sample (one event), = the database total.
  const std::regex value(R"(\n  value: (\d+)\n)");
  uint64_t total = 0, samples = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), value);
       it != std::sregex_iterator(); ++it, ++samples)
    total += std::stoull((*it)[1]);
  EXPECT_EQ(total, 200u);
  EXPECT_EQ(samples, 11u);  // stored rows: 5 + 3 + 1 in epoch 1, 1 + 1 in epoch 2
  EXPECT_TRUE(contains(text, "string_table: \"accumulate\"")) << text.substr(0, 2000);
  EXPECT_TRUE(contains(text, "string_table: \"epoch\"")) << text.substr(0, 2000);
  EXPECT_TRUE(contains(text, "string_table: \"feedc0de12345678\""));
  EXPECT_TRUE(contains(text, "has_line_numbers: true"));
  // The fixture records no period: none is written.
  EXPECT_FALSE(contains(text, "\nperiod:")) << text.substr(text.size() - 500);
}

TEST_F(ReportCliTest, ExportPprofWritesTheRecordedPeriodOnlyWhenItIsOne) {
  if (std::string(DCPI_PROTOC).empty()) GTEST_SKIP() << "protoc not installed";
  auto decoded_period = [&](const std::vector<std::string>& extra) {
    const std::string output = dir_.file("p.pb.gz");
    std::vector<std::string> args{"export",   "--format", "pprof", "--db", db_,
                                  "--images", images_,    "-o",    output};
    args.insert(args.end(), extra.begin(), extra.end());
    EXPECT_EQ(run(args).exit_code, 0);
    const std::string raw = read_gzip_file(output);
    testing::write_file(dir_.file("p.pb"), {raw.begin(), raw.end()});
    const std::string command =
        std::string(DCPI_PROTOC) + " --decode perftools.profiles.Profile -I " +
        std::filesystem::path(DCPI_PROFILE_PROTO).parent_path().string() + " profile.proto < " +
        dir_.file("p.pb") + " > " + dir_.file("p.txt");
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(dir_.file("p.txt"));
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    const size_t at = text.find("\nperiod: ");
    return at == std::string::npos ? std::string()
                                   : text.substr(at + 9, text.find('\n', at + 1) - at - 9);
  };
  {
    ProfileDatabaseWriter writer(db_);
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 1, .period = {8192, 1024, false}});
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 2, .period = {61440, 4096, false}});
  }
  EXPECT_EQ(decoded_period({}), "");                    // two periods: pprof cannot say
  EXPECT_EQ(decoded_period({"--epoch", "1"}), "8704");  // mean 8703.5, rounded
}

TEST_F(ReportCliTest, ExportJson) {
  const auto result = run({"export", "--format", "json", "--db", db_, "--images", images_,
                           "--epoch", "2", "--image", "kernel"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(
      result.out,
      R"({"samples":[{"epoch":2,"event":"cycles","image":"kernel","image_path":"/kernel",)"
      R"("build_id":"0123456789abcdef","pid":0,"tid":0,"cpu":0,"address":"0xfffffc0000310014",)"
      R"("count":50,"estimated":null,"procedure":"idle_loop"}]})"
      "\n");
}

TEST(ReportCliErrors, EmptyDatabase) {
  TempDir dir;
  { ProfileDatabaseWriter writer(dir.file("empty.db")); }
  const auto prof = run_dcpi({"prof", "--db", dir.file("empty.db")});
  EXPECT_EQ(prof.exit_code, 0) << prof.err;
  EXPECT_TRUE(contains(prof.out, "No samples")) << prof.out;
  const auto json = run_dcpi({"prof", "--db", dir.file("empty.db"), "--json"});
  EXPECT_TRUE(contains(json.out, R"("rows":[])")) << json.out;
  const auto list = run_dcpi({"list", "--db", dir.file("empty.db"), "--procedure", "main"});
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_TRUE(contains(list.err, "no samples match")) << list.err;
  const std::string output = dir.file("empty.pb.gz");
  const auto pprof =
      run_dcpi({"export", "--format", "pprof", "--db", dir.file("empty.db"), "-o", output});
  EXPECT_EQ(pprof.exit_code, 0) << pprof.err;
  EXPECT_TRUE(std::filesystem::exists(output));
}

TEST(ReportCliErrors, MissingDatabaseAndBadOptions) {
  TempDir dir;
  const auto missing = run_dcpi({"prof", "--db", dir.file("nope")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(contains(missing.err, "does not exist")) << missing.err;
  const auto by = run_dcpi({"prof", "--db", dir.file("nope"), "--by", "file"});
  EXPECT_EQ(by.exit_code, 2);
  EXPECT_TRUE(contains(by.err, "--by takes image, procedure, pid or cpu")) << by.err;
  const auto pid = run_dcpi({"prof", "--db", "x", "--pid", "seven"});
  EXPECT_EQ(pid.exit_code, 2);
  const auto stats = run_dcpi({"stats", "--db", "x"});
  EXPECT_EQ(stats.exit_code, 2);
  EXPECT_TRUE(contains(stats.err, "compare several --db")) << stats.err;
  const auto diff = run_dcpi({"diff", "--db", "x", "--epochs", "1,2,3"});
  EXPECT_NE(diff.exit_code, 0);
  // svg is a format now (the flame graph, issue 28)
  const auto format = run_dcpi({"export", "--format", "gif", "--db", "x"});
  EXPECT_EQ(format.exit_code, 2);
}

TEST(ReportCliErrors, CorruptProfileFileIsNamed) {
  TempDir dir;
  const std::string db = dir.file("prof.db");
  testing::write_report_database(db);
  const std::string victim = ProfileDatabase::open(db).profiles(1).front().file.string();
  std::vector<uint8_t> bytes = testing::read_file(victim);
  bytes[bytes.size() / 2] ^= 0x5a;
  testing::write_file(victim, bytes);
  const auto result = run_dcpi({"prof", "--db", db});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.err, victim)) << result.err;
}

}  // namespace
// Issue 16 point 2: with no --db every report reads ./dcpi.db, like perf's
// perf.data; a missing default says which database it looked for.
TEST_F(ReportCliTest, ReportsReadTheDefaultDatabaseWithoutDb) {
  const std::string work = dir_.file("work");
  std::filesystem::create_directories(work);
  std::filesystem::copy(db_, work + "/dcpi.db", std::filesystem::copy_options::recursive);
  const auto explicit_db = run({"prof", "--db", db_, "--images", images_, "--epoch", "1"});
  const auto by_default = testing::run_dcpi_in(work, {"prof", "--images", images_, "--epoch", "1"});
  ASSERT_EQ(explicit_db.exit_code, 0) << explicit_db.err;
  EXPECT_EQ(by_default.exit_code, 0) << by_default.err;
  EXPECT_EQ(by_default.out, explicit_db.out);
  const auto show = testing::run_dcpi_in(work, {"db", "show"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "epoch 1:")) << show.out;
  const auto check = testing::run_dcpi_in(work, {"db", "check", "--repair"});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, "dcpi.db: OK")) << check.out;

  const std::string empty = dir_.file("empty");
  std::filesystem::create_directories(empty);
  for (const std::vector<std::string>& command : {std::vector<std::string>{"prof"},
                                                  {"list", "--procedure", "main"},
                                                  {"db", "show"},
                                                  {"stats", "--epochs", "each"}}) {
    const auto missing = testing::run_dcpi_in(empty, command);
    EXPECT_NE(missing.exit_code, 0) << command[0];
    EXPECT_TRUE(contains(missing.err, "dcpi.db")) << command[0] << ": " << missing.err;
  }
}

}  // namespace dcpi
