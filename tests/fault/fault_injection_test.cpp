// The fault-injection suite (issue 18): the ways a profiling session can be
// cut short, each many times over, and after each the same three questions —
// is the database consistent (dcpi db check, after --repair where the fault
// leaves debris), is anything the guest was told is stored missing ("lost"),
// and did the command fail with a message rather than die or succeed?
//
//   disk full at every write      a simulated guest (fake GDB stub) with a
//                                 writer that fails after N bytes, for every N;
//                                 then the run resumed into the same database
//   QEMU dying at every pull      the session's watch throws at wait k; resumed
//   damaged records on the wire   bit flips and truncations of a stream
//   kills of dcpi                 `dcpi ingest` killed by SIGKILL at many points
//   kills of dcpi db merge        `dcpi db merge` killed from start to finish
//   ulimit -f                     `dcpi ingest` under file-size limits
//   a reader during writes        db check in a loop while a writer merges
//
// Kills of dcpi run and of QEMU itself are in tests/guest/e2e_run.py (killed,
// signals, serial_killed): they need the guest. The figures (cases, survived,
// lost) are printed at the end and recorded in docs/reliability.md.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "fake_gdb_stub.h"
#include "hostdump/gdb/gdb_client.h"
#include "hostdump/gdb/ring_source.h"
#include "hostdump/ingest.h"
#include "hostdump/session.h"
#include "profiledb/db_check.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "test_support.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

constexpr uint64_t kRing = 0x400000;

// The suite's figures, printed once at the end.
struct Figures {
  std::atomic<uint64_t> cases{0}, survived{0}, lost{0}, repaired{0}, duplicated{0};
};
Figures g_figures;

class FiguresPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf(
        "fault-injection: %llu cases, %llu survived, %llu lost (%llu needed db check "
        "--repair; %llu samples counted twice after a resume)\n",
        static_cast<unsigned long long>(g_figures.cases.load()),
        static_cast<unsigned long long>(g_figures.survived.load()),
        static_cast<unsigned long long>(g_figures.lost.load()),
        static_cast<unsigned long long>(g_figures.repaired.load()),
        static_cast<unsigned long long>(g_figures.duplicated.load()));
  }
};
const auto* const g_printer = ::testing::AddGlobalTestEnvironment(new FiguresPrinter);

uint64_t stored_samples(const fs::path& db) {
  if (!fs::exists(db / "FORMAT")) return 0;
  const ProfileDatabase database = ProfileDatabase::open(db);
  uint64_t samples = 0;
  for (uint64_t epoch : database.epochs())
    for (const ProfileInfo& info : database.profiles(epoch)) samples += info.total_count;
  return samples;
}

// Consistent as it stands, or after --repair; counts the repairs.
bool consistent(const fs::path& db) {
  if (!fs::exists(db / "FORMAT")) return true;
  if (profiledb::check_database(db).ok()) return true;
  ++g_figures.repaired;
  profiledb::repair_database(db);
  const profiledb::CheckReport after = profiledb::check_database(db);
  for (const std::string& problem : after.problems) ADD_FAILURE() << problem;
  return after.ok();
}

void tally(bool survived, uint64_t lost) {
  ++g_figures.cases;
  if (survived && lost == 0) ++g_figures.survived;
  g_figures.lost += lost;
}

// The guest's side of the ring on the fake stub: every resume appends
// `per_resume` sample records (2 samples each) if the ring has room.
class SimulatedGuest {
 public:
  explicit SimulatedGuest(int per_resume) : per_resume_(per_resume) {
    testing::RingImage ring(0);
    stub_options_.on_resume = [this](testing::FakeGdbStub& stub) { produce(stub); };
    image_ = ring.image();
  }
  testing::FakeStubOptions& options() { return stub_options_; }
  const std::vector<uint8_t>& image() const { return image_; }
  uint64_t produced() const { return produced_; }

  void produce(testing::FakeGdbStub& stub) {
    TransferRingHeader header;
    std::memcpy(&header, stub.memory(kRing, sizeof header).data(), sizeof header);
    for (int i = 0; i < per_resume_; ++i) {
      const std::vector<SampleEntry> entries = {{0x1000 + 4 * (sequence_ % 64), 2, 1, 0}};
      const std::vector<uint8_t> record =
          encode_record(RecordType::kSamples, 0, sequence_, 1, testing::samples_payload(entries));
      if (header.head + record.size() - header.tail > header.capacity ||
          header.head % header.capacity + record.size() > header.capacity) {
        header.records_dropped += 1;
        header.samples_dropped += 2;
        continue;  // full, or would wrap: dropped and counted, as the driver does
      }
      stub.poke(kRing + offsetof(TransferRing, data) + header.head % header.capacity, record);
      header.head += record.size();
      ++sequence_;
      produced_ += 2;
    }
    header.next_sequence = sequence_;
    std::vector<uint8_t> bytes(sizeof header);
    std::memcpy(bytes.data(), &header, sizeof header);
    stub.poke(kRing, bytes);
  }

