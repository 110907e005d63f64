// The process table (issue 29): the epoch-N/processes codec and its damage
// checks, the load-map records that fill it (hostdump/load_map_model.h),
// threads placed in their process's images, the writer's merge, and what
// the reports make of it (pid from the table, --by tid, dcpi procs) next to
// a database written before it existed.
#include "profiledb/process_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include "analysis/samples/process_listing.h"
#include "analysis/samples/profile_table.h"
#include "firmware/crc32c.h"
#include "firmware/events.h"
#include "hostdump/load_map_model.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "test_support.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

using testing::contains;
using testing::load_record;
using testing::run_dcpi;
using testing::TempDir;

ProcessTable sample_table() {
  ProcessTable table;
  table.processes[3] = {3, 0, 100, 900, 0, "/bin/threads", "threads"};
  table.processes[7] = {7, 3, 400, std::nullopt, std::nullopt, "/bin/odd\tname", ""};
  table.threads[3] = {3, 3, 100, 900, 0, "threads"};
  table.threads[4] = {4, 3, 200, 800, 0, "worker-1"};
  table.threads[7] = {7, 7, 400, std::nullopt, std::nullopt, "odd"};
  return table;
}

TEST(ProcessTable, RoundTripsWithControlCharactersReplaced) {
  const std::string text = encode_process_table(sample_table());
  EXPECT_TRUE(text.starts_with("dcpi-processes 1\n"));
  ProcessTable expected = sample_table();
  expected.processes[7].program = "/bin/odd?name";  // a tab would split the line
  EXPECT_EQ(decode_process_table(text, "processes"), expected);
  EXPECT_EQ(expected.process_of(4), 3u);
  EXPECT_EQ(expected.process_of(99), 99u);  // unknown: its own process (older databases)
  EXPECT_EQ(expected.program_name(3), "threads");
}

// Counting mode (issue 26 item 4): version 2 only when a process has counts.
TEST(ProcessTable, CountsRoundTripInVersion2) {
  ProcessTable table = sample_table();
  ProcessCounts counts{5000, 700, 2, {}};
  counts.events["dmiss"] = {123, 4000, 45, 600};
  counts.events["imiss"] = {0, 1000, 0, 100};
  table.processes[3].counts = counts;
  const std::string text = encode_process_table(table);
  EXPECT_TRUE(text.starts_with("dcpi-processes 2\n"));
  EXPECT_TRUE(contains(text, "count\t3\tdmiss\t123\t4000\t45\t600\n"));
  ProcessTable expected = table;
  expected.processes[7].program = "/bin/odd?name";
  EXPECT_EQ(decode_process_table(text, "processes"), expected);
}

// The kCounts load-map record fills the counts of its process.
TEST(ProcessTable, CountsRecordFillsTheTable) {
  CountsRecord record{};
  record.kind = static_cast<uint32_t>(LoadKind::kCounts);
  record.pid = 9;
  record.parent_pid = 1;
  record.cycles = 1000;
  record.child_cycles = 10;
  record.children = 1;
  record.slots = 2;
  record.events[0] = static_cast<uint16_t>(Event::kIMiss);
  record.events[1] = static_cast<uint16_t>(Event::kDMiss);
  record.slot[0] = {11, 500, 1, 5};
  record.slot[1] = {22, 500, 2, 5};
  LoadMapRecord as_load_map;
  std::memcpy(&as_load_map, &record, sizeof record);
  LoadMapModel model;
  EXPECT_TRUE(model.apply(as_load_map));
  const ProcessEntry& entry = model.processes().processes.at(9);
  ASSERT_TRUE(entry.counts.has_value());
  EXPECT_EQ(entry.counts->cycles, 1000u);
  EXPECT_EQ(entry.counts->events.at("imiss"), (EventCount{11, 500, 1, 5}));
  EXPECT_EQ(entry.counts->events.at("dmiss"), (EventCount{22, 500, 2, 5}));
  EXPECT_FALSE(entry.counts->events.contains(kInstructionsCountName));  // no flag: not counted
  // Counter 0's issues (ev5): the last slot, flagged.
  record.flags = kCountsInstructions;
  record.instructions = {5000, 1000, 70, 10};
  std::memcpy(&as_load_map, &record, sizeof record);
  EXPECT_TRUE(model.apply(as_load_map));
  EXPECT_EQ(model.processes().processes.at(9).counts->events.at(kInstructionsCountName),
            (EventCount{5000, 1000, 70, 10}));
  record.slots = kCountSlots + 1;  // damaged: refused, not read past the slots
  std::memcpy(&as_load_map, &record, sizeof record);
  EXPECT_FALSE(model.apply(as_load_map));
  record.slots = 1;
  record.events[0] = 200;  // no such event
  std::memcpy(&as_load_map, &record, sizeof record);
  EXPECT_FALSE(model.apply(as_load_map));
}

