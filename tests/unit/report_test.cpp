// Reports over a database with a known content (report_fixture.h): exact
// sample counts, percentages, cumulative percentages, ordering, filters, the
// dcpistats numbers (mean, std-dev, range worked out by hand) and diff order.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/samples/procedure_listing.h"
#include "analysis/samples/profile_table.h"
#include "analysis/samples/run_comparison.h"
#include "profiledb/profile_db_writer.h"
#include "report_fixture.h"
#include "test_support.h"

namespace dcpi {
namespace {

using testing::make_image_directory;
using testing::TempDir;
using testing::write_report_database;

struct Expected {
  std::string procedure;
  uint64_t samples;
};

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    images_ = make_image_directory(dir_.file("images"));
    if (images_.empty()) GTEST_SKIP() << "no Alpha cross toolchain for the ELF fixtures";
    write_report_database(dir_.file("prof.db"));
  }
  SampleSet load(const SampleFilter& filter = {}) {
    return load_samples(ProfileDatabase::open(dir_.file("prof.db")), filter);
  }
  ProfileReport report(const SampleFilter& filter = {}, Grouping grouping = Grouping::kProcedure) {
    ImageResolver resolver({images_});
    return build_report(load(filter), resolver, grouping);
  }
  static void expect_rows(const ProfileReport& report, const std::vector<Expected>& expected) {
    ASSERT_EQ(report.rows.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(report.rows[i].procedure, expected[i].procedure) << "row " << i;
      EXPECT_EQ(report.rows[i].samples.at(0), expected[i].samples) << "row " << i;
    }
  }

  TempDir dir_;
  std::string images_;
};

TEST_F(ReportTest, ProceduresOfEpochOneInOrderWithUnknownCounted) {
  const ProfileReport result = report({.epochs = std::vector<uint64_t>{1}});
  ASSERT_EQ(result.events, std::vector<std::string>{"cycles"});
  EXPECT_EQ(result.totals, std::vector<uint64_t>{100});
  EXPECT_TRUE(result.warnings.empty()) << result.warnings.front();
  // The gap after idle_loop has no symbol: the nearest preceding one names it.
  // unsized_tail and [unknown] tie at 2 and sort by image name ("[unknown]" < "kernel").
  expect_rows(result, {{"accumulate", 40},
                       {"idle_loop", 33},
                       {"kernel_entry", 15},
                       {"copy_words", 8},
                       {"[unknown]", 2},
                       {"unsized_tail", 2}});
  EXPECT_EQ(result.unknown_samples, 2u);
  EXPECT_EQ(result.rows[0].image, "dwarf_workload");
  EXPECT_EQ(result.rows[0].image_path, "/bin/dwarf_workload");
  EXPECT_EQ(result.rows[0].start, testing::kAccumulate);
  EXPECT_EQ(result.rows[4].image_path, "[unknown]");
}

TEST_F(ReportTest, AllEpochsAddUp) {
  const ProfileReport result = report();
  EXPECT_EQ(result.totals, std::vector<uint64_t>{200});
  expect_rows(result, {{"accumulate", 90},
                       {"idle_loop", 83},
                       {"kernel_entry", 15},
                       {"copy_words", 8},
                       {"[unknown]", 2},
                       {"unsized_tail", 2}});
}

TEST_F(ReportTest, ByImage) {
  const ProfileReport result = report({}, Grouping::kImage);
  ASSERT_EQ(result.rows.size(), 3u);
  EXPECT_EQ(result.rows[0].image, "kernel");
  EXPECT_EQ(result.rows[0].samples[0], 100u);  // 15 + 33 + 2 + 50
  EXPECT_EQ(result.rows[1].image, "dwarf_workload");
  EXPECT_EQ(result.rows[1].samples[0], 98u);
  EXPECT_EQ(result.rows[2].image, "[unknown]");
  EXPECT_EQ(result.rows[2].samples[0], 2u);
  EXPECT_TRUE(result.rows[0].procedure.empty());
}

TEST_F(ReportTest, FilterByPid) {
  const ProfileReport result = report({.pid = 7});
  EXPECT_EQ(result.totals[0], 50u);  // epoch 2's workload ran as pid 8
  expect_rows(result, {{"accumulate", 40}, {"copy_words", 8}, {"[unknown]", 2}});
}

TEST_F(ReportTest, FilterByCpu) {
  const ProfileReport result = report({.cpu = 1});
  EXPECT_EQ(result.totals[0], 32u);
  expect_rows(result, {{"idle_loop", 30}, {"[unknown]", 2}});
}

