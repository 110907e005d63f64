// Path profiles (issue 28, seed 002 §2): the plugin's path tracker without
// QEMU, Ball-Larus numbering against a brute-force enumeration of the
// executed CFG's paths, and the path file's reader (fuzzed).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <set>

#include "analysis/samples/path_numbering.h"
#include "firmware/crc32c.h"
#include "profiledb/path_file.h"
#include "profiledb/profile_db.h"
#include "qemu/machine/plugins/contexts/paths_file_writer.h"
#include "qemu/machine/plugins/contexts/procedure_loops.h"
#include "qemu/machine/plugins/contexts/thread_paths.h"

namespace dcpi {
namespace {

using contexts::PathKey;
using contexts::ThreadPaths;

// Back edges as the address rule has them (procedure_loops.h's fallback).
bool backward(uint64_t, uint64_t from, uint64_t to) { return to <= from; }

// A loop at 0x100: a diamond (0x104 -> 0x110 or fall through to 0x108),
// then a backward branch at 0x11c to 0x100; the loop runs three times.
ThreadPaths loop_paths() {
  ThreadPaths paths;
  paths.sync({0}, 0x100, 0x100);
  for (int i = 0; i < 3; ++i) {
    paths.block(0x100, 0x104, backward);  // a back edge from 0x11c after the first
    paths.current().instructions += 2;
    if (i == 1) {
      paths.block(0x110, 0x11c, backward);  // taken
    } else {
      paths.block(0x108, 0x10c, backward);  // fall-through
      paths.block(0x110, 0x11c, backward);  // the join: a fall-through from 0x10c
    }
  }
  paths.sync({0, 7}, 0x400, 0x400);  // a call: the loop's path waits
  paths.block(0x400, 0x40c, backward);
  paths.sync({0}, 0, 0x120);  // its return
  paths.block(0x120, 0x124, backward);
  paths.finish_all();
  return paths;
}

TEST(ThreadPaths, BackwardTransfersEndPathsAndCallsSuspendThem) {
  const ThreadPaths paths = loop_paths();
  std::map<std::pair<uint64_t, size_t>, uint64_t> runs;  // (start, edges) -> count
  for (const auto& [key, costs] : paths.paths()) runs[{key.start, key.edges.size()}] += costs.count;
  // Iterations 0 and 2 fall through (no edge); 1 takes 0x104 -> 0x110. The
  // last iteration's path goes on past the call to 0x124, the callee's is its own.
  const PathKey taken{0x100, 0x100, 0x11c, {{0x104, 0x110}}};
  ASSERT_TRUE(paths.paths().count(taken));
  EXPECT_EQ(paths.paths().at(taken).count, 1u);
  EXPECT_EQ(paths.paths().at(taken).instructions, 2u);
  const PathKey first{0x100, 0x100, 0x11c, {}};
  EXPECT_EQ(paths.paths().at(first).count, 1u);
  const PathKey last{0x100, 0x100, 0x124, {}};
  EXPECT_EQ(paths.paths().at(last).count, 1u);
  const PathKey callee{0x400, 0x400, 0x40c, {}};
  EXPECT_EQ(paths.paths().at(callee).count, 1u);
  EXPECT_EQ(paths.paths().size(), 4u);
}

TEST(ThreadPaths, AnExactExitIsNoTransfer) {
  ThreadPaths paths;
  paths.sync({0}, 0x100, 0x100);
  paths.block(0x100, 0x120, backward);
  paths.stopped_before(0x100);          // the block left before its head ...
  paths.block(0x100, 0x120, backward);  // ... which runs again: no back edge
  paths.stopped_before(0x110);          // the same at 0x110
  paths.block(0x110, 0x120, backward);
  paths.finish_all();
  ASSERT_EQ(paths.paths().size(), 1u);
  EXPECT_TRUE(paths.paths().begin()->first.edges.empty());
}

// newlib's strrchr as the workloads' init has it: a loop entered in its
// middle. 0x1000 bne a1 -> 0x1030 (the call and test); 0x1004 br -> 0x1068
// (return); 0x1028-0x102c the loop's top, falling into 0x1030; 0x1048 bne v0
// -> 0x1028; 0x1068 ret. The search reaches 0x1030 first, so the back edge is
// the fall-through 0x102c -> 0x1030, inside the block 0x1028-0x1048 QEMU
// translates.
std::map<uint64_t, uint32_t> middle_entered_loop() {
  std::map<uint64_t, uint32_t> code;
  for (uint64_t pc = 0x1000; pc <= 0x1068; pc += 4) code[pc] = 0x47ff041f;  // nop
  code[0x1000] = 0xf620000b;                                                // bne a1, 0x1030
  code[0x1004] = 0xc3e00018;                                                // br 0x1068
  code[0x1048] = 0xf41ffff7;                                                // bne v0, 0x1028
  code[0x1068] = 0x6bfa8001;                                                // ret
  return code;
}

TEST(ProcedureLoops, AFallThroughIntoALoopsMiddleIsItsBackEdge) {
  const std::map<uint64_t, uint32_t> code = middle_entered_loop();
  contexts::ProcedureLoops loops([&](uint64_t pc, uint32_t& word) {
    const auto it = code.find(pc);
    if (it == code.end()) return false;
    word = it->second;
    return true;
  });
  EXPECT_TRUE(loops.ends_path(1, 0, 0x1048, 0x1028)) << "entry 0 (unknown): the address rule";
  EXPECT_FALSE(loops.ends_path(1, 0x1000, 0x1048, 0x1028)) << "the bottom branch is a DAG edge";
  EXPECT_TRUE(loops.ends_path(1, 0x1000, 0x102c, 0x1030));
  EXPECT_EQ(loops.fall_through_back_edges(1, 0x1000, 0x1028, 0x1048),
            std::vector<uint64_t>{0x102c});
  EXPECT_TRUE(loops.fall_through_back_edges(1, 0x1000, 0x1030, 0x1048).empty());
  EXPECT_TRUE(loops.fall_through_back_edges(1, 0, 0x1028, 0x1048).empty());
}

// The loop's block (0x1028-0x1048) run twice: each iteration's path ends at
// the fall-through 0x102c -> 0x1030 inside it, and its instructions are
// booked into the path each ran in (current(pc)).
TEST(ThreadPaths, ABackEdgeInsideABlockEndsThePathThere) {
  auto ends = [](uint64_t, uint64_t from, uint64_t to) { return from == 0x102c && to == 0x1030; };
  ThreadPaths paths;
  paths.sync({0}, 0x1000, 0x1000);
  paths.block(0x1000, 0x1000, ends);
  paths.block(0x1030, 0x1048, ends);  // branched to the test
  for (uint64_t pc = 0x1030; pc <= 0x1048; pc += 4) paths.current(pc).instructions += 1;
  for (int i = 0; i < 3; ++i) {
    paths.block(0x1028, 0x1048, ends);  // the top, taken from 0x1048
    paths.cut_inside(0x1028, {0x102c});
    for (uint64_t pc = 0x1028; pc <= 0x1048; pc += 4) paths.current(pc).instructions += 1;
  }
  paths.block(0x104c, 0x104c, ends);
  paths.finish_all();
  // The entry, the test, back to the top, to 0x102c: 1 + 7 + 2 instructions.
  const PathKey first{0x1000, 0x1000, 0x102c, {{0x1000, 0x1030}, {0x1048, 0x1028}}};
  ASSERT_TRUE(paths.paths().count(first));
  EXPECT_EQ(paths.paths().at(first).instructions, 9u);
  // Then twice: the test from 0x1030, back to the top, to 0x102c.
  const PathKey loop{0x1000, 0x1030, 0x102c, {{0x1048, 0x1028}}};
  ASSERT_TRUE(paths.paths().count(loop));
  EXPECT_EQ(paths.paths().at(loop).count, 2u);
  EXPECT_EQ(paths.paths().at(loop).instructions, 18u);
  // The last: 0x1030 .. 0x1048, out to 0x104c.
  const PathKey last{0x1000, 0x1030, 0x104c, {}};
  ASSERT_TRUE(paths.paths().count(last));
  EXPECT_EQ(paths.paths().at(last).instructions, 7u);
  EXPECT_EQ(paths.paths().size(), 3u);
}

// Every ENTRY-EXIT path of the executed CFG, by depth-first search: the
// numbers must be exactly 0 .. count - 1.
TEST(PathNumbering, NumbersAreDenseAndUnique) {
  const std::vector<ExecutedPath> executed = {
      {0x100, 0x11c, {}},                // fall-through all the way
      {0x100, 0x11c, {{0x104, 0x110}}},  // skips 0x108-0x10c
      {0x100, 0x13c, {{0x11c, 0x130}}},  // ... to an exit elsewhere
      {0x110, 0x11c, {}},                // after a back edge to 0x110
  };
  const PathNumbering numbering = number_paths(executed);
  std::set<uint64_t> numbers;
  for (const NumberedPath& path : numbering.paths) {
    EXPECT_LT(path.number, numbering.potential);
    numbers.insert(path.number);
  }
  EXPECT_EQ(numbers.size(), executed.size());
  // Blocks 0x100-0x104, 0x108-0x10c, 0x110-0x11c, 0x130-0x13c: from 0x100
  // to 0x110 directly or through 0x108, then EXIT or 0x130 -> EXIT: 2 * 2
  // paths from ENTRY through 0x100, and 2 from the back edge's 0x110.
  EXPECT_EQ(numbering.blocks, 4u);
  EXPECT_EQ(numbering.potential, 6u);
  EXPECT_EQ(numbering.paths[1].blocks.size(), 2u);
  EXPECT_EQ(numbering.paths[1].blocks[0], std::make_pair(uint64_t{0x100}, uint64_t{0x104}));
  EXPECT_THROW(number_paths({{0x100, 0x120, {{0x110, 0x108}}}, {0x108, 0x114, {}}}),
               std::runtime_error);  // 0x108 -> 0x110 -> 0x108: a cycle
  // A DAG edge may go backward in address (a loop's arm laid out before it).
  const PathNumbering back = number_paths({{0x200, 0x20c, {{0x204, 0x100}, {0x104, 0x208}}}});
  EXPECT_EQ(back.potential, 1u);
  EXPECT_EQ(back.paths[0].blocks.size(), 3u);
}

std::vector<uint8_t> paths_file() {
  static const ThreadPaths paths = loop_paths();
  static const contexts::ThreadContexts tree;
  return contexts::encode_paths(DCPI_CONTEXTS_MACHINE_EV5,
                                {{7, DCPI_CONTEXTS_NO_CPU, 0, &tree, &paths}});
}

void reseal(std::vector<uint8_t>& bytes) {
  const uint32_t crc = crc32c(bytes.data(), bytes.size() - 8);
  std::memcpy(bytes.data() + bytes.size() - 8, &crc, sizeof crc);
}

TEST(PathFile, ThePluginsFileReadsBackAndRoundTrips) {
  const profiledb::PathProfile profile = profiledb::decode_paths(paths_file(), "p.blp");
  ASSERT_EQ(profile.paths.size(), 4u);
  EXPECT_EQ(profile.edges.size(), 1u);
  EXPECT_EQ(profile.paths[0].pid, 7u);
  EXPECT_FALSE(profile.attributed);
  profiledb::PathProfile attributed = profile;
  attributed.attributed = true;
  attributed.images = {{"00ff", "/bin/paths"}};
  attributed.paths[0].image = 0;
  const std::vector<uint8_t> bytes = profiledb::encode_paths(attributed);
  EXPECT_EQ(profiledb::encode_paths(profiledb::decode_paths(bytes, "q.blp")), bytes);
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    profiledb::decode_paths(bytes, "p.blp");
  } catch (const ProfileFormatError& error) {
    return error.what();
  }
  return "";
}

TEST(PathFile, InconsistentFilesAreRefusedWithOneLine) {
  const size_t paths_at = sizeof(DcpiPathsHeader);
  auto with_path = [&](uint32_t index, auto change) {
    std::vector<uint8_t> bytes = paths_file();
    DcpiPathRecord record;
    std::memcpy(&record, bytes.data() + paths_at + index * sizeof record, sizeof record);
    change(record);
    std::memcpy(bytes.data() + paths_at + index * sizeof record, &record, sizeof record);
    reseal(bytes);
    return error_of(bytes);
  };
  EXPECT_NE(with_path(0, [](auto& r) { r.count = 0; }).find("never ran"), std::string::npos);
  EXPECT_NE(with_path(0, [](auto& r) { r.image = 3; }).find("image index"), std::string::npos);
  EXPECT_NE(with_path(1, [](auto& r) { r.first_edge = 5; }).find("edges"), std::string::npos);
  std::vector<uint8_t> fall_through = paths_file();
  const size_t edge_at = fall_through.size() - 8 - sizeof(DcpiPathEdge);
  const uint64_t next = 0x108;  // the edge 0x104 -> 0x110 made 0x104 -> 0x108
  std::memcpy(fall_through.data() + edge_at + 8, &next, sizeof next);
  reseal(fall_through);
  EXPECT_NE(error_of(fall_through).find("fall-through"), std::string::npos);
  std::vector<uint8_t> torn = paths_file();
  torn[70] ^= 1;
  const std::string one_line = error_of(torn);
  EXPECT_NE(one_line.find("checksum"), std::string::npos);
  EXPECT_EQ(one_line.find('\n'), std::string::npos);
}

TEST(PathFileFuzz, DamagedFilesFailCleanly) {
  const std::vector<uint8_t> good = paths_file();
  std::mt19937 random(2);
  int refused = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<uint8_t> bytes = good;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) bytes[random() % bytes.size()] ^= 1u << (random() % 8);
    if (round % 7 == 0) bytes.resize(random() % bytes.size());
    if (round % 2 == 0 && bytes.size() >= 8) reseal(bytes);
    try {
      profiledb::decode_paths(bytes, "fuzz.blp");
    } catch (const ProfileFormatError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 3000);
}

}  // namespace
}  // namespace dcpi
