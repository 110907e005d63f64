// `dcpi db merge OUT IN...` (profiledb/db_merge.h): epochs
// renumbered in order with their metadata, profiles, value files, image
// catalogs and recordings; totals add up; OUT checks clean; a non-empty OUT
// and a database being written are refused.
#include "profiledb/db_merge.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "profiledb/image_catalog.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "profiledb/value_file.h"
#include "report_fixture.h"
#include "test_support.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using testing::contains;
using testing::run_dcpi;
using testing::TempDir;

// The report fixture (two epochs of 100 samples) plus, in epoch 2, a value
// file, a recorded image and a recording identity.
void write_input(const std::string& db, const std::string& recording, uint64_t period) {
  testing::write_report_database(db);
  ProfileDatabaseWriter writer(db);
  values::ValueFileInfo info;
  info.image = testing::workload_identity();
  info.kind = "result";
  info.module = "operands";
  writer.merge_values(2, info, {{testing::kAccumulate + 0x10, 3, 1.0, {{7, 3, 3.0}}}});
  EpochMetadata update;
  update.epoch = 2;
  update.period = {period, 0, false};
  writer.merge_epoch_metadata(update);
  writer.record_images({{testing::kWorkloadBuildId, "/bin/dwarf_workload", "/build/w"}});
  writer.add_recording(recording);
}

TEST(DbMerge, RenumbersEpochsAndKeepsEverything) {
  TempDir dir;
  write_input(dir.file("a.db"), "crc32c:00000001 size:1", 4096);
  write_input(dir.file("b.db"), "crc32c:00000002 size:2", 8192);
  const auto merged =
      run_dcpi({"db", "merge", dir.file("out.db"), dir.file("a.db"), dir.file("b.db")});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_TRUE(contains(merged.out, "b.db epoch 2 -> epoch 4 (100 samples)")) << merged.out;
  EXPECT_TRUE(contains(merged.out, "4 epochs, 400 samples from 2 databases")) << merged.out;

  const ProfileDatabase out = ProfileDatabase::open(dir.file("out.db"));
  EXPECT_EQ(out.epochs(), (std::vector<uint64_t>{1, 2, 3, 4}));
  uint64_t samples = 0;
  for (uint64_t epoch : out.epochs())
    for (const ProfileInfo& info : out.profiles(epoch)) samples += info.total_count;
  EXPECT_EQ(samples, 400u);
  EXPECT_EQ(out.epoch_metadata(2).period.base, 4096u);  // per-epoch metadata kept
  EXPECT_EQ(out.epoch_metadata(4).period.base, 8192u);
  EXPECT_EQ(out.epoch_metadata(3).unknown_samples, 2u);
  EXPECT_EQ(values::list_value_files(out, 4).size(), 1u);
  EXPECT_EQ(read_image_catalog(dir.file("out.db")).size(), 1u);  // same image, one identity
  // The same image has the same file name in every epoch.
  EXPECT_EQ(out.profiles(1)[1].file.filename(), out.profiles(3)[1].file.filename());
  const auto check = run_dcpi({"db", "check", dir.file("out.db")});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_TRUE(contains(check.out, "4 epochs")) << check.out;
  // Both recordings are known to OUT: ingesting either again is refused.
  ProfileDatabaseWriter writer(dir.file("out.db"));
  EXPECT_TRUE(writer.has_recording("crc32c:00000001 size:1"));
  EXPECT_TRUE(writer.has_recording("crc32c:00000002 size:2"));
}

TEST(DbMerge, RefusesANonEmptyOutputAndBadInputs) {
  TempDir dir;
  testing::write_report_database(dir.file("a.db"));
  const auto into_input = run_dcpi({"db", "merge", dir.file("a.db"), dir.file("a.db")});
  EXPECT_EQ(into_input.exit_code, 1);
  EXPECT_TRUE(contains(into_input.err, "is not empty")) << into_input.err;
  const auto missing = run_dcpi({"db", "merge", dir.file("out.db"), dir.file("absent.db")});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(contains(missing.err, "absent.db")) << missing.err;
  EXPECT_FALSE(fs::exists(dir.file("out.db")));  // nothing written before the inputs opened
  const auto usage = run_dcpi({"db", "merge", dir.file("out.db")});
  EXPECT_EQ(usage.exit_code, 2);
  {
    ProfileDatabaseWriter busy(dir.file("a.db"));  // a run still writing it
    const auto locked = run_dcpi({"db", "merge", dir.file("out.db"), dir.file("a.db")});
    EXPECT_EQ(locked.exit_code, 1);
    EXPECT_TRUE(contains(locked.err, "is being written")) << locked.err;
  }
}

// Issue 30: an input given twice, by path or as a copy, would count its
// samples twice.
TEST(DbMerge, RefusesAnInputGivenTwice) {
  TempDir dir;
  write_input(dir.file("a.db"), "crc32c:00000001 size:1", 4096);
  const auto twice =
      run_dcpi({"db", "merge", dir.file("out.db"), dir.file("a.db"), dir.file("a.db")});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_TRUE(contains(twice.err, "is given twice")) << twice.err;
  fs::copy(dir.file("a.db"), dir.file("copy.db"), fs::copy_options::recursive);
  const auto copy =
      run_dcpi({"db", "merge", dir.file("out.db"), dir.file("a.db"), dir.file("copy.db")});
  EXPECT_EQ(copy.exit_code, 1);
  EXPECT_TRUE(contains(copy.err, "holds the same profiles as")) << copy.err;
  EXPECT_FALSE(fs::exists(dir.file("out.db") + "/epoch-1"));
}

// Issue 30: the catalogs go with the first epoch's batch, so a merge killed
// after any epoch leaves OUT with them; db check notes a missing one.
TEST(DbMerge, TheCatalogIsStoredWithTheFirstEpoch) {
  TempDir dir;
  write_input(dir.file("a.db"), "crc32c:00000001 size:1", 4096);
  write_input(dir.file("b.db"), "crc32c:00000002 size:2", 8192);
  bool checked = false;
  merge_databases(dir.file("out.db"), {dir.file("a.db"), dir.file("b.db")},
                  [&](const MergedEpoch& epoch) {
                    if (epoch.output_epoch != 1) return;
                    checked = true;
                    EXPECT_EQ(read_image_catalog(dir.file("out.db")).size(), 1u);
                  });
  EXPECT_TRUE(checked);
  fs::remove(dir.file("out.db") + "/IMAGES");
  const auto check = run_dcpi({"db", "check", dir.file("out.db")});
  EXPECT_TRUE(contains(check.out, "IMAGES is missing")) << check.out;
}

}  // namespace
}  // namespace dcpi
