// Images recorded in the database (profiledb/image_catalog.h), the
// build-id cache (symbols/build_id_cache.h) and what dcpi run
// records (hostdump/run/booted_images.h): the reports name procedures with
// no --images, from the recorded build copy or, once it is gone, the cache;
// a copy with debug info wins over a stripped one of the same build-id.
#include "profiledb/image_catalog.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "hostdump/run/booted_images.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "report_fixture.h"
#include "symbols/build_id_cache.h"
#include "test_support.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using testing::contains;
using testing::run_dcpi;
using testing::TempDir;

TEST(ImageCatalog, RoundTripsAndRejectsDamage) {
  const std::vector<RecordedImage> images = {{"ab12", "/bin/copy", "/build/copy"},
                                             {"", "palcode.elf", "/build/palcode.elf"}};
  const std::string text = encode_image_catalog(images);
  std::vector<RecordedImage> sorted = images;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(decode_image_catalog(text, "IMAGES"), sorted);
  std::string damaged = text;
  damaged[damaged.find("copy")] = 'k';
  EXPECT_THROW(decode_image_catalog(damaged, "IMAGES"), ProfileFormatError);
  EXPECT_THROW(decode_image_catalog(text.substr(0, text.size() - 3), "IMAGES"), ProfileFormatError);
}

TEST(ImageCatalog, MergeKeepsOneEntryPerIdentityAndKnownFiles) {
  const std::vector<RecordedImage> merged = merge_image_catalogs(
      {{"ab12", "/bin/copy", "/old/copy"}, {"cd34", "/bin/x", "/old/x"}},
      {{"ab12", "/bin/copy", "/new/copy"}, {"cd34", "/bin/x", ""}, {"bad\t", "/bin/y", ""}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].host_path, "/new/copy");  // the newest copy of those bytes
  EXPECT_EQ(merged[1].host_path, "/old/x");     // an unknown file never replaces a known one
}

// Every test here points the build-id cache at its own directory.
class ImagesWithoutOption : public ::testing::Test {
 protected:
  void SetUp() override {
    debug_ = testing::fixture_path("dwarf_workload.elf");
    stripped_ = testing::fixture_path("dwarf_workload_stripped.elf");
    kernel_ = testing::fixture_path("fake_kernel.elf");
    if (debug_.empty() || !fs::exists(debug_)) GTEST_SKIP() << "no Alpha cross toolchain";
    ::setenv("DCPI_BUILDID_DIR", dir_.file("cache").c_str(), 1);
    db_ = dir_.file("prof.db");
    testing::write_report_database(db_);
  }
  void TearDown() override { ::unsetenv("DCPI_BUILDID_DIR"); }
  void record(const std::vector<RecordedImage>& images) {
    ProfileDatabaseWriter writer(db_);
    writer.begin_batch();
    writer.record_images(images);
    writer.commit_batch();
  }
  // A build directory as dcpi run sees it: PALcode, kernel, and an initrd
  // holding the stripped program with its debug twin beside it.
  std::string make_build() {
    const fs::path build = dir_.file("build");
    fs::create_directories(build / "stage" / "bin");
    fs::copy_file(kernel_, build / "kernel");
    fs::copy_file(debug_, build / "dwarf_workload");
    fs::copy_file(stripped_, build / "stage" / "bin" / "dwarf_workload");
    const std::string pack = "cd '" + (build / "stage").string() +
                             "' && find bin | cpio --quiet -o -H newc > ../initrd.cpio";
    EXPECT_EQ(std::system(pack.c_str()), 0);
    return build.string();
  }

  TempDir dir_;
  std::string debug_, stripped_, kernel_, db_;
};

