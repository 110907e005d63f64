// The dcpi executable end to end: every bad input or unreachable stub ends
// in one clear line on stderr and exit code 1 (`dcpi ingest --gdb`, the real
// path's live reader), a bad command line in exit code 2.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_gdb_stub.h"
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

// `dcpi ingest --gdb` arguments pointing at `port`, into a throwaway database.
std::vector<std::string> ingest(const std::string& kernel, const std::string& port) {
  return {"ingest",           "--db", ::testing::TempDir() + "dcpi_cli_db",
          "--kernel",         kernel, "--gdb",
          "127.0.0.1:" + port};
}

TEST(DcpiCli, MissingKernelFile) {
  expect_one_line_failure(
      run_dcpi(ingest("/nonexistent/kernel.elf", "1")),
      "dcpi ingest: cannot open /nonexistent/kernel.elf: No such file or directory");
}

TEST(DcpiCli, SymbolNotInKernel) {
  expect_one_line_failure(run_dcpi(ingest(DCPI_BINARY, "1")),
                          std::string("symbol 'dcpi_transfer_ring' not found in ") + DCPI_BINARY);
}

TEST(DcpiCli, NothingListeningOnPort) {
  if (kernel_fixture().empty()) GTEST_SKIP() << "no Alpha binutils";
  const std::string port = std::to_string(testing::unused_port());
  expect_one_line_failure(
      run_dcpi(ingest(kernel_fixture(), port)),
      "cannot connect to gdb stub at 127.0.0.1:" + port + ": connection refused");
}

TEST(DcpiCli, StubThatNeverAnswersTimesOut) {
  if (kernel_fixture().empty()) GTEST_SKIP() << "no Alpha binutils";
  testing::SilentListener listener;
  const std::string port = std::to_string(listener.port());
  std::vector<std::string> arguments = ingest(kernel_fixture(), port);
  arguments.insert(arguments.end(), {"--timeout", "1"});
  const testing::CommandResult result = run_dcpi(arguments);
  expect_one_line_failure(result, "gdb stub at 127.0.0.1:" + port + " did not answer within 1 s");
  EXPECT_LT(result.seconds, 5.0);
}

TEST(DcpiCli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_dcpi({"ingest", "--gdb", "127.0.0.1:1"}).exit_code, 2);
  EXPECT_EQ(run_dcpi({"ingest", "--bogus"}).exit_code, 2);
  EXPECT_EQ(run_dcpi({"samples"}).exit_code, 2);  // the walking skeleton's command is gone
  EXPECT_EQ(run_dcpi({"no-such-command"}).exit_code, 2);
  EXPECT_EQ(run_dcpi({"help", "ingest"}).exit_code, 0);
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

// `--truth --profileme` once wrote the truth to a file named "--profileme"
// and ran without ProfileMe: an option where a value belongs is refused
// before anything boots, and the = form still passes such a value.
TEST(DcpiCli, AnOptionWhereAValueBelongsIsRefused) {
  auto fails_with = [](std::vector<std::string> arguments, const std::string& message) {
    const testing::CommandResult r = run_dcpi(arguments);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  fails_with({"run", "--truth", "--profileme", "--cpus", "1"},
             "option --truth needs a value before --profileme");
  fails_with({"run", "--file", "--no-profile", "--", "/bin/true"},
             "--file needs a value before --no-profile");
  fails_with({"prof", "--db", "--limit", "3"}, "--db needs a value before --limit");
  fails_with({"prof", "--limit", "--wide"}, "option --limit needs a value before --wide");
  // Not an option of the command: a value (here a missing database).
  const testing::CommandResult odd = run_dcpi({"prof", "--db=--limit"});
  EXPECT_NE(odd.exit_code, 0);
  EXPECT_NE(odd.err.find("--limit does not exist"), std::string::npos) << odd.err;
}

}  // namespace
}  // namespace dcpi