TEST_F(ReportTest, FilterByEpochAndImage) {
  const ProfileReport result = report({.epochs = std::vector<uint64_t>{2}, .image = "kernel"});
  EXPECT_EQ(result.totals[0], 50u);
  expect_rows(result, {{"idle_loop", 50}});
  const ProfileReport by_path = report({.image = "/bin/dwarf_workload"});
  expect_rows(by_path, {{"accumulate", 90}, {"copy_words", 8}});
}

TEST_F(ReportTest, MissingEpochIsAnError) {
  EXPECT_THROW(load({.epochs = std::vector<uint64_t>{9}}), std::runtime_error);
}

TEST_F(ReportTest, WithoutImagesProceduresAreAddresses) {
  ImageResolver resolver({});
  const ProfileReport result =
      build_report(load({.epochs = std::vector<uint64_t>{1}}), resolver, Grouping::kProcedure);
  EXPECT_EQ(result.totals[0], 100u);
  ASSERT_FALSE(result.rows.empty());
  EXPECT_EQ(result.rows[0].procedure, "kernel+0xfffffc0000310010");  // idle_loop's 30
  EXPECT_EQ(result.warnings.size(), 2u);  // kernel and workload, once each
  EXPECT_NE(result.warnings[0].find("no --images"), std::string::npos) << result.warnings[0];
}

TEST_F(ReportTest, BuildIdMismatchFallsBackToAddressesWithWarning) {
  TempDir other;
  write_report_database(other.file("prof.db"), "deadbeefdeadbeef");
  ImageResolver resolver({images_});
  const ProfileReport result = build_report(
      load_samples(ProfileDatabase::open(other.file("prof.db")), {.image = "dwarf_workload"}),
      resolver, Grouping::kProcedure);
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_NE(result.warnings[0].find("build-id mismatch"), std::string::npos) << result.warnings[0];
  EXPECT_NE(result.warnings[0].find("feedc0de12345678"), std::string::npos);
  EXPECT_EQ(result.rows[0].procedure, "dwarf_workload+0x120000010");
  EXPECT_EQ(result.rows[0].samples[0], 75u);
}

TEST_F(ReportTest, StrippedBinariesGiveAddresses) {
  TempDir stripped_dir;
  const std::string stripped = make_image_directory(stripped_dir.file("images"), true);
  ImageResolver resolver({stripped});
  const ProfileReport result =
      build_report(load({.epochs = std::vector<uint64_t>{1}, .image = "kernel"}), resolver,
                   Grouping::kProcedure);
  EXPECT_TRUE(result.warnings.empty());  // the file is right, it just has no names
  ASSERT_FALSE(result.rows.empty());
  EXPECT_EQ(result.rows[0].procedure, "kernel+0xfffffc0000310010");
  EXPECT_EQ(result.rows[0].samples[0], 30u);
}

