// The dcpi executable end to end: `dcpi samples` against a fake stub, and
// every bad input ending in one clear line on stderr and exit code 1.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/symbols/elf_symbols.h"
#include "fake_gdb_stub.h"
#include "hostdump/sample_log_reader.h"
#include "sample_log_image.h"
#include "test_support.h"

namespace dcpi {
namespace {

using testing::run_dcpi;

size_t line_count(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

void expect_one_line_failure(const testing::CommandResult& result, const std::string& message) {
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_EQ(line_count(result.err), 1u) << result.err;
  EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

std::string kernel_fixture() { return testing::fixture_path("fake_kernel.elf"); }

TEST(DcpiCli, MissingKernelFile) {
  expect_one_line_failure(
      run_dcpi({"samples", "--kernel", "/nonexistent/kernel.elf", "--gdb", "127.0.0.1:1"}),
      "dcpi samples: cannot open /nonexistent/kernel.elf: No such file or directory");
}

TEST(DcpiCli, SymbolNotInKernel) {
  expect_one_line_failure(run_dcpi({"samples", "--kernel", DCPI_BINARY, "--gdb", "127.0.0.1:1"}),
                          std::string("symbol 'dcpi_sample_logs' not found in ") + DCPI_BINARY);
}

TEST(DcpiCli, NothingListeningOnPort) {
  if (kernel_fixture().empty()) GTEST_SKIP() << "no Alpha binutils";
  const std::string port = std::to_string(testing::unused_port());
  expect_one_line_failure(
      run_dcpi({"samples", "--kernel", kernel_fixture(), "--gdb", "127.0.0.1:" + port}),
      "cannot connect to gdb stub at 127.0.0.1:" + port + ": connection refused");
}

TEST(DcpiCli, StubThatNeverAnswersTimesOut) {
  if (kernel_fixture().empty()) GTEST_SKIP() << "no Alpha binutils";
  testing::SilentListener listener;
  const std::string port = std::to_string(listener.port());
  const testing::CommandResult result = run_dcpi(
      {"samples", "--kernel", kernel_fixture(), "--gdb", "127.0.0.1:" + port, "--timeout", "1"});
  expect_one_line_failure(result, "gdb stub at 127.0.0.1:" + port + " did not answer within 1 s");
  EXPECT_LT(result.seconds, 5.0);
}

TEST(DcpiCli, UsageErrorsExitWithTwo) {
  const testing::CommandResult missing = run_dcpi({"samples", "--gdb", "127.0.0.1:1"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("missing required option --kernel"), std::string::npos);
  EXPECT_EQ(run_dcpi({"samples", "--kernel", "k", "--gdb", "nope"}).exit_code, 2);
  EXPECT_EQ(run_dcpi({"samples", "--bogus"}).exit_code, 2);
  EXPECT_EQ(run_dcpi({"no-such-command"}).exit_code, 2);
  EXPECT_EQ(run_dcpi({"help", "samples"}).exit_code, 0);
}

// Value-sampling options are checked before anything boots.
TEST(DcpiCli, ValueOptionErrorsExitWithTwo) {
  auto fails_with = [](std::vector<std::string> arguments, const std::string& message) {
    const testing::CommandResult r = run_dcpi(arguments);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  };
  fails_with({"run", "--values", "4/256"}, "k <= 255");
  fails_with({"run", "--values", "65/2"}, "N <= 64");
  fails_with({"run", "--values-capture", "tor"}, "--values-capture needs --values");
  fails_with({"run", "--values", "4/2", "--values-capture", "tor,zz"}, "value capture 'tor,zz'");
  fails_with({"run", "--values", "4/2", "--values-module", "/nonexistent.so"},
             "cannot load value module /nonexistent.so");
}

class DcpiSamplesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kernel_fixture().empty()) GTEST_SKIP() << "no Alpha binutils";
    const ElfSymbols kernel = ElfSymbols::open(kernel_fixture());
    entry_ = kernel.lookup("kernel_entry").address;
    idle_ = kernel.lookup("idle_loop").address;
    std::vector<uint8_t> image = testing::empty_sample_logs(kMaxCpus);
    testing::fill_sample_log(image, 0, 0, {idle_, idle_ + 4, idle_ + 8, entry_}, 0);
    testing::fill_sample_log(image, 1, 1, {idle_, 0x104}, 3);
    stub_.add_memory(kseg_to_physical(kernel.lookup("dcpi_sample_logs").address), image);
  }
  std::vector<std::string> arguments(std::vector<std::string> extra) const {
    std::vector<std::string> all = {"samples", "--kernel", kernel_fixture(), "--gdb",
                                    "127.0.0.1:" + std::to_string(stub_.port())};
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  }
  testing::FakeGdbStub stub_;
  uint64_t entry_ = 0, idle_ = 0;
};

TEST_F(DcpiSamplesTest, PrintsTableAndDetaches) {
  const testing::CommandResult result = run_dcpi(arguments({}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("Total samples: 6 on 2 CPU(s)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("66.67%   66.67%  idle_loop"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("[unknown 0x104]"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("log slots never initialised by the kernel: 2 3"), std::string::npos);
  EXPECT_TRUE(stub_.detached());
  EXPECT_FALSE(stub_.physical_mode());  // restored for the next debugger
}

TEST_F(DcpiSamplesTest, JsonWithPalcodeNames) {
  const testing::CommandResult result =
      run_dcpi(arguments({"--json", "--palcode", testing::fixture_path("fake_palcode.elf")}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"total_samples\": 6"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("{\"cpu\": 1, \"samples\": 2, \"dropped\": 3}"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("\"function\": \"pal_interrupt [palcode]\""), std::string::npos)
      << result.out;
}

TEST_F(DcpiSamplesTest, NoResumeLeavesVmStopped) {
  const testing::CommandResult result = run_dcpi(arguments({"--no-resume"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(stub_.detached());
}

}  // namespace
}  // namespace dcpi
