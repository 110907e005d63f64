// Reports a user can just use (issue 16 points 4, 5, 6): dcpi prof --by
// image|procedure|pid|cpu and combinations, PIDs with their programs, a
// build-id column when two images share a name, an unknown --image that lists
// the images, db show --json, procedure names as a reader types them, and the
// pprof export read back with protobuf (pprof's own label rules applied).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>

#include "analysis/reports/pprof_export.h"
#include "analysis/reports/proto/profile.pb.h"
#include "analysis/samples/profile_table.h"
#include "profiledb/profile_db_writer.h"
#include "report_fixture.h"
#include "test_support.h"

namespace dcpi {
namespace {

using testing::contains;
using testing::run_dcpi;
using testing::TempDir;

class ReportViews : public ::testing::Test {
 protected:
  void SetUp() override {
    images_ = testing::make_image_directory(dir_.file("images"));
    if (images_.empty()) GTEST_SKIP() << "no Alpha cross toolchain for the ELF fixtures";
    db_ = dir_.file("prof.db");
    testing::write_report_database(db_);
  }
  testing::CommandResult prof(std::vector<std::string> extra) {
    std::vector<std::string> args{"prof", "--db", db_, "--images", images_};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_dcpi(args);
  }

  TempDir dir_;
  std::string images_;
  std::string db_;
};

// The fixture (report_fixture.h): pid 0 has the kernel's 100 samples, pid 7
// ran /bin/dwarf_workload in epoch 1 (48 samples + 2 unknown), pid 8 in epoch 2 (50).
TEST_F(ReportViews, ByPidShowsEachProgram) {
  const auto r = prof({"--by", "pid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(cycles +% +cum% +pid\n)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +100 +50\.0% +50\.0% +0:\[kernel\]\n)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +50 +25\.0% +75\.0% +7:dwarf_workload\n)")))
      << r.out;
  EXPECT_TRUE(contains(r.out, "8:dwarf_workload")) << r.out;
}

TEST_F(ReportViews, ByPidAndImageLikePerfSort) {
  const auto r = prof({"--by", "pid,image", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, R"("by":"pid,image")")) << r.out;
  EXPECT_TRUE(contains(r.out, R"("pid":7,"programs":["/bin/dwarf_workload"],"samples":48)"))
      << r.out;
  EXPECT_TRUE(contains(r.out, R"("image":"[unknown]","image_path":"[unknown]","build_id":"",)"
                              R"("pid":7,"programs":["/bin/dwarf_workload"],"samples":2)"))
      << r.out;
  EXPECT_TRUE(contains(r.out, R"("row_count":4)")) << r.out;
  const auto text = prof({"--by", "image,pid"});
  EXPECT_TRUE(std::regex_search(text.out, std::regex(R"(cum% +image +pid\n)"))) << text.out;
}

TEST_F(ReportViews, ByCpuAndProcedureWithCpu) {
  auto r = prof({"--by", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +168 +84\.0% +84\.0% +0\n +32 +16\.0%)")))
      << r.out;
  r = prof({"--by", "procedure,cpu", "--epoch", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // idle_loop ran on CPU 1 (30) and its gap on CPU 0 (3): two rows.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n +30 +30\.0% .* idle_loop +/kernel +1\n)")))
      << r.out;
  EXPECT_EQ(prof({"--by", "thread"}).exit_code, 2);
  EXPECT_TRUE(
      contains(prof({"--by", "pid,thread"}).err, "--by takes image, procedure, pid or cpu"));
}

TEST_F(ReportViews, BuildIdColumnWhenTwoImagesShareAName) {
  EXPECT_FALSE(contains(prof({"--by", "image"}).out, "build-id"));
  {
    ProfileDatabaseWriter writer(db_);
    writer.merge_profile(3, testing::workload_identity("abad1dea00000000"), 0,
                         {{9, 0, testing::kAccumulate, 5}});
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 3, .samples = 5});
  }
  const auto r = prof({"--by", "image"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(cum% +image +build-id\n)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(/bin/dwarf_workload +feedc0de12345678\n)")));
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(/bin/dwarf_workload +abad1dea00000000\n)")));
}

TEST_F(ReportViews, AnUnknownImageListsTheImagesTheDatabaseHas) {
  for (const char* command : {"prof", "list", "export"}) {
    std::vector<std::string> args{command, "--db", db_, "--image", "nosuch"};
    if (std::string(command) == "list") args.insert(args.end(), {"--procedure", "accumulate"});
    if (std::string(command) == "export") args.insert(args.end(), {"--format", "json"});
    const auto r = run_dcpi(args);
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_TRUE(contains(r.err, "no image 'nosuch' in " + db_ +
                                    "; it has /bin/dwarf_workload, /kernel, [unknown]\n"))
        << command << ": " << r.err;
  }
  EXPECT_EQ(prof({"--image", "dwarf_workload"}).exit_code, 0);
}

TEST_F(ReportViews, DbShowJson) {
  const auto r = run_dcpi({"db", "show", "--json", db_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"("epoch": 1, "samples": 100, "unknown_samples": 2)")))
      << r.out;
  EXPECT_TRUE(contains(r.out, R"({"event": "cycles", "image": "/bin/dwarf_workload", )"
                              R"("build_id": "feedc0de12345678", "samples": 48, "rows": 3})"))
      << r.out;
  EXPECT_EQ(run_dcpi({"db", "show", "--db", db_, "--json"}).out, r.out);
}

TEST_F(ReportViews, ProceduresByTheNamesAReaderTypes) {
  auto r = run_dcpi({"list", "--db", db_, "--images", images_, "--procedure", "accum*"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Procedure accumulate in /bin/dwarf_workload")) << r.out;
  r = run_dcpi({"list", "--db", db_, "--images", images_, "--procedure", "acumulate"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err,
                       "dcpi list: no procedure matches 'acumulate' in 2 images with "
                       "symbols; the closest are:\n  accumulate  [sampled]\n"))
      << r.err;
  // The kernel has three procedures ending in "_loop"/"_entry"/"_tail": a glob
  // matching several in one image is refused with the list.
  r = run_dcpi(
      {"list", "--db", db_, "--images", images_, "--procedure", "*_*", "--image", "kernel"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(\d procedures match '\*_\*' in /kernel)")))
      << r.err;
}

// A dynamically linked program's pid has samples in its libraries too
// (issue 15's kMap images): the program names it, not libc.
TEST(ReportPrograms, ThePidsProgramIsItsExecutableNotItsLibraries) {
  auto profile = [](const std::string& path, uint32_t pid) {
    Profile p;
    p.info.image = {"", path, 0x1000, false};
    p.rows = {{pid, 0, 0x1000, 5}};
    return p;
  };
  SampleSet samples;
  samples.profiles = {profile("/lib/libc.so.6", 3), profile("/usr/bin/sort", 3),
                      profile("kernel.elf", 3), profile("/lib/ld-linux.so.2", 4),
                      profile("/bin/copy", 0)};
  const auto programs = programs_by_pid(samples);
  EXPECT_EQ(pid_label(3, programs), "3:sort");
  EXPECT_EQ(pid_label(4, programs), "4:ld-linux.so.2");  // nothing else ran there
  EXPECT_EQ(pid_label(0, programs), "0:[kernel]");
  EXPECT_EQ(pid_label(9, programs), "9");
}

// pprof's reader (github.com/google/pprof profile.go) keeps a label only when
// its string, number or unit is set; a numeric pid 0 was dropped.
std::map<std::string, std::string> labels_pprof_keeps(const perftools::profiles::Profile& p,
                                                      const perftools::profiles::Sample& s) {
  std::map<std::string, std::string> kept;
  for (const auto& label : s.label())
    if (label.str() != 0)
      kept[p.string_table(label.key())] = p.string_table(label.str());
    else if (label.num() != 0 || label.num_unit() != 0)
      kept[p.string_table(label.key())] = std::to_string(label.num());
  return kept;
}

TEST_F(ReportViews, PprofSamplesAreLabelledAndTyped) {
  {
    ProfileDatabaseWriter writer(db_);  // one period for both epochs
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 1, .period = {61440, 4096, false}});
    writer.merge_epoch_metadata(EpochMetadata{.epoch = 2, .period = {61440, 4096, false}});
  }
  const std::string output = dir_.file("p.pb.gz");
  const auto r =
      run_dcpi({"export", "--format", "pprof", "--db", db_, "--images", images_, "-o", output});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(read_gzip_file(output)));
  auto text = [&](int64_t index) { return p.string_table(index); };
  // Samples, then the projected cycles (issue 26: samples x mean period).
  ASSERT_EQ(p.sample_type_size(), 2);
  EXPECT_EQ(text(p.sample_type(0).type()), "samples");
  EXPECT_EQ(text(p.sample_type(0).unit()), "count");
  EXPECT_EQ(text(p.sample_type(1).type()), "cycles");
  for (const auto& sample : p.sample())
    EXPECT_EQ(sample.value(1), std::llround(double(sample.value(0)) * 63487.5));
  EXPECT_EQ(text(p.period_type().type()), "cycles");
  EXPECT_EQ(p.period(), 63488);  // 61440 + 4095 / 2 = 63487.5, rounded
  ASSERT_EQ(p.sample_size(), 11);
  std::map<std::string, int64_t> by_program;
  for (const auto& sample : p.sample()) {
    const auto labels = labels_pprof_keeps(p, sample);
    ASSERT_TRUE(labels.count("pid") && labels.count("cpu") && labels.count("epoch"))
        << sample.DebugString();
    ASSERT_TRUE(labels.count("image") && labels.count("program"));
    // The image label and the location's mapping name the same file.
    const auto& location = p.location(int(sample.location_id(0) - 1));
    EXPECT_EQ(text(p.mapping(int(location.mapping_id() - 1)).filename()), labels.at("image"));
    by_program[labels.at("pid") + " " + labels.at("program")] += sample.value(0);
  }
  EXPECT_EQ(by_program["0 [kernel]"], 100);
  EXPECT_EQ(by_program["7 /bin/dwarf_workload"], 50);  // 48 + 2 unknown samples of pid 7
  EXPECT_EQ(by_program["8 /bin/dwarf_workload"], 50);
}

}  // namespace
}  // namespace dcpi