 private:
  int per_resume_;
  testing::FakeStubOptions stub_options_;
  std::vector<uint8_t> image_;
  uint64_t sequence_ = 1;
  uint64_t produced_ = 0;
};

class ScriptedWatch : public GuestWatch {
 public:
  ScriptedWatch(int runs, int die_at) : runs_(runs), die_at_(die_at) {}
  bool finished() override { return waits_ >= runs_; }
  void wait(double) override {
    if (++waits_ == die_at_) throw std::runtime_error("QEMU died");
  }

 private:
  int runs_, die_at_, waits_ = 0;
};

SessionOptions quick_loop() {
  SessionOptions options;
  options.wait_seconds = 0;
  return options;
}

// One `dcpi run`-like session over the stub; false if it failed.
bool session(GdbClient& client, const fs::path& db, WriterFaults faults, int runs, int die_at) {
  try {
    ProfileDatabaseWriter writer(db, faults);
    GdbRingSource source(client, kRing);
    ProfileBuilder builder;
    ScriptedWatch watch(runs, die_at);
    SessionStats stats;
    run_session(source, watch, builder, writer, quick_loop(), stats);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// The guest's samples that are neither stored, nor still in its ring: lost.
uint64_t lost_samples(const SimulatedGuest& guest, testing::FakeGdbStub& stub, const fs::path& db) {
  TransferRingHeader header;
  std::memcpy(&header, stub.memory(kRing, sizeof header).data(), sizeof header);
  const std::vector<SampleEntry> one(1);
  const uint64_t span =
      encode_record(RecordType::kSamples, 0, 0, 1, testing::samples_payload(one)).size();
  const uint64_t in_ring = (header.head - header.tail) / span * 2;  // 2 samples a record
  const uint64_t stored = stored_samples(db);
  return guest.produced() > stored + in_ring ? guest.produced() - stored - in_ring : 0;
}

// Samples stored more than once: after the final session the ring is empty.
uint64_t duplicated_samples(const SimulatedGuest& guest, const fs::path& db) {
  const uint64_t stored = stored_samples(db);
  return stored > guest.produced() ? stored - guest.produced() : 0;
}

// Disk full at every write of a run, then the run resumed into the same
// database: nothing the guest released is missing.
TEST(FaultInjection, DiskFullAtEveryWriteThenResume) {
  uint64_t total = 0;
  {  // how many bytes a clean run writes
    TempDir dir;
    SimulatedGuest guest(3);
    testing::FakeGdbStub stub(guest.options());
    stub.add_memory(kRing, guest.image());
    GdbClient client({"127.0.0.1", stub.port()}, std::chrono::seconds(2));
    client.set_physical_memory_mode(true);
    ProfileDatabaseWriter writer(dir.file("db"));
    GdbRingSource source(client, kRing);
    ProfileBuilder builder;
    ScriptedWatch watch(4, -1);
    SessionStats stats;
    run_session(source, watch, builder, writer, quick_loop(), stats);
    total = writer.bytes_written();
  }
  ASSERT_GT(total, 0u);
  for (uint64_t limit = 0; limit <= total; limit += std::max<uint64_t>(1, total / 40)) {
    TempDir dir;
    const fs::path db = dir.file("db");
    { ProfileDatabaseWriter create(db); }
    SimulatedGuest guest(3);
    testing::FakeGdbStub stub(guest.options());
    stub.add_memory(kRing, guest.image());
    GdbClient client({"127.0.0.1", stub.port()}, std::chrono::seconds(2));
    client.set_physical_memory_mode(true);
    const bool first = session(client, db, {.fail_after_bytes = limit}, 4, -1);
    const uint64_t lost_after_fault = lost_samples(guest, stub, db);
    const bool resumed = session(client, db, {}, 2, -1);
    const uint64_t lost = std::max(lost_after_fault, lost_samples(guest, stub, db));
    const uint64_t duplicated = duplicated_samples(guest, db);
    g_figures.duplicated += duplicated;
    const bool ok = resumed && consistent(db);
    EXPECT_EQ(lost, 0u) << "limit " << limit;
    // A pull's merge is one batch: a failed write stores none of it.
    EXPECT_EQ(duplicated, 0u) << "limit " << limit;
    EXPECT_TRUE(ok) << "limit " << limit << (first ? " (first session passed)" : "");
    tally(ok, lost);
  }
}

// QEMU dying at every pull, then a resumed run.
TEST(FaultInjection, QemuDiesAtEveryPullThenResume) {
  for (int die_at = 1; die_at <= 8; ++die_at) {
    TempDir dir;
    const fs::path db = dir.file("db");
    SimulatedGuest guest(2);
    testing::FakeGdbStub stub(guest.options());
    stub.add_memory(kRing, guest.image());
    GdbClient client({"127.0.0.1", stub.port()}, std::chrono::seconds(2));
    client.set_physical_memory_mode(true);
    EXPECT_FALSE(session(client, db, {}, 10, die_at));
    client.interrupt();  // the watch threw while the VM ran
    const uint64_t lost_after_death = lost_samples(guest, stub, db);
    const bool resumed = session(client, db, {}, 2, -1);
    const uint64_t lost = std::max(lost_after_death, lost_samples(guest, stub, db));
    const uint64_t duplicated = duplicated_samples(guest, db);
    g_figures.duplicated += duplicated;
    const bool ok = resumed && consistent(db);
    EXPECT_EQ(lost, 0u) << "died at " << die_at;
    EXPECT_EQ(duplicated, 0u) << "died at " << die_at;
    EXPECT_TRUE(ok);
    tally(ok, lost);
  }
}

// Damaged records on the wire: rejected and counted, never stored wrongly.
TEST(FaultInjection, DamagedRecordsOnTheWire) {
  testing::RecordStream clean;
  for (uint64_t s = 0; s < 40; ++s) clean.samples({{0x2000 + 4 * s, 1, 1, 0}});
  std::mt19937 random(18);
  for (int round = 0; round < 200; ++round) {
    std::vector<uint8_t> bytes = clean.bytes;
    testing::damage(bytes, random, round);
    TempDir dir;
    ProfileBuilder builder;
    bool ok = true;
    try {
      const DecodeStats stats = ingest_recorded(bytes, builder);
      ProfileDatabaseWriter writer(dir.file("db"));
      builder.flush(writer);
      ok =
          stats.records <= 40 && stored_samples(dir.file("db")) <= 40 && consistent(dir.file("db"));
    } catch (const std::exception& error) {
      ADD_FAILURE() << "round " << round << ": " << error.what();
      ok = false;
    }
    tally(ok, 0);
  }
}

// Runs DCPI_BINARY `arguments`; `setup` runs in the child before exec.
template <typename Setup>
pid_t spawn_dcpi(const std::vector<std::string>& arguments, Setup setup) {
  const pid_t pid = fork();
  if (pid == 0) {
    setup();
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> argv{const_cast<char*>(DCPI_BINARY)};
    for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(DCPI_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

std::vector<uint8_t> large_recording() {
  testing::RecordStream stream;
  for (uint64_t s = 0; s < 20000; ++s)
    stream.samples({{0x2000 + 4 * (s % 4096), 1, 1, 0}, {0x9000, 1, 2, 0}}, 0, 1 + s / 5000);
  return stream.bytes;
}

// dcpi ingest killed at many points: the database stays consistent, and a
// recording listed as ingested is wholly there.
TEST(FaultInjection, KillsOfDcpiIngest) {
  TempDir dir;
  testing::write_file(dir.file("rec.bin"), large_recording());
  for (int delay_ms = 0; delay_ms < 24; delay_ms += 2) {
    const fs::path db = dir.file("db" + std::to_string(delay_ms));
    const pid_t pid =
        spawn_dcpi({"ingest", "--db", db.string(), "--from-file", dir.file("rec.bin")}, [] {});
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const bool completed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const bool ok = consistent(db);
    const uint64_t stored = ok ? stored_samples(db) : 0;
    // Acknowledged = exited 0: then all 40000 samples must be there.
    const uint64_t lost = completed && stored < 40000 ? 40000 - stored : 0;
    EXPECT_TRUE(ok) << delay_ms;
    EXPECT_EQ(lost, 0u) << delay_ms;
    tally(ok, lost);
  }
}

// dcpi db merge killed at many points (issue 16): OUT is consistent (after
// --repair for the one epoch a kill cut short), every epoch it holds equals
// its input epoch, the inputs are untouched, and a merge that exited 0 holds
// every sample.
TEST(FaultInjection, KillsOfDcpiDbMerge) {
  TempDir dir;
  testing::write_file(dir.file("rec.bin"), large_recording());
  std::vector<std::string> inputs;
  for (const char* name : {"a.db", "b.db"}) {
    inputs.push_back(dir.file(name));
    int status = 0;
    ::waitpid(
        spawn_dcpi({"ingest", "--db", inputs.back(), "--from-file", dir.file("rec.bin")}, [] {}),
        &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const ProfileDatabase input = ProfileDatabase::open(inputs[0]);
  const std::vector<uint64_t> input_epochs = input.epochs();  // both inputs are alike
  // From before the writer exists to after the last batch (a merge of these
  // takes some 100-300 ms here, mostly fsyncs).
  for (int delay_ms : {0, 5, 10, 20, 30, 45, 60, 80, 100, 130, 160, 200, 250, 320, 400}) {
    const fs::path out = dir.file("out" + std::to_string(delay_ms));
    const pid_t pid = spawn_dcpi({"db", "merge", out.string(), inputs[0], inputs[1]}, [] {});
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const bool completed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const bool ok = consistent(out);
    bool same = true;
    if (ok && fs::exists(out / "FORMAT")) {
      const ProfileDatabase merged = ProfileDatabase::open(out);
      for (uint64_t epoch : merged.epochs()) {
        const uint64_t from = input_epochs[(epoch - 1) % input_epochs.size()];
        same &= merged.epoch_metadata(epoch).samples == input.epoch_metadata(from).samples;
      }
    }
    const uint64_t stored = ok ? stored_samples(out) : 0;
    const uint64_t lost = completed && stored < 80000 ? 80000 - stored : 0;
    EXPECT_TRUE(ok && same) << delay_ms;
    EXPECT_EQ(lost, 0u) << delay_ms;
    EXPECT_EQ(stored_samples(inputs[0]), 40000u) << "the inputs are only read";
    tally(ok && same, lost);
  }
}

// ulimit -f at many sizes: a clean error (exit 1), no temporary files left,
// never a death by SIGXFSZ.
TEST(FaultInjection, FileSizeLimits) {
  TempDir dir;
  testing::write_file(dir.file("rec.bin"), large_recording());
  for (rlim_t limit : {0, 16, 64, 512, 4096, 16384, 65536}) {
    const fs::path db = dir.file("db" + std::to_string(limit));
    const pid_t pid =
        spawn_dcpi({"ingest", "--db", db.string(), "--from-file", dir.file("rec.bin")}, [limit] {
          const rlimit r{limit, limit};
          ::setrlimit(RLIMIT_FSIZE, &r);
        });
    int status = 0;
    ::waitpid(pid, &status, 0);
    const bool exited = WIFEXITED(status) && WEXITSTATUS(status) <= 1;
    bool leftovers = false;
    if (fs::exists(db))
      for (const auto& entry : fs::recursive_directory_iterator(db))
        leftovers |= entry.path().filename().string().starts_with(".tmp-");
    const bool ok = exited && !leftovers && consistent(db);
    EXPECT_TRUE(exited) << limit << ": status " << status;
    EXPECT_FALSE(leftovers) << limit;
    tally(ok, 0);
  }
}

// A reader during writes: db check never reports damage while a writer merges.
TEST(FaultInjection, ReaderDuringWrites) {
  TempDir dir;
  const fs::path db = dir.file("db");
  { ProfileDatabaseWriter create(db); }
  std::atomic<bool> done{false};
  std::thread writer_thread([&] {
    ProfileDatabaseWriter writer(db);
    for (uint64_t round = 0; round < 60; ++round) {
      ProfileBuilder builder;
      testing::RecordStream stream;
      stream.samples({{0x2000 + 4 * round, 1, 1, 0}}, 0, 1 + round % 3);
      ingest_recorded(stream.bytes, builder);
      builder.flush(writer);
    }
    done = true;
  });
  int checks = 0;
  while (!done) {  // one case per check, a few hundred in all
    const profiledb::CheckReport report = profiledb::check_database(db);
    for (const std::string& problem : report.problems) ADD_FAILURE() << problem;
    tally(report.ok(), 0);
    ++checks;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  writer_thread.join();
  EXPECT_GT(checks, 0);
  EXPECT_TRUE(profiledb::check_database(db).ok());
}

}  // namespace
}  // namespace dcpi