TEST_F(ReportTest, StatsAcrossEpochsMatchHandComputedNumbers) {
  const ProfileDatabase database = ProfileDatabase::open(dir_.file("prof.db"));
  const auto sets = load_comparison_sets({dir_.file("prof.db")}, ComparedEpochs{.each = true}, {});
  ImageResolver resolver({images_});
  const VariationReport stats = compare_sets(sets, resolver, "cycles");
  ASSERT_EQ(stats.sets.size(), 2u);
  EXPECT_EQ(stats.sets[0].label, "epoch 1");
  EXPECT_EQ(stats.sets[1].samples, 100u);
  EXPECT_EQ(stats.total, 200u);
  // Ordered by normalized range, then sum, then (image path, procedure).
  const std::vector<std::string> order = {"kernel_entry", "copy_words", "unsized_tail",
                                          "[unknown]",    "idle_loop",  "accumulate"};
  ASSERT_EQ(stats.rows.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(stats.rows[i].procedure, order[i]) << i;
  const ProcedureVariation& idle = stats.rows[4];  // 33 and 50
  EXPECT_EQ(idle.per_set, (std::vector<uint64_t>{33, 50}));
  EXPECT_EQ(idle.sum, 83u);
  EXPECT_EQ(idle.sets_with_samples, 2u);
  EXPECT_DOUBLE_EQ(idle.mean, 41.5);
  EXPECT_NEAR(idle.std_dev, 12.0208, 1e-4);  // sqrt((8.5² + 8.5²) / 1)
  EXPECT_EQ(idle.min, 33u);
  EXPECT_EQ(idle.max, 50u);
  EXPECT_NEAR(idle.range_percent, 100.0 * 17 / 83, 1e-9);
  EXPECT_NEAR(idle.percent, 41.5, 1e-9);
  const ProcedureVariation& entry = stats.rows[0];  // 15 and 0
  EXPECT_EQ(entry.sets_with_samples, 1u);
  EXPECT_DOUBLE_EQ(entry.mean, 7.5);
  EXPECT_NEAR(entry.std_dev, 10.6066, 1e-4);
  EXPECT_DOUBLE_EQ(entry.range_percent, 100.0);
  EXPECT_NEAR(stats.rows[5].range_percent, 100.0 * 10 / 90, 1e-9);
}

TEST_F(ReportTest, DiffOrdersByAbsoluteChangeOfShare) {
  const auto sets =
      load_comparison_sets({dir_.file("prof.db")}, ComparedEpochs{.listed = {1, 2}}, {});
  ImageResolver resolver({images_});
  const DiffReport diff = diff_sets(sets[0], sets[1], resolver, "cycles");
  EXPECT_EQ(diff.before.samples, 100u);
  EXPECT_EQ(diff.after.samples, 100u);
  const std::vector<std::pair<std::string, double>> expected = {
      {"idle_loop", 17},  {"kernel_entry", -15}, {"accumulate", 10},
      {"copy_words", -8}, {"unsized_tail", -2},  {"[unknown]", -2}};
  ASSERT_EQ(diff.rows.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(diff.rows[i].procedure, expected[i].first) << i;
    EXPECT_NEAR(diff.rows[i].change, expected[i].second, 1e-9) << i;
  }
  EXPECT_EQ(diff.rows[0].before, 33u);
  EXPECT_EQ(diff.rows[0].after, 50u);
}

TEST_F(ReportTest, ListingCountsEveryInstructionAndKnowsSourceLines) {
  ImageResolver resolver({images_});
  std::vector<std::string> warnings;
  const auto listings = list_procedure(load(), resolver, "accumulate", nullptr, warnings);
  ASSERT_EQ(listings.size(), 1u);
  const ProcedureListing& listing = listings[0];
  EXPECT_EQ(listing.procedure.start, testing::kAccumulate);
  EXPECT_EQ(listing.end, testing::kAccumulate + 0x28);
  ASSERT_EQ(listing.instructions.size(), 10u);
  EXPECT_EQ(listing.totals[0], 90u);
  EXPECT_EQ(listing.instructions[4].samples[0], 75u);  // ldq at +0x10: 25 + 50
  EXPECT_EQ(listing.instructions[5].samples[0], 15u);
  EXPECT_EQ(listing.instructions[0].samples[0], 0u);
  ASSERT_TRUE(listing.instructions[4].source);
  EXPECT_EQ(listing.instructions[4].source->line, 8);
  EXPECT_TRUE(listing.instructions[4].source->file.ends_with("dwarf_workload.c"));
  ASSERT_TRUE(listing.instructions[4].word);
  EXPECT_EQ(*listing.instructions[4].word, 0xa4410000u);        // ldq t1,0(t0)
  EXPECT_EQ(listing.instructions[4].text, "ldq     t1,0(t0)");  // objdump's text, isa/ printer
  EXPECT_EQ(listing.instructions[9].text, "ret");
  EXPECT_EQ(listing.instructions[8].text.substr(0, 19), "beq     t1,12000001");
  const RawWordPrinter raw;
  const auto raw_listings = list_procedure(load(), resolver, "accumulate", &raw, warnings);
  EXPECT_EQ(raw_listings[0].instructions[9].text, ".long 0x6bfa8001");
}

TEST_F(ReportTest, ListingOfUnknownProcedureIsAClearError) {
  ImageResolver resolver({images_});
  std::vector<std::string> warnings;
  try {
    list_procedure(load(), resolver, "no_such_function", nullptr, warnings);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("no procedure matches 'no_such_function'"),
              std::string::npos)
        << error.what();
  }
}

TEST(ReportEmpty, EmptyDatabaseGivesAnEmptyReport) {
  TempDir dir;
  { ProfileDatabaseWriter writer(dir.file("empty.db")); }
  ImageResolver resolver({});
  const ProfileReport result =
      build_report(load_samples(ProfileDatabase::open(dir.file("empty.db")), {}), resolver,
                   Grouping::kProcedure);
  EXPECT_TRUE(result.rows.empty());
  EXPECT_TRUE(result.events.empty());
}

}  // namespace
}  // namespace dcpi
