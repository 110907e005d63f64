// Value hotlists in the profile database (seed 001 §2.2, §2.4): concise-sample
// merge, the .vals codec and its fuzzed reader, the reducer over tuple
// sequences, the customization module plug-in, and the writer's merge.
#include "profiledb/value_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "analysis/values/value_hotlists.h"
#include "firmware/crc32c.h"
#include "hostdump/values/customization_module.h"
#include "hostdump/values/value_reducer.h"
#include "profiledb/concise_sample.h"
#include "profiledb/profile_db_writer.h"
#include "test_support.h"

namespace dcpi::values {
namespace {

namespace fs = std::filesystem;

ValueFileInfo sample_info() {
  ValueFileInfo info;
  info.image = ImageIdentity{"feedc0de", "/bin/mathcall", 0x10000, false};
  info.kind = "fp_a";
  info.module = "operands";
  info.format = ValueFormat::kDouble;
  return info;
}

std::vector<PcHotlist> sample_hotlists(uint64_t seed) {
  std::vector<PcHotlist> lists;
  std::mt19937_64 random(seed);
  for (uint64_t pc = 0; pc < 40; ++pc) {
    ConciseSample sample(seed + pc);
    const int n = 1 + int(random() % 400);
    for (int i = 0; i < n; ++i) sample.add(random() % 4 ? 7 : random() % (1 + pc * 3));
    lists.push_back(hotlist_of(0x120000000 + 4 * pc, sample));
  }
  return lists;
}

TEST(ValueFile, RoundTrips) {
  const auto lists = sample_hotlists(1);
  const ValueFile file = decode_value_file(encode_value_file(sample_info(), lists), "f");
  EXPECT_EQ(file.info.kind, "fp_a");
  EXPECT_EQ(file.info.format, ValueFormat::kDouble);
  EXPECT_EQ(file.info.image.path, "/bin/mathcall");
  ASSERT_EQ(file.hotlists.size(), lists.size());
  for (size_t i = 0; i < lists.size(); ++i) {
    EXPECT_EQ(file.hotlists[i].address, lists[i].address);
    EXPECT_EQ(file.hotlists[i].seen, lists[i].seen);
    EXPECT_EQ(file.hotlists[i].probability, lists[i].probability);
    ASSERT_EQ(file.hotlists[i].values.size(), lists[i].values.size());
    for (size_t v = 0; v < lists[i].values.size(); ++v) {
      EXPECT_EQ(file.hotlists[i].values[v].value, lists[i].values[v].value);
      EXPECT_EQ(file.hotlists[i].values[v].count, lists[i].values[v].count);
    }
  }
}

// Merging keeps the invariants (at most N values, p = min, seen adds up) and
// the estimates unbiased: the merged estimate of a value averages to its
// true count over many seeds.
TEST(ConciseSampleMerge, UnbiasedAndBounded) {
  double sum = 0;
  constexpr int kRuns = 300;
  for (int run = 0; run < kRuns; ++run) {
    ConciseSample a(run), b(run + 10'000);
    for (int i = 0; i < 600; ++i) a.add(i % 3 ? 5 : 100 + i);   // 400 fives, 200 cold
    for (int i = 0; i < 300; ++i) b.add(i % 2 ? 5 : 1000 + i);  // 150 fives
    const double pa = a.probability(), pb = b.probability();
    a.merge(b);
    ASSERT_LE(a.distinct(), kHotlistCapacity);
    ASSERT_EQ(a.seen(), 900u);
    ASSERT_LE(a.probability(), std::min(pa, pb));
    for (const HotValue& h : a.hotlist())
      if (h.value == 5) sum += h.estimate;
  }
  EXPECT_NEAR(sum / kRuns, 550.0, 20.0);
}

TEST(ConciseSampleMerge, ExactWhileBothFit) {
  ConciseSample a(1), b(2);
  for (int i = 0; i < 10; ++i) a.add(3);
  for (int i = 0; i < 4; ++i) b.add(3), b.add(9);
  a.merge(b);
  EXPECT_EQ(a.probability(), 1.0);
  const auto list = a.hotlist();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].count, 14u);
  EXPECT_EQ(list[1].count, 4u);
}

// Damaged files (flips, truncations) decode to the same hotlists or fail with
// ProfileFormatError, never anything else.
TEST(ValueReaderFuzz, DamagedFilesFailCleanly) {
  const auto lists = sample_hotlists(2);
  const std::vector<uint8_t> original = encode_value_file(sample_info(), lists);
  std::mt19937 random(7);
  int rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> bytes = original;
    testing::damage(bytes, random, round);
    try {
      (void)decode_value_file_info(bytes, "f");
      const ValueFile file = decode_value_file(bytes, "f");
      EXPECT_EQ(file.hotlists.size(), lists.size()) << "round " << round;
    } catch (const ProfileFormatError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 2900);
}

// Body bytes changed with a recomputed checksum: the structural checks
// (order, p range, counts <= seen, exact counts at p = 1, totals) catch most.
TEST(ValueReaderFuzz, ChecksummedButInconsistentBodies) {
  const std::vector<uint8_t> good = encode_value_file(sample_info(), sample_hotlists(3));
  const ValueFileInfo info = decode_value_file_info(good, "f");
  const size_t body = kValueFixedHeaderBytes + info.image.build_id.size() + info.image.path.size() +
                      info.kind.size() + info.module.size();
  std::mt19937 random(11);
  int rejected = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes = good;
    bytes[body + random() % (bytes.size() - 8 - body)] = uint8_t(random());
    const uint32_t crc = crc32c(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &crc, 4);
    try {
      (void)decode_value_file(bytes, "f");
    } catch (const ProfileFormatError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);
}

ValueTuple tuple(uint64_t pc, uint8_t index, uint64_t a, bool fp) {
  ValueTuple t{};
  t.pc = pc;
  t.pid = 3;
  t.index = index;
  t.flags = static_cast<uint8_t>((index == 0 ? kTupleFirst : 0) |
                                 (fp ? kTupleFpA | kTupleFpB | kTupleFpResult : 0));
  t.fields = kFieldTuple | kFieldOperands | kFieldResult;
  t.a = a;
  t.b = 2;
  t.result = a + 2;
  return t;
}

TEST(ValueReducer, OperandModuleAndPlacement) {
  ValueReducer reducer;
  std::vector<ValueTuple> tuples;
  for (int run = 0; run < 10; ++run) {
    tuples.push_back(tuple(0x1000, 0, run < 9 ? 0x3ff4000000000000 : 0, true));  // 1.25
    tuples.push_back(tuple(0x1004, 1, 7, false));
    tuples.push_back(tuple(0x9999, 2, 7, false));  // no image: dropped, counted
  }
  const ValueReducer::Placer place =
      [](uint32_t pid, uint64_t pc) -> std::optional<std::pair<uint32_t, uint64_t>> {
    if (pid != 3 || pc >= 0x2000) return std::nullopt;
    return std::pair<uint32_t, uint64_t>{0, pc + 0x120000000};
  };
  reducer.add_tuples(1, tuples, place);
  EXPECT_EQ(reducer.totals().sequences, 10u);
  EXPECT_EQ(reducer.totals().unplaced, 30u);
  uint32_t fp_a = 99;
  for (uint32_t k = 0; k < reducer.kinds().size(); ++k)
    if (reducer.kinds()[k].name == "fp_a") fp_a = k;
  ASSERT_NE(fp_a, 99u);
  const auto& lists = reducer.pending().at({1, 0, fp_a});
  ASSERT_EQ(lists.size(), 1u);
  const auto hot = lists.at(0x120001000).hotlist();
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(format_value(ValueFormat::kDouble, hot[0].value), "1.25");
  EXPECT_EQ(hot[0].count, 9u);
}

TEST(ValueModules, PluginLoadsAndDuplicateKindsAreRefused) {
  const auto module = load_module(DCPI_VALUES_ADDRESS_MODULE);
  EXPECT_EQ(module->name(), "addresses");
  ASSERT_EQ(module->kinds().size(), 2u);
  EXPECT_EQ(module->kinds()[0].name, "address");
  EXPECT_EQ(module->format(0, 0x120001000), "0x120001000");
  ValueReducer reducer;
  reducer.add_module(module);
  EXPECT_THROW(reducer.add_module(module), std::invalid_argument);
  EXPECT_THROW(load_module("/nonexistent/module.so"), std::runtime_error);
}

TEST(ValueFileWriter, MergesUpdatesAndCheckPasses) {
  const fs::path dir = fs::temp_directory_path() / ("dcpi_values_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ValueFileInfo info = sample_info();
  {
    ProfileDatabaseWriter writer(dir);
    writer.merge_values(1, info, sample_hotlists(4));
    writer.merge_values(1, info, sample_hotlists(5));
  }
  const ValueFile file =
      read_value_file(dir / "epoch-00000001" / value_file_name(info.image, "fp_a"));
  uint64_t seen = 0;
  for (const PcHotlist& list : sample_hotlists(4)) seen += list.seen;
  for (const PcHotlist& list : sample_hotlists(5)) seen += list.seen;
  EXPECT_EQ(file.info.seen_total, seen);
  EXPECT_EQ(file.hotlists.size(), 40u);
  for (const PcHotlist& list : file.hotlists) EXPECT_LE(list.values.size(), kHotlistCapacity);
  fs::remove_all(dir);
}

TEST(ValueHotlists, EpochSelection) {
  const fs::path dir = fs::temp_directory_path() / ("dcpi_epochs_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const ValueFileInfo info = sample_info();
  {
    ProfileDatabaseWriter writer(dir);
    writer.merge_values(1, info, sample_hotlists(4));
    writer.merge_values(2, info, sample_hotlists(5));
  }
  auto seen = [](const std::vector<PcHotlist>& lists) {
    uint64_t n = 0;
    for (const PcHotlist& list : lists) n += list.seen;
    return n;
  };
  const ProfileDatabase db = ProfileDatabase::open(dir);
  auto loaded = [&](std::optional<std::vector<uint64_t>> epochs) {
    const auto merged = load_value_hotlists(db, std::nullopt, {"fp_a"}, epochs);
    return merged.size() == 1 ? seen(merged[0].hotlists) : 0;
  };
  EXPECT_EQ(loaded(std::vector<uint64_t>{2}), seen(sample_hotlists(5)));
  EXPECT_EQ(loaded(std::nullopt), seen(sample_hotlists(4)) + seen(sample_hotlists(5)));
  EXPECT_THROW(loaded(std::vector<uint64_t>{3}), std::runtime_error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dcpi::values