// Seven events (counter 1's two, counter 2's five) take two records: the
// second, kCountsContinued, adds its slots to the first's process.
TEST(ProcessTable, AContinuedCountsRecordAddsItsEvents) {
  CountsRecord record{};
  record.kind = static_cast<uint32_t>(LoadKind::kCounts);
  record.pid = 12;
  record.parent_pid = 1;
  record.cycles = 900;
  record.slots = 1;
  record.events[0] = static_cast<uint16_t>(Event::kDMiss);
  record.slot[0] = {7, 900, 0, 0};
  LoadMapRecord as_load_map;
  LoadMapModel model;
  record.flags = kCountsContinued;  // nothing before it to continue: refused
  std::memcpy(&as_load_map, &record, sizeof record);
  EXPECT_FALSE(model.apply(as_load_map));
  record.flags = 0;
  std::memcpy(&as_load_map, &record, sizeof record);
  EXPECT_TRUE(model.apply(as_load_map));
  record.flags = kCountsContinued;
  record.slots = 2;
  record.events[0] = static_cast<uint16_t>(Event::kLoads);
  record.events[1] = static_cast<uint16_t>(Event::kStores);
  record.slot[0] = {400, 450, 0, 0};
  record.slot[1] = {300, 450, 0, 0};
  std::memcpy(&as_load_map, &record, sizeof record);
  EXPECT_TRUE(model.apply(as_load_map));
  const auto& events = model.processes().processes.at(12).counts->events;
  EXPECT_EQ(events.at("dmiss"), (EventCount{7, 900, 0, 0}));
  EXPECT_EQ(events.at("loads"), (EventCount{400, 450, 0, 0}));
  EXPECT_EQ(events.at("stores"), (EventCount{300, 450, 0, 0}));
  EXPECT_FALSE(model.apply(as_load_map));  // the same events twice: refused
}

TEST(ProcessTable, RejectsDamageWithOneLine) {
  const std::string text = encode_process_table(sample_table());
  auto problem = [](const std::string& bytes) {
    try {
      decode_process_table(bytes, "epoch-00000001/processes");
    } catch (const ProfileFormatError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  std::string flipped = text;
  flipped[flipped.find("worker")] = 'W';
  EXPECT_TRUE(contains(problem(flipped), "checksum mismatch")) << problem(flipped);
  EXPECT_TRUE(contains(problem(text.substr(0, text.find("crc32c"))), "missing crc32c"));
  // A well-checksummed file whose content is wrong: every field is checked.
  auto resealed = [](std::string body) {
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", crc32c(body.data(), body.size()));
    return body + "crc32c " + crc + "\n";
  };
  const std::string magic = "dcpi-processes 1\n";
  EXPECT_TRUE(contains(problem(resealed("dcpi-processes 4\n")), "unsupported version"));
  // Counting lines only in version 2, after their process, once each.
  EXPECT_TRUE(
      contains(problem(resealed(magic + "process\t3\t0\t1\t-\t-\tp\tc\ncounts\t3\t1\t0\t0\n")),
               "malformed"));
  const std::string magic2 = "dcpi-processes 2\n", p3 = "process\t3\t0\t1\t-\t-\tp\tc\n";
  EXPECT_TRUE(contains(problem(resealed(magic2 + "counts\t3\t1\t0\t0\n" + p3)), "misplaced"));
  EXPECT_TRUE(
      contains(problem(resealed(magic2 + p3 + "count\t3\tdmiss\t1\t1\t0\t0\n")), "misplaced"));
  EXPECT_TRUE(contains(problem(resealed(magic2 + p3 + "counts\t3\t1\t0\t0\ncounts\t3\t1\t0\t0\n")),
                       "misplaced"));
  EXPECT_EQ(problem(resealed(magic2 + p3 + "counts\t3\t9\t0\t0\ncount\t3\tdmiss\t1\t9\t0\t0\n")),
            "accepted");
  EXPECT_TRUE(contains(problem(resealed(magic + "process\t3\t0\t1\t-\t0\tp\tc\n")), "malformed"));
  EXPECT_TRUE(contains(problem(resealed(magic + "thread\t0\t3\t1\t-\t-\tn\n")), "malformed"));
  EXPECT_TRUE(contains(problem(resealed(magic + "thread\t4\t3\t01\t-\t-\tn\n")), "malformed"));
  EXPECT_TRUE(
      contains(problem(resealed(magic + "thread\t4\t3\t1\t-\t-\tn\nthread\t4\t3\t1\t-\t-\tn\n")),
               "listed twice"));
  EXPECT_EQ(problem(resealed(magic)), "accepted");
  for (const std::string& bad : {flipped, text.substr(0, 10)}) {
    const std::string message = problem(bad);
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 0) << message;
  }
}

// The reader fuzz rule (test_support.h's damage): any mutation is either
// decoded or refused with ProfileFormatError, never a crash or another error.
TEST(ProcessTable, FuzzedTablesAreDecodedOrRefused) {
  ProcessTable table = sample_table();
  table.threads[4].cpu_time = ThreadCpuTime{1000, 250};  // version 3's lines too
  const std::string text = encode_process_table(table);
  std::mt19937 random(29);
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> bytes(text.begin(), text.end());
    testing::damage(bytes, random, round);
    try {
      decode_process_table(std::string(bytes.begin(), bytes.end()), "processes");
    } catch (const ProfileFormatError&) {
    }
  }
}

