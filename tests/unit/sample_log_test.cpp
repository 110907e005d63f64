// Reading the per-CPU sample logs and turning them into a per-function profile.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "analysis/reports/sample_profile.h"
#include "fake_gdb_stub.h"
#include "hostdump/gdb/gdb_client.h"
#include "hostdump/sample_log_reader.h"
#include "sample_log_image.h"
#include "test_support.h"

namespace dcpi {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t kLogsPhysical = 0x400000;

TEST(SampleLog, KsegConversion) {
  EXPECT_TRUE(is_kseg_address(0xfffffc0000310000ull));
  EXPECT_EQ(kseg_to_physical(0xfffffc0000310000ull), 0x310000u);
  EXPECT_FALSE(is_kseg_address(0x310000));
  EXPECT_FALSE(is_kseg_address(0xfffffe0000000000ull));  // beyond KSEG
  EXPECT_THROW(kseg_to_physical(0x310000), std::invalid_argument);
}

TEST(SampleLog, DecodesHeaderAndClampsWrittenToCapacity) {
  std::vector<uint8_t> image = testing::empty_sample_logs(1);
  testing::fill_sample_log(image, 0, 3, {0x10, 0x20}, 5);
  SampleLogHeader header = decode_sample_log_header(image);
  EXPECT_TRUE(header.initialised());
  EXPECT_EQ(header.cpu, 3u);
  EXPECT_EQ(header.readable_records(), 2u);
  EXPECT_EQ(header.dropped, 5u);
  header.written = 1u << 30;  // corrupt: never read past the buffer
  EXPECT_EQ(header.readable_records(), kSampleLogCapacity);
}

TEST(SampleLog, ReadsInitialisedSlotsThroughStub) {
  std::vector<uint8_t> image = testing::empty_sample_logs(kMaxCpus);
  testing::fill_sample_log(image, 0, 0, {0x1000, 0x1004, 0x1000}, 0);
  testing::fill_sample_log(image, 2, 2, {0x2000}, 7);
  testing::FakeGdbStub stub;
  stub.add_memory(kLogsPhysical, image);
  GdbClient client({"127.0.0.1", stub.port()}, 2s);
  client.set_physical_memory_mode(true);
  const SampleLogSnapshot snapshot = read_sample_logs(client, kLogsPhysical, kMaxCpus);
  ASSERT_EQ(snapshot.cpus.size(), 2u);
  EXPECT_EQ(snapshot.cpus[0].records.size(), 3u);
  EXPECT_EQ(snapshot.cpus[0].records[1].pc, 0x1004u);
  EXPECT_EQ(snapshot.cpus[1].slot, 2u);
  EXPECT_EQ(snapshot.cpus[1].header.dropped, 7u);
  EXPECT_EQ(snapshot.uninitialised_slots, (std::vector<uint32_t>{1, 3}));
}

class SampleProfileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::fixture_path("fake_kernel.elf").empty()) GTEST_SKIP() << "no Alpha binutils";
  }
  static SampleLogSnapshot snapshot(const std::vector<uint64_t>& cpu0,
                                    const std::vector<uint64_t>& cpu1) {
    SampleLogSnapshot result;
    for (const auto* pcs : {&cpu0, &cpu1}) {
      CpuSamples cpu;
      cpu.slot = cpu.header.cpu = static_cast<uint32_t>(result.cpus.size());
      for (uint64_t pc : *pcs) cpu.records.push_back({pc, 0});
      result.cpus.push_back(cpu);
    }
    return result;
  }
  static PcSymbolizer symbolizer(bool with_palcode) {
    std::optional<ElfSymbols> palcode;
    if (with_palcode) palcode = ElfSymbols::open(testing::fixture_path("fake_palcode.elf"));
    return PcSymbolizer(ElfSymbols::open(testing::fixture_path("fake_kernel.elf")),
                        std::move(palcode));
  }
};

constexpr uint64_t kEntry = 0xfffffc0000310000ull;
constexpr uint64_t kIdle = kEntry + 16;

TEST_F(SampleProfileTest, CountsPerFunctionMostSampledFirst) {
  const SampleProfile profile = build_sample_profile(
      snapshot({kIdle, kIdle + 4, kEntry}, {kIdle + 8, 0x104}), symbolizer(false));
  EXPECT_EQ(profile.total_samples, 5u);
  ASSERT_EQ(profile.functions.size(), 3u);
  EXPECT_EQ(profile.functions[0].function, "idle_loop");
  EXPECT_EQ(profile.functions[0].samples, 3u);
  EXPECT_EQ(profile.functions[1].function, "[unknown 0x104]");
  EXPECT_EQ(profile.functions[2].function, "kernel_entry");
  EXPECT_EQ(profile.cpus[1].samples, 2u);
}

TEST_F(SampleProfileTest, PalcodeElfNamesPhysicalPalAddresses) {
  const SampleProfile profile =
      build_sample_profile(snapshot({0x104, 0x108}, {0x8}), symbolizer(true));
  ASSERT_EQ(profile.functions.size(), 2u);
  EXPECT_EQ(profile.functions[0].function, "pal_interrupt [palcode]");
  EXPECT_EQ(profile.functions[1].function, "pal_reset [palcode]");
}

TEST_F(SampleProfileTest, TableAndJsonShowPercentages) {
  const SampleProfile profile =
      build_sample_profile(snapshot({kIdle, kIdle, kIdle}, {kEntry}), symbolizer(false));
  std::ostringstream table, json;
  print_profile_table(profile, table);
  print_profile_json(profile, json);
  EXPECT_NE(table.str().find("Total samples: 4"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("75.00%   75.00%  idle_loop"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("25.00%  100.00%  kernel_entry"), std::string::npos) << table.str();
  EXPECT_NE(json.str().find("{\"function\": \"idle_loop\", \"samples\": 3, \"percent\": 75.00, "
                            "\"cumulative_percent\": 75.00}"),
            std::string::npos)
      << json.str();
}

TEST(SampleLog, JsonQuoteEscapes) { EXPECT_EQ(json_quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\""); }

}  // namespace
}  // namespace dcpi
