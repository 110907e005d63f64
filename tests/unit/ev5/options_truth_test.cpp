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
  ASSERT_TRUE(write_truth_file(path, {&block}, {&model}, {}));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  EXPECT_EQ(s.rfind("dcpi-exec-counts 2\nmachine ev5\nvcpus 1\n", 0), 0u) << s;
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

}  // namespace
}  // namespace dcpi::ev5