LoadMapRecord table_record(LoadKind kind, uint32_t pid, uint32_t parent, uint64_t time,
                           const std::string& path, int64_t status = 0) {
  LoadMapRecord record = load_record(kind, pid, 0, 0, 0, path);
  record.parent_pid = parent;
  record.time = time;
  record.exit_status = status;
  return record;
}

// What the kernel writes for: init (pid 1) forks 5, 5 execs /bin/threads
// with argv[0] "thr", starts thread 6, names it, both end, 5 exits 3.
LoadMapModel threaded_run() {
  LoadMapModel model;
  model.apply(load_record(LoadKind::kExec, 1, 0x120000000, 0x4000, 0x120000000, "/bin/init"));
  model.apply(table_record(LoadKind::kCommand, 1, 0, 10, "init"));
  model.apply(table_record(LoadKind::kFork, 5, 1, 20, "/bin/init"));
  model.apply(table_record(LoadKind::kThreadName, 5, 5, 20, "init"));
  LoadMapRecord exec =
      load_record(LoadKind::kExec, 5, 0x120000000, 0x8000, 0x120000000, "/bin/threads");
  exec.parent_pid = 1;
  exec.time = 30;
  model.apply(exec);
  model.apply(table_record(LoadKind::kThreadName, 5, 5, 30, "threads"));
  model.apply(table_record(LoadKind::kCommand, 5, 1, 30, "thr"));
  model.apply(table_record(LoadKind::kThread, 6, 5, 40, "threads"));
  model.apply(table_record(LoadKind::kThreadName, 6, 5, 45, "cruncher"));
  model.apply(table_record(LoadKind::kThreadExit, 6, 5, 50, "cruncher"));
  model.apply(table_record(LoadKind::kThreadExit, 5, 5, 60, "threads", 3 << 8));
  model.apply(table_record(LoadKind::kExit, 5, 1, 60, "/bin/threads", 3 << 8));
  return model;
}

TEST(ProcessTable, LoadMapRecordsFillIt) {
  const LoadMapModel model = threaded_run();
  EXPECT_EQ(model.rejected_records(), 0u);
  const ProcessTable& table = model.processes();
  ASSERT_EQ(table.processes.count(5), 1u);
  const ProcessEntry& p = table.processes.at(5);
  EXPECT_EQ(p.parent, 1u);
  EXPECT_EQ(p.start, 20u);  // the fork, not the exec
  EXPECT_EQ(p.end, 60u);
  EXPECT_EQ(p.status, 3 << 8);
  EXPECT_EQ(p.program, "/bin/threads");
  EXPECT_EQ(p.command, "thr");
  EXPECT_EQ(table.threads.at(6).pid, 5u);
  EXPECT_EQ(table.threads.at(6).name, "cruncher");
  EXPECT_EQ(table.threads.at(6).start, 40u);
  EXPECT_EQ(table.threads.at(6).end, 50u);
  EXPECT_EQ(table.threads.at(5).name, "threads");
  EXPECT_EQ(table.processes.at(1).command, "init");
}