TEST_F(ImagesWithoutOption, ReportsNameProceduresFromTheCatalog) {
  const std::string build = make_build();
  const BootedImages booted =
      collect_booted_images(build + "/kernel", build + "/kernel", build + "/initrd.cpio");
  EXPECT_TRUE(booted.warnings.empty()) << booted.warnings[0];
  ASSERT_EQ(booted.images.size(), 3u);
  EXPECT_EQ(booted.images[2].guest_path, "/bin/dwarf_workload");
  EXPECT_EQ(booted.images[2].build_id, testing::kWorkloadBuildId);
  EXPECT_EQ(booted.images[2].host_path, fs::path(build + "/dwarf_workload").lexically_normal());
  record(booted.images);
  EXPECT_EQ(read_image_catalog(db_).size(),
            3u);  // palcode.elf, kernel.elf (one file here), the program

  const auto prof = run_dcpi({"prof", "--db", db_, "--epoch", "1"});
  ASSERT_EQ(prof.exit_code, 0) << prof.err;
  EXPECT_TRUE(contains(prof.out, "accumulate")) << prof.out;
  EXPECT_FALSE(contains(prof.err, "dwarf_workload: ")) << prof.err;  // no warning for it
  const auto list = run_dcpi({"list", "--db", db_, "--procedure", "accumulate"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(contains(list.out, "dwarf_workload.c:8:")) << list.out;
  const auto calc =
      run_dcpi({"calc", "--db", db_, "--image", "dwarf_workload", "--procedure", "accumulate"});
  ASSERT_EQ(calc.exit_code, 0) << calc.err;
  EXPECT_TRUE(contains(calc.out, "Block")) << calc.out;
  const auto check = run_dcpi({"db", "check", db_});
  EXPECT_EQ(check.exit_code, 0) << check.out;
}

TEST_F(ImagesWithoutOption, TheCacheCopyServesOnceTheBuildIsGone) {
  const std::string build = make_build();
  record(
      collect_booted_images(build + "/kernel", build + "/kernel", build + "/initrd.cpio").images);
  EXPECT_TRUE(fs::exists(dir_.file("cache") + "/" + testing::kWorkloadBuildId + "/elf"));
  fs::remove_all(build);
  const auto list = run_dcpi({"list", "--db", db_, "--procedure", "accumulate"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(contains(list.out, "dwarf_workload.c:8:")) << list.out;  // the debug twin was cached
  const auto values = run_dcpi({"export", "--db", db_, "--format", "json"});
  ASSERT_EQ(values.exit_code, 0) << values.err;
  EXPECT_TRUE(contains(values.out, "accumulate")) << values.out;
}

TEST_F(ImagesWithoutOption, DebugCopyWinsOverAStrippedOneOfTheSameBuild) {
  // --images finds the stripped copy first (D/bin/NAME), the debug one deeper.
  const fs::path images = dir_.file("images");
  fs::create_directories(images / "bin");
  fs::create_directories(images / "deeper" / "debug");
  fs::copy_file(stripped_, images / "bin" / "dwarf_workload");
  fs::copy_file(debug_, images / "deeper" / "debug" / "dwarf_workload");
  const auto list =
      run_dcpi({"list", "--db", db_, "--images", images.string(), "--procedure", "accumulate"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(contains(list.out, "dwarf_workload.c:8:")) << list.out;
  // The same through the catalog: the recorded file is stripped, the cache has debug info.
  ASSERT_EQ(store_in_build_id_cache(debug_, testing::kWorkloadBuildId), "");
  record({{testing::kWorkloadBuildId, "/bin/dwarf_workload",
           (images / "bin" / "dwarf_workload").string()}});
  const auto recorded = run_dcpi({"list", "--db", db_, "--procedure", "accumulate"});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_TRUE(contains(recorded.out, "dwarf_workload.c:8:")) << recorded.out;
}

// calc used to look only for DIR/NAME and DIR/NAME.elf; now the report search:
// DIR/bin/NAME (the guest path below DIR), deeper files, build-ids.
TEST_F(ImagesWithoutOption, CalcTakesTheSameImagesFormsAsTheReports) {
  const std::string images = testing::make_image_directory(dir_.file("images"));
  for (const std::string command : {"calc", "score"}) {
    std::vector<std::string> arguments = {command,          "--db",        db_,
                                          "--images",       images,        "--image",
                                          "dwarf_workload", "--procedure", "accumulate"};
    if (command == "score") {
      testing::write_file(dir_.file("counts"), {});
      arguments.insert(arguments.end(), {"--counts", dir_.file("counts")});
    }
    const auto result = run_dcpi(arguments);
    EXPECT_FALSE(contains(result.err, "no ELF file")) << command << ": " << result.err;
    if (command == "calc") {
      EXPECT_EQ(result.exit_code, 0) << result.err;
    }
  }
  const auto nowhere = run_dcpi({"calc", "--db", db_, "--images", dir_.file("empty"), "--image",
                                 "dwarf_workload", "--procedure", "accumulate"});
  EXPECT_EQ(nowhere.exit_code, 1);
  EXPECT_TRUE(contains(nowhere.err, "no ELF file for /bin/dwarf_workload")) << nowhere.err;
}

TEST_F(ImagesWithoutOption, ADamagedCatalogIsReportedNotFatal) {
  testing::write_file(db_ + "/IMAGES", {'x', '\n'});
  const auto prof = run_dcpi({"prof", "--db", db_});
  EXPECT_EQ(prof.exit_code, 0) << prof.err;
  EXPECT_TRUE(contains(prof.err, "ignoring the image catalog")) << prof.err;
  const auto check = run_dcpi({"db", "check", db_});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_TRUE(contains(check.out, "IMAGES")) << check.out;
}

}  // namespace
}  // namespace dcpi
