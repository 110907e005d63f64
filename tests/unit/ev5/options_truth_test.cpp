#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "qemu/machine/plugins/ev5/machine_options.h"
#include "qemu/machine/plugins/ev5/truth_file.h"
#include "tests/unit/ev5/encode.h"

namespace dcpi::ev5 {
namespace {

TEST(Ev5Options, TuningArgumentsAreCheckedAgainstTheirRanges) {
  PluginOptions options;
  std::string error;
  EXPECT_TRUE(apply_option("out=/tmp/truth.txt", options, error));
  EXPECT_EQ(options.out_path, "/tmp/truth.txt");
  EXPECT_TRUE(apply_option("memory_latency=200", options, error));
  EXPECT_EQ(options.machine.memory_latency, 200u);
  EXPECT_FALSE(apply_option("memory_latency=2", options, error));
  EXPECT_EQ(error, "ev5: memory_latency=2 is not an integer in [3, 100000]");
  EXPECT_EQ(options.machine.memory_latency, 200u);
  EXPECT_FALSE(apply_option("mispredict=5x", options, error));
  EXPECT_FALSE(apply_option("bcache_bytes=3000000", options, error));
  EXPECT_NE(error.find("power of two"), std::string::npos);
  EXPECT_FALSE(apply_option("bogus=1", options, error));
  EXPECT_EQ(error, "ev5: unknown argument bogus=1");
  EXPECT_FALSE(apply_option("out", options, error));
  EXPECT_FALSE(apply_option("out=", options, error));
}

TEST(Ev5TruthFile, VersionTwoLines) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = 0xfffffc0000001000ull;
  BlockRecord block = testing::block_of(pc, {testing::ldq(1, 16), testing::addq(1, 1, 2)});
  model.enter(block);
  model.memory_access(block, 0, pc + 0x100000, 0x101000, false);
  model.operands_ready(block, 1);
  model.enter(block);
  const std::string path = ::testing::TempDir() + "ev5_truth.txt";
  model.settle_truth();
  ASSERT_TRUE(write_truth_file(path, {&model}, TruthSpaces(), {}));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  // Version 6: the cold I-cache line and the D-cache miss are counter
  // events, each at its instruction (`pcevent`), summed in `event` lines.
  EXPECT_EQ(s.rfind("dcpi-exec-counts 6\nmachine ev5\nvcpus 1\n", 0), 0u) << s;
  EXPECT_NE(s.find("pcevent fffffc0000001000 dmiss 1\npcevent fffffc0000001000 imiss 1\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("event imiss 1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("event branchmp 0\n"), std::string::npos) << s;
  EXPECT_NE(s.find("insn fffffc0000001000 2\n"), std::string::npos) << s;
  EXPECT_NE(s.find("insn fffffc0000001004 2\n"), std::string::npos) << s;
  // The reader: 2 x 2 static cycles and the 98-cycle miss; the load: 2 x 1
  // and the cold I-cache line.
  EXPECT_NE(s.find("cycles fffffc0000001004 102\n"), std::string::npos) << s;
  EXPECT_NE(s.find("cycles fffffc0000001000 102\n"), std::string::npos) << s;
  EXPECT_NE(s.find("stall fffffc0000001004 dep 2 fffffc0000001000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("stall fffffc0000001004 dcache 98 fffffc0000001000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("stall fffffc0000001000 icache 100\n"), std::string::npos) << s;
  EXPECT_NE(s.find("event instructions 4\nevent cycles 204\n"), std::string::npos) << s;
  EXPECT_NE(s.find("event dcache_miss 1\n"), std::string::npos) << s;
  EXPECT_FALSE(std::ifstream(path + ".tmp").good());
  std::remove(path.c_str());
}

// Two processes run the same program at the same address (every program is
// linked at 0x120000000): version 5 keeps their lines apart, each after its
// space line, and the kernel's lines before them, shared.
TEST(Ev5TruthFile, UserLinesPerAddressSpace) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t user = 0x120000000, kernel = 0xfffffc0000001000ull;
  BlockRecord program = testing::block_of(user, {testing::addq(1, 1, 2), testing::addq(2, 2, 3)});
  BlockRecord syscall = testing::block_of(kernel, {testing::addq(1, 1, 2)});
  TruthSpaces spaces;
  model.switch_truth_space(spaces.number(7, 0));
  for (int i = 0; i < 3; ++i) model.enter(program);
  model.enter(syscall);
  model.switch_truth_space(spaces.number(9, 1));
  model.enter(program);
  model.enter(syscall);
  model.settle_truth();
  const std::string path = ::testing::TempDir() + "ev5_spaces.txt";
  ASSERT_TRUE(write_truth_file(path, {&model}, spaces, {}));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  EXPECT_EQ(s.rfind("dcpi-exec-counts 6\n", 0), 0u) << s;
  const size_t first = s.find("space 7 0\n"), second = s.find("space 9 1\n");
  ASSERT_NE(first, std::string::npos) << s;
  ASSERT_NE(second, std::string::npos) << s;
  EXPECT_LT(s.find("insn fffffc0000001000 2\n"), first) << s;  // shared, before the spaces
  EXPECT_EQ(s.find("insn 120000000 3\n", first), s.find("insn 120000000 3\n")) << s;
  EXPECT_LT(s.find("insn 120000000 3\n"), second) << s;
  EXPECT_NE(s.find("insn 120000000 1\n", second), std::string::npos) << s;
  // The program's cold line missed in the first space: its event is there.
  EXPECT_GT(s.find("pcevent 120000000 imiss 1\n"), first) << s;
  EXPECT_LT(s.find("pcevent 120000000 imiss 1\n"), second) << s;
  EXPECT_LT(s.find("pcevent fffffc0000001000 imiss 1\n"), first) << s;
  EXPECT_NE(s.find("event instructions 10\n"), std::string::npos) << s;
  std::remove(path.c_str());
}

// A CPU that slept (PAL's wait, firmware/pal_abi.h PAL_WAIT_SLEPT) spent
// those cycles at the wait: the truth books them there and counts them as
// halted; the model's clock moves on with them (nothing is charged).
TEST(Ev5TruthFile, SleepIsBookedWhereTheWaitIs) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = 0xfffffc0000001fa0ull;
  BlockRecord wait = testing::block_of(pc, {testing::addq(1, 1, 2), testing::addq(2, 2, 3)});
  model.enter(wait);
  model.slept(wait, 1, 5000);
  model.settle_truth();
  const std::string path = ::testing::TempDir() + "ev5_sleep.txt";
  ASSERT_TRUE(write_truth_file(path, {&model}, TruthSpaces(), {}));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  EXPECT_NE(s.find("event halted_cycles 5000\n"), std::string::npos) << s;
  EXPECT_NE(s.find("cycles fffffc0000001fa4 5001\n"), std::string::npos) << s;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace dcpi::ev5