TEST(ProcessTable, ThreadSamplesArePlacedInTheirProcessImages) {
  const LoadMapModel model = threaded_run();
  const auto placed = model.place(6, 0x120000010);
  ASSERT_TRUE(placed);
  EXPECT_EQ(model.images()[placed->image_id].path, "/bin/threads");
  EXPECT_EQ(placed->address, 0x120000010u);
}

TEST(ProcessTable, MalformedTableRecordsAreRejected) {
  LoadMapModel model;
  EXPECT_FALSE(model.apply(table_record(LoadKind::kThread, 6, 0, 1, "orphan")));  // no process
  LoadMapRecord unterminated = table_record(LoadKind::kThreadName, 6, 5, 1, "");
  std::memset(unterminated.path, 'a', sizeof unterminated.path);
  EXPECT_FALSE(model.apply(unterminated));
  EXPECT_FALSE(model.apply(table_record(LoadKind::kCommand, 5, 1, 1, "bad\nname")));
  EXPECT_EQ(model.rejected_records(), 3u);
  EXPECT_TRUE(model.processes().empty());
}

// A database as dcpi run writes it: rows keyed by thread, the table beside.
void write_threaded_database(const std::string& directory, bool with_table) {
  ProfileDatabaseWriter writer(directory);
  writer.begin_batch();
  const ImageIdentity image{"ab", "/bin/threads", 0x8000, false};
  writer.merge_profile(1, image, 0,
                       {{5, 0, 0x120000010, 10}, {6, 1, 0x120000010, 30}, {6, 1, 0x120000020, 2}});
  if (with_table) writer.merge_processes(1, threaded_run().processes());
  EpochMetadata metadata;
  metadata.epoch = 1;
  metadata.samples = 42;
  metadata.entries = 3;
  writer.merge_epoch_metadata(metadata);
  writer.commit_batch();
}

TEST(ProcessTable, WriterMergesNewerEntriesOverOlder) {
  TempDir dir;
  ProfileDatabaseWriter writer(dir.file("db"));
  ProcessTable first;
  first.processes[5] = {5, 1, 20, std::nullopt, std::nullopt, "/bin/threads", "thr"};
  first.processes[9] = {9, 1, 25, std::nullopt, std::nullopt, "/bin/other", "other"};
  ProcessTable later;
  later.processes[5] = {5, 1, 20, 60, 0, "/bin/threads", "thr"};
  for (const ProcessTable* table : {&first, &later}) {
    writer.begin_batch();
    writer.merge_processes(1, *table);
    writer.commit_batch();
  }
  const auto stored = read_process_table(std::filesystem::path(dir.file("db")) / "epoch-00000001");
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->processes.at(5).end, 60u);  // the newer entry
  EXPECT_EQ(stored->processes.count(9), 1u);    // the other kept
}

TEST(ProcessTable, ReportsGroupThreadsIntoTheirProcess) {
  TempDir dir;
  write_threaded_database(dir.file("db"), true);
  const SampleSet samples = load_samples(ProfileDatabase::open(dir.file("db")), {});
  uint64_t of_process = 0;
  for (const Profile& profile : samples.profiles)
    for (const ProfileRow& row : profile.rows) {
      EXPECT_EQ(row.pid, 5u);
      if (row.tid == 6) of_process += row.count;
    }
  EXPECT_EQ(of_process, 32u);
  EXPECT_EQ(programs_by_pid(samples).at(5), std::vector<std::string>{"/bin/threads"});

  const auto by_tid = run_dcpi({"prof", "--db", dir.file("db"), "--by", "tid"});
  EXPECT_EQ(by_tid.exit_code, 0) << by_tid.err;
  EXPECT_TRUE(contains(by_tid.out, "6:cruncher")) << by_tid.out;
  EXPECT_TRUE(contains(by_tid.out, "5:threads")) << by_tid.out;
  const auto by_pid = run_dcpi({"prof", "--db", dir.file("db"), "--by", "pid"});
  EXPECT_TRUE(contains(by_pid.out, "42")) << by_pid.out;  // all threads in one row
  const auto one = run_dcpi({"prof", "--db", dir.file("db"), "--by", "tid", "--tid", "6"});
  EXPECT_TRUE(contains(one.out, "cycles = 32")) << one.out;
  const auto procs = run_dcpi({"procs", "--db", dir.file("db")});
  EXPECT_EQ(procs.exit_code, 0) << procs.err;
  EXPECT_TRUE(contains(procs.out, "exit 3")) << procs.out;
  EXPECT_TRUE(contains(procs.out, "cruncher")) << procs.out;
  EXPECT_TRUE(contains(procs.out, "/bin/threads")) << procs.out;
}

