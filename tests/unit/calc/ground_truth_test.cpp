// The truth file, version 2 (issue 14; docs/exec-counts-format.md): per PC
// cycles and stall cycles by cause with culprits, event counts; version 1
// still reads with cycles = executions; malformed lines give one-line errors.
#include "analysis/calc/truth/ground_truth.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

namespace dcpi::calc {
namespace {

constexpr const char* kVersion2 =
    "dcpi-exec-counts 2\n"
    "machine ev5\n"
    "vcpus 1\n"
    "insn 9810 100\n"
    "insn 9834 100   # a trailing comment\n"
    "edge 9840 9810 99\n"
    "cycles 9810 200\n"
    "cycles 9834 11400\n"
    "stall 9834 slot 50\n"
    "stall 9834 dcache 9000 981c\n"
    "stall 9834 wbuf 2000\n"
    "stall 9834 dcache 250 981c\n"
    "event instructions 1300\n"
    "event dcache_miss 100\n";

bool read(const std::string& text, GroundTruth& truth, std::string& error) {
  std::istringstream in(text);
  return read_ground_truth(in, truth, error);
}

std::string error_of(const std::string& text) {
  GroundTruth truth;
  std::string error;
  EXPECT_FALSE(read(text, truth, error)) << text;
  return error;
}

TEST(GroundTruthV2, ReadsCyclesStallsCulpritsAndEvents) {
  GroundTruth truth;
  std::string error;
  ASSERT_TRUE(read(kVersion2, truth, error)) << error;
  EXPECT_EQ(truth.version, 2);
  EXPECT_EQ(truth.machine, "ev5");
  EXPECT_TRUE(truth.timed());
  EXPECT_EQ(truth.vcpus, 1u);
  EXPECT_EQ(truth.executions(0x9834), 100u);
  EXPECT_EQ(truth.cycles(0x9834), 11400u);
  EXPECT_EQ(truth.cycles(0x9838), 0u);
  EXPECT_EQ(truth.transfers(0x9840, 0x9810), 99u);
  const std::vector<TruthStall>& stalls = truth.stalls(0x9834);
  ASSERT_EQ(stalls.size(), 3u);  // the two dcache lines with one culprit add up
  EXPECT_EQ(stalls[1].cause, StallCause::kDCacheMiss);
  EXPECT_EQ(stalls[1].cycles, 9250u);
  EXPECT_EQ(stalls[1].culprit, 0x981cu);
  EXPECT_FALSE(stalls[2].culprit.has_value());
  EXPECT_TRUE(truth.stalls(0x9810).empty());
  EXPECT_EQ(truth.events().at("dcache_miss"), 100u);
}

TEST(GroundTruthV2, VersionOneIsQemuWithCyclesEqualToExecutions) {
  GroundTruth truth;
  std::string error;
  ASSERT_TRUE(read("dcpi-exec-counts 1\nvcpus 4\ninsn 1000 7\n", truth, error)) << error;
  EXPECT_EQ(truth.version, 1);
  EXPECT_EQ(truth.machine, "qemu");
  EXPECT_FALSE(truth.timed());
  EXPECT_EQ(truth.cycles(0x1000), 7u);
  EXPECT_TRUE(truth.all_stalls().empty());
  // A version-2 file of the qemu machine: the same.
  GroundTruth qemu;
  ASSERT_TRUE(read("dcpi-exec-counts 2\nmachine qemu\ninsn 1000 7\n", qemu, error)) << error;
  EXPECT_FALSE(qemu.timed());
  EXPECT_EQ(qemu.cycles(0x1000), 7u);
}

// The truth's words are isa/stall_causes.h's: every cause the truth books
// reads back as itself; the E0 write-back hazard is booked as slotting.
TEST(GroundTruthV2, CauseWordsAreTheOneTable) {
  for (const isa::StallCauseInfo& c : isa::kStallCauses) {
    EXPECT_EQ(parse_truth_cause(c.truth_name), c.booked_as) << c.truth_name;
    EXPECT_EQ(isa::booked_as(c.booked_as), c.booked_as);
  }
  EXPECT_EQ(parse_truth_cause("wbuf"), StallCause::kWriteBufferOverflow);
  EXPECT_EQ(parse_truth_cause("slot"), StallCause::kSlotting);
  EXPECT_TRUE(isa::is_dynamic(StallCause::kDCacheMiss));
  EXPECT_FALSE(isa::is_dynamic(StallCause::kSlotting));
  EXPECT_FALSE(isa::is_dynamic(StallCause::kOther));
  EXPECT_TRUE(isa::is_truth_static(StallCause::kDependency));
  EXPECT_FALSE(isa::is_truth_static(StallCause::kBranchMispredict));
  EXPECT_FALSE(parse_truth_cause("dmiss"));
}

TEST(GroundTruthV4, VisibleCyclesAreTheOraclesExpectation) {
  GroundTruth truth;
  std::string error;
  std::istringstream in(
      "dcpi-exec-counts 4\nmachine ev5\ninsn 1000 2\ninsn 1004 2\ncycles 1000 10\n"
      "cycles 1004 30\nevent visible_cycles 12\nvisible 1000 12\n");
  ASSERT_TRUE(read_ground_truth(in, truth, error)) << error;
  EXPECT_TRUE(truth.knows_visibility());
  EXPECT_EQ(truth.visible_cycles(0x1000), 12u);  // PAL's moved here
  EXPECT_EQ(truth.visible_cycles(0x1004), 0u);   // none visible
  EXPECT_EQ(truth.cycles(0x1004), 30u);
  GroundTruth older;
  std::istringstream v2("dcpi-exec-counts 2\nmachine ev5\ninsn 1000 2\ncycles 1000 10\n");
  ASSERT_TRUE(read_ground_truth(v2, older, error)) << error;
  EXPECT_FALSE(older.knows_visibility());
  EXPECT_EQ(older.visible_cycles(0x1000), 10u);
}

TEST(GroundTruthV2, MalformedLinesAreOneLineErrors) {
  const std::string v2 = "dcpi-exec-counts 2\n";
  const std::string expected =
      "expected 'dcpi-exec-counts 1' or 'dcpi-exec-counts 2' or 'dcpi-exec-counts 3' or "
      "'dcpi-exec-counts 4' or 'dcpi-exec-counts 5' or 'dcpi-exec-counts 6'";
  EXPECT_EQ(error_of("dcpi-exec-counts 0\n"), "line 1: " + expected);
  EXPECT_EQ(error_of("dcpi-exec-counts 02\n"), "line 1: " + expected);
  EXPECT_EQ(error_of("dcpi-exec-counts 7\n"),
            "line 1: version 7 is newer than this reader knows (1 to 6): a newer dcpi wrote it");
  EXPECT_EQ(error_of("dcpi-exec-counts 4\nspace 7 0\n"), "line 2: 'space' needs version 5");
  const std::string v5 = "dcpi-exec-counts 5\nmachine ev5\n";
  EXPECT_EQ(error_of(v5 + "space 7 0\nspace 7 0\n"), "line 4: space 7 0 appears twice");
  EXPECT_EQ(error_of(v5 + "space 7 0\nevent cycles 5\n"),
            "line 4: an event line inside a space's lines");
  EXPECT_EQ(error_of(v5 + "map 7 0 120000000 0 120000000 - /bin/x\n"),
            "line 3: empty or wrapping map range");
  EXPECT_EQ(error_of(v5 + "map 7 0 120000000 10 120000000 -\n"),
            "line 3: 'map' takes 7 fields, not 6");
  EXPECT_EQ(error_of(v5 + "space 7 99999999999 \n"), "line 3: generation 99999999999 is too large");
  EXPECT_EQ(error_of("dcpi-exec-counts 3\nvisible 1000 5\n"), "line 2: 'visible' needs version 4");
  EXPECT_EQ(error_of(""), "empty file: " + expected);
  EXPECT_EQ(error_of(v2 + "image 0123 /bin/copy\n"), "line 2: 'image' needs version 3");
  EXPECT_EQ(error_of("dcpi-exec-counts 1\ncycles 1000 5\n"), "line 2: 'cycles' needs version 2");
  EXPECT_EQ(error_of(v2 + "stall 1000 dmiss 5\n"), "line 2: unknown stall cause 'dmiss'");
  EXPECT_EQ(error_of(v2 + "machine ev6\n"), "line 2: unknown machine 'ev6' (qemu or ev5)");
  EXPECT_EQ(error_of(v2 + "insn 1000 -5\n"), "line 2: bad count '-5'");
  EXPECT_EQ(error_of(v2 + "insn 1000 5 6\n"), "line 2: 'insn' takes 2 fields, not 3");
  EXPECT_EQ(error_of(v2 + "stall 1000 dcache\n"), "line 2: 'stall' takes 3 or 4 fields, not 2");
  EXPECT_EQ(error_of(v2 + "stall 1000 dcache 5 zz\n"), "line 2: bad address 'zz'");
  EXPECT_EQ(error_of(v2 + "event Bad-Name 5\n"), "line 2: bad event name 'Bad-Name'");
  EXPECT_EQ(error_of(v2 + "cycles 1000 18446744073709551616\n"),
            "line 2: bad count '18446744073709551616'");
  EXPECT_EQ(error_of(v2 + "bogus 1\n"), "line 2: unknown line kind 'bogus'");
  EXPECT_EQ(error_of("dcpi-exec-counts 1\ncpus 2\nevent cycles 5\n"),
            "line 3: 'event' needs version 2");
}

// The error names the file as well as the line (firmware/truth_format.h).
TEST(GroundTruthV2, FileErrorsNameTheFile) {
  const std::string path = ::testing::TempDir() + "ground_truth_test.truth";
  {
    std::ofstream out(path);
    out << "dcpi-exec-counts 1\ninsn 1000 7\nsample 1000 3\n";
  }
  GroundTruth truth;
  std::string error;
  EXPECT_FALSE(read_ground_truth_file(path, truth, error));
  EXPECT_EQ(error, path + ": line 3: unknown line kind 'sample'");
  EXPECT_FALSE(read_ground_truth_file(path + ".absent", truth, error));
  EXPECT_EQ(error, "cannot open " + path + ".absent");
  std::remove(path.c_str());
}

// Damaged copies of a good file: the reader either accepts them or says
// which line is wrong, in one line, and never crashes.
TEST(GroundTruthV2, DamagedFilesNeverCrashAndErrorsAreOneLine) {
  std::mt19937 random(14);
  const std::string good = kVersion2;
  for (int round = 0; round < 3000; ++round) {
    std::string text = good;
    if (round % 3 == 0) {
      text.resize(random() % text.size());
    } else {
      for (int i = 0; i < 1 + round % 4; ++i)
        text[random() % text.size()] = " \n#-x0Zg9\t"[random() % 10];
    }
    GroundTruth truth;
    std::string error;
    if (!read(text, truth, error)) {
      EXPECT_FALSE(error.empty());
      EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
  }
}

}  // namespace
}  // namespace dcpi::calc

namespace dcpi::calc {
namespace {

// Version 3 (issue 30): the images the run booted, so that a reader can
// refuse another program's truth.
TEST(GroundTruthV3, NamesTheImagesItCovers) {
  GroundTruth truth;
  std::string error;
  std::istringstream in(
      "dcpi-exec-counts 3\nimage 0123abcd /bin/copy\nimage - palcode.elf\nvcpus 1\n"
      "insn 1000 7\n");
  ASSERT_TRUE(read_ground_truth(in, truth, error)) << error;
  EXPECT_EQ(truth.version, 3);
  ASSERT_EQ(truth.images.size(), 2u);
  EXPECT_EQ(truth.images[0].build_id, "0123abcd");
  EXPECT_EQ(truth.images[0].path, "/bin/copy");
  EXPECT_EQ(truth.images[1].build_id, "-");
  EXPECT_EQ(truth.executions(0x1000), 7u);
}

}  // namespace
}  // namespace dcpi::calc

namespace dcpi::calc {
namespace {

// Two programs linked at the same address, run by two processes, and a
// library each maps at its own base: version 5 keeps them apart, and
// for_image gives each image its own lines at its ELF addresses.
TEST(GroundTruthV5, EachImageGetsItsOwnSpacesLines) {
  std::istringstream in(
      "dcpi-exec-counts 5\nmachine ev5\n"
      "insn fffffc0000001000 9\ncycles fffffc0000001000 9\n"
      "event cycles 100\nevent visible_cycles 28\n"
      "space 7 0\n"
      "insn 120000000 3\ncycles 120000000 30\nvisible 120000000 28\n"
      "edge 120000000 20000000 3\n"
      "insn 20000010 3\ncycles 20000010 6\nstall 20000010 dcache 3 20000010\n"
      "space 8 1\n"
      "insn 120000000 5\ncycles 120000000 5\nedge 120000000 fffffc0000001000 5\n"
      "insn 30000010 1\ncycles 30000010 4\nstall 30000010 dep 3 120000000\n"
      "map 7 0 120000000 2000 120000000 aa /bin/first\n"
      "map 7 0 20000000 4000 0 cc /lib/libc.so.6.1\n"
      "map 8 1 120000000 2000 120000000 bb /bin/second\n"
      "map 8 1 30000000 4000 0 cc /lib/libc.so.6.1\n");
  GroundTruth truth;
  std::string error;
  ASSERT_TRUE(read_ground_truth(in, truth, error)) << error;
  // The whole file sums the spaces by address, as version 4 did.
  EXPECT_EQ(truth.executions(0x120000000), 8u);
  EXPECT_TRUE(truth.maps_image("aa", "/bin/first"));
  EXPECT_FALSE(truth.maps_image("dd", "/bin/first"));

  const GroundTruth first = truth.for_image("aa", "/bin/first");
  EXPECT_EQ(first.executions(0x120000000), 3u);
  EXPECT_EQ(first.cycles(0x120000000), 30u);
  EXPECT_TRUE(first.knows_visibility());  // the whole-run events come along
  EXPECT_EQ(first.visible_cycles(0x120000000), 28u);
  EXPECT_EQ(first.transfers(0x120000000, GroundTruth::kOutsideImage), 3u);  // into libc
  EXPECT_EQ(first.executions(0xfffffc0000001000), 0u);

  const GroundTruth second = truth.for_image("bb", "/bin/second");
  EXPECT_EQ(second.executions(0x120000000), 5u);
  EXPECT_EQ(second.transfers(0x120000000, 0xfffffc0000001000), 5u);  // the kernel's stays

  // libc at 0x20000000 in one process and 0x30000000 in the other: both at
  // its ELF address 0x10; a culprit in the program is dropped.
  const GroundTruth libc = truth.for_image("cc", "/lib/libc.so.6.1");
  EXPECT_EQ(libc.executions(0x10), 4u);
  EXPECT_EQ(libc.cycles(0x10), 10u);
  ASSERT_EQ(libc.stalls(0x10).size(), 2u);
  EXPECT_EQ(libc.stalls(0x10)[0].culprit, std::optional<uint64_t>(0x10));
  EXPECT_EQ(libc.stalls(0x10)[1].culprit, std::nullopt);

  // The kernel is in no space: the whole file as it is.
  const GroundTruth kernel = truth.for_image("ee", "/boot/kernel");
  EXPECT_EQ(kernel.executions(0xfffffc0000001000), 9u);
}

// Two runs of one program stored in one epoch (dcpi run --seed): their
// truths add up, space by space, each image's mapping once.
TEST(GroundTruthSum, TwoRunsAddUpSpaceBySpace) {
  const std::string run =
      "dcpi-exec-counts 5\nmachine ev5\nvcpus 1\n"
      "insn fffffc0000001000 9\ncycles fffffc0000001000 9\nevent cycles 100\n"
      "space 7 0\n"
      "insn 120000000 3\ncycles 120000000 30\nedge 120000000 120000010 3\n"
      "stall 120000000 dcache 12 120000010\n"
      "map 7 0 120000000 2000 120000000 aa /bin/first\n";
  GroundTruth sum, second;
  std::string error;
  ASSERT_TRUE(read(run, sum, error)) << error;
  ASSERT_TRUE(read(run + "space 8 0\ninsn 120000000 1\n"
                         "map 8 0 120000000 2000 120000000 aa /bin/first\n",
                   second, error))
      << error;
  sum.add(second);
  EXPECT_EQ(sum.executions(0xfffffc0000001000), 18u);
  EXPECT_EQ(sum.executions(0x120000000), 7u);
  EXPECT_EQ(sum.transfers(0x120000000, 0x120000010), 6u);
  ASSERT_EQ(sum.stalls(0x120000000).size(), 1u);  // the same cause and culprit: one line
  EXPECT_EQ(sum.stalls(0x120000000)[0].cycles, 24u);
  EXPECT_EQ(sum.events().at("cycles"), 200u);
  EXPECT_EQ(sum.maps.size(), 2u);  // space 7's mapping once, space 8's
  const GroundTruth first = sum.for_image("aa", "/bin/first");
  EXPECT_EQ(first.executions(0x120000000), 7u);
  EXPECT_EQ(first.cycles(0x120000000), 60u);
  EXPECT_EQ(sum.spaces.at({7, 0})->executions(0x120000000), 6u);
  EXPECT_EQ(second.spaces.at({7, 0})->executions(0x120000000), 3u);  // the addend unchanged
}

TEST(GroundTruthSum, OnlyTheSameMachineAndVersionAdd) {
  GroundTruth ev5, qemu;
  std::string error;
  ASSERT_TRUE(read(kVersion2, ev5, error)) << error;
  ASSERT_TRUE(read("dcpi-exec-counts 1\ninsn 9810 1\n", qemu, error)) << error;
  EXPECT_THROW(ev5.add(qemu), std::invalid_argument);
  EXPECT_EQ(ev5.executions(0x9810), 100u);
}

TEST(GroundTruthV6, EventsPerPcPerSpaceAndImage) {
  std::istringstream in(
      "dcpi-exec-counts 6\nmachine ev5\n"
      "insn fffffc0000001000 9\n"
      "event imiss 7\nevent dmiss 0\n"
      "pcevent fffffc0000001000 imiss 2\n"
      "space 7 0\n"
      "insn 120000000 3\npcevent 120000000 imiss 4\npcevent 120000004 branchmp 2\n"
      "space 8 0\n"
      "insn 120000000 5\npcevent 120000000 imiss 1\n"
      "map 7 0 120000000 2000 120000000 aa /bin/first\n"
      "map 8 0 120000000 2000 120000000 bb /bin/second\n");
  GroundTruth truth;
  std::string error;
  ASSERT_TRUE(read_ground_truth(in, truth, error)) << error;
  EXPECT_EQ(truth.version, 6);
  // The whole file sums the spaces by address; `event imiss` is their sum.
  EXPECT_EQ(truth.pc_events().at("imiss").at(0x120000000), 5u);
  EXPECT_EQ(truth.pc_events().at("imiss").at(0xfffffc0000001000), 2u);
  EXPECT_EQ(truth.events().at("imiss"), 7u);
  const GroundTruth first = truth.for_image("aa", "/bin/first");
  EXPECT_EQ(first.pc_events().at("imiss").at(0x120000000), 4u);
  EXPECT_EQ(first.pc_events().at("branchmp").at(0x120000004), 2u);
  const GroundTruth second = truth.for_image("bb", "/bin/second");
  EXPECT_EQ(second.pc_events().at("imiss").at(0x120000000), 1u);
  EXPECT_FALSE(second.pc_events().contains("branchmp"));
  const GroundTruth kernel = truth.for_image("ee", "/boot/kernel");
  EXPECT_EQ(kernel.pc_events().at("imiss").size(), 1u);
}

TEST(GroundTruthV6, PcEventNeedsVersionSixAndAName) {
  EXPECT_NE(error_of("dcpi-exec-counts 5\npcevent 10 imiss 1\n").find("needs version 6"),
            std::string::npos);
  EXPECT_NE(error_of("dcpi-exec-counts 6\npcevent 10 I-MISS 1\n").find("bad event name"),
            std::string::npos);
  EXPECT_NE(error_of("dcpi-exec-counts 6\npcevent 10 imiss\n").find("takes 3 fields"),
            std::string::npos);
}

}  // namespace
}  // namespace dcpi::calc