TEST(ProcessTable, DatabasesWithoutATableReadAsBefore) {
  TempDir dir;
  write_threaded_database(dir.file("db"), false);
  const SampleSet samples = load_samples(ProfileDatabase::open(dir.file("db")), {});
  for (const Profile& profile : samples.profiles)
    for (const ProfileRow& row : profile.rows) EXPECT_EQ(row.pid, row.tid);  // keyed by process
  const auto procs = run_dcpi({"procs", "--db", dir.file("db")});
  EXPECT_EQ(procs.exit_code, 0) << procs.err;
  EXPECT_TRUE(contains(procs.out, "no process table")) << procs.out;
  const auto check = run_dcpi({"db", "check", dir.file("db")});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST(ProcessTable, DamagedTableIsAOneLineError) {
  TempDir dir;
  write_threaded_database(dir.file("db"), true);
  const std::string file = dir.file("db") + "/epoch-00000001/processes";
  std::ofstream(file, std::ios::app) << "x";
  const auto prof = run_dcpi({"prof", "--db", dir.file("db"), "--by", "pid"});
  EXPECT_NE(prof.exit_code, 0);
  EXPECT_TRUE(contains(prof.err, "processes")) << prof.err;
  EXPECT_EQ(std::count(prof.err.begin(), prof.err.end(), '\n'), 1) << prof.err;
  const auto check = run_dcpi({"db", "check", dir.file("db")});
  EXPECT_NE(check.exit_code, 0);
}

}  // namespace
}  // namespace dcpi

namespace dcpi {
namespace {

// A thread's time under -icount's one clock (kernel/cpu_time.h): version 3
// only when a thread has it, its line right after its thread's.
TEST(ProcessTable, ThreadCpuTimeRoundTripsInVersion3) {
  ProcessTable table = sample_table();
  table.threads[4].cpu_time = ThreadCpuTime{1000, 250};
  const std::string text = encode_process_table(table);
  EXPECT_TRUE(text.starts_with("dcpi-processes 3\n"));
  EXPECT_TRUE(contains(text, "thread\t4\t3\t200\t800\t0\tworker-1\ncputime\t4\t1000\t250\n"));
  ProcessTable expected = table;
  expected.processes[7].program = "/bin/odd?name";
  EXPECT_EQ(decode_process_table(text, "processes"), expected);
  // Misplaced (not after its thread, or before any thread: id 0 must not
  // match "no thread"), more own than thread cycles, or twice.
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"cputime\t4\t1000\t250\n", "cputime\t3\t1000\t250\n"},
           {"dcpi-processes 3\n", "dcpi-processes 3\ncputime\t0\t1\t1\n"},
           {"cputime\t4\t1000\t250\n", "cputime\t4\t1000\t1001\n"},
           {"cputime\t4\t1000\t250\n", "cputime\t4\t1000\t250\ncputime\t4\t1000\t250\n"}}) {
    std::string bad = text.substr(0, text.rfind("crc32c "));
    bad.replace(bad.find(from), from.size(), to);
    char crc[32];
    std::snprintf(crc, sizeof crc, "crc32c %08x\n", crc32c(bad.data(), bad.size()));
    EXPECT_THROW(decode_process_table(bad + crc, "processes"), ProfileFormatError) << to;
  }
}

// A kThreadExit record carries the thread's cycles running and its own
// share (load_address, size); zeros (a guest before them) carry nothing.
TEST(ProcessTable, ThreadExitRecordsCarryTheThreadsCpuTime) {
  LoadMapModel model = threaded_run();
  LoadMapRecord exit = table_record(LoadKind::kThreadExit, 7, 5, 55, "cruncher");
  exit.load_address = 8000;
  exit.size = 2000;
  ASSERT_TRUE(model.apply(exit));
  EXPECT_EQ(model.processes().threads.at(7).cpu_time, (ThreadCpuTime{8000, 2000}));
  EXPECT_FALSE(model.processes().threads.at(6).cpu_time.has_value());  // zeros: none
}

}  // namespace
}  // namespace dcpi
