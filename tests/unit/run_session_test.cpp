// The one pull loop (hostdump/session.h) with scripted sources, and
// `dcpi run --print-qemu-command`, the argv the Python tests boot with.
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

#include "analysis/cli/cli_options.h"
#include "fake_gdb_stub.h"
#include "hostdump/gdb/gdb_client.h"
#include "hostdump/gdb/ring_source.h"
#include "hostdump/serial/stream_source.h"
#include "hostdump/session.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "qemu/host/machine_config.h"
#include "test_support.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

// A guest that finishes after `runs` waits, or throws on wait number `fail_at`.
class ScriptedWatch : public GuestWatch {
 public:
  explicit ScriptedWatch(int runs, int fail_at = -1) : runs_(runs), fail_at_(fail_at) {}
  bool finished() override { return waits_ >= runs_; }
  void wait(double) override {
    if (++waits_ == fail_at_) throw std::runtime_error("QEMU died");
  }
  int waits() const { return waits_; }

 private:
  int runs_;
  int fail_at_;
  int waits_ = 0;
};

// A ring-like source: one epoch record per collection, resumes counted.
class CountingSource : public RecordSource {
 public:
  Collected collect() override {
    Collected collected;
    collected.delivered = true;
    collected.stats = DecodeStats{};
    collected.guest_cycles = ++collections_ * 1000;
    return collected;
  }
  void resume() override { ++resumes_; }
  bool at_end(bool guest_done) override { return guest_done; }
  DecodeStats total_stats() const override { return {}; }
  int collections_ = 0;
  int resumes_ = 0;
};

std::filesystem::path fresh_directory(const char* name) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(path);
  return path;
}

// A guest whose ring fills: the first wait is 1/32 of the interval and
// doubles while pulls find the ring nearly empty; a pull that finds it over
// an eighth full quarters the next wait (not below 1/32).
class FillingSource : public CountingSource {
 public:
  explicit FillingSource(std::vector<double> fills) : fills_(std::move(fills)) {}
  Collected collect() override {
    Collected collected = CountingSource::collect();
    if (static_cast<size_t>(collections_ - 1) < fills_.size())
      collected.ring_fill = fills_[collections_ - 1];
    return collected;
  }

 private:
  std::vector<double> fills_;
};

class RecordingWatch : public ScriptedWatch {
 public:
  using ScriptedWatch::ScriptedWatch;
  void wait(double seconds) override {
    waited.push_back(seconds);
    ScriptedWatch::wait(seconds);
  }
  std::vector<double> waited;
};

TEST(Session, PullsSoonerWhileTheRingFills) {
  ProfileDatabaseWriter writer(fresh_directory("dcpi-session-test-fill"));
  ProfileBuilder builder;
  FillingSource source({0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.05, 0.0});
  RecordingWatch watch(8);
  SessionStats stats;
  SessionOptions options;
  options.wait_seconds = 0.8;
  run_session(source, watch, builder, writer, options, stats);
  const std::vector<double> expected{0.05, 0.1, 0.2, 0.4, 0.8, 0.2, 0.05, 0.1};
  ASSERT_EQ(watch.waited.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_DOUBLE_EQ(watch.waited[i], expected[i]);
  EXPECT_EQ(next_wait_seconds(0.1, 0.8, std::nullopt), 0.8);  // no ring: the interval
}

TEST(Session, PullsOnceMoreAfterTheGuestFinishes) {
  ProfileDatabaseWriter writer(fresh_directory("dcpi-session-test-a"));
  ProfileBuilder builder;
  CountingSource source;
  ScriptedWatch watch(3);
  SessionStats stats;
  int progress_calls = 0;
  SessionOptions options;
  options.wait_seconds = 0;
  options.progress = [&](const SessionStats&) { ++progress_calls; };
  run_session(source, watch, builder, writer, options, stats);
  EXPECT_EQ(source.collections_, 4);  // before each of the 3 waits, and the final pull
  EXPECT_EQ(source.resumes_, 3);
  EXPECT_EQ(stats.pulls, 4u);
  EXPECT_EQ(stats.guest_cycles, 4000u);
  EXPECT_EQ(progress_calls, 1);  // only the final one within 2 s
}

TEST(Session, ZeroDurationCollectsOnce) {
  ProfileDatabaseWriter writer(fresh_directory("dcpi-session-test-b"));
  ProfileBuilder builder;
  CountingSource source;
  TimedWatch watch(0, 1.0);
  SessionStats stats;
  run_session(source, watch, builder, writer, {}, stats);
  EXPECT_EQ(source.collections_, 1);
  EXPECT_EQ(source.resumes_, 0);
}

TEST(Session, StoresWhatWasCollectedWhenTheGuestDies) {
  const auto db = fresh_directory("dcpi-session-test-c");
  ProfileBuilder builder;
  // Serial bytes: one valid statistics record (CPU 0 took 5 interrupts: an
  // epoch with something in it), then the watch throws.
  DriverCpuStats cpu_stats{};
  cpu_stats.interrupts = 5;
  const std::vector<uint8_t> record =
      encode_record(RecordType::kStats, 0, 0, 0, testing::bytes_of(cpu_stats));
  std::deque<std::vector<uint8_t>> chunks{record};
  SerialStreamSource source([&](double, bool&) {
    if (chunks.empty()) return std::vector<uint8_t>{};
    auto bytes = chunks.front();
    chunks.pop_front();
    return bytes;
  });
  ScriptedWatch watch(100, 2);
  SessionStats stats;
  SessionOptions options;
  options.wait_seconds = 0;
  options.merge_seconds = 3600;  // only the error path merges
  {
    ProfileDatabaseWriter writer(db);
    EXPECT_THROW(run_session(source, watch, builder, writer, options, stats), std::runtime_error);
  }
  EXPECT_EQ(stats.pulls, 1u);
  EXPECT_EQ(stats.totals.records, 1u);
  EXPECT_FALSE(ProfileDatabase::open(db).epochs().empty());
}

// Issue 16: an epoch with nothing in it (an unprofiled run: statistics with
// no interrupts, an epoch record) is not stored as if it were a run; it is
// kept back and merged if something arrives for it later.
TEST(Session, AnEpochWithNothingInItIsNotStored) {
  const auto db = fresh_directory("dcpi-session-test-empty");
  ProfileBuilder builder;
  DriverCpuStats idle{};
  StreamDecoder decoder;
  testing::RecordStream stream;
  stream.add(RecordType::kEpoch, std::vector<uint8_t>(sizeof(EpochPayload)), 0, 1);
  stream.add(RecordType::kStats, testing::bytes_of(idle), 0, 1);
  for (const TransferRecord& record : decoder.feed(stream.bytes)) builder.add_record(record);
  {
    ProfileDatabaseWriter writer(db);
    builder.flush(writer);
  }
  EXPECT_TRUE(ProfileDatabase::open(db).epochs().empty());
  EXPECT_TRUE(builder.written_epochs().empty());
  // The driver's next report says it sampled: the epoch is written, with the
  // records kept back counted in it.
  DriverCpuStats busy{};
  busy.interrupts = 3;
  testing::RecordStream later(stream.bytes.size() / 32);
  later.add(RecordType::kStats, testing::bytes_of(busy), 0, 1);
  StreamDecoder decoder2;
  for (const TransferRecord& record : decoder2.feed(later.bytes)) builder.add_record(record);
  {
    ProfileDatabaseWriter writer(db);
    builder.flush(writer);
  }
  const ProfileDatabase database = ProfileDatabase::open(db);
  ASSERT_EQ(database.epochs(), std::vector<uint64_t>{1});
  EXPECT_EQ(database.epoch_metadata(1).records, 3u);
  EXPECT_EQ(database.epoch_metadata(1).cpu_stats.at(0).at("interrupts"), 3u);
}

// Issue 18: a write that fails (disk full) must not release the guest's ring
// space; the records are still there for the next try.
TEST(Session, RingTailMovesOnlyAfterTheRecordsAreStored) {
  testing::RingImage ring(4096);
  const std::vector<SampleEntry> entries = {{0x1000, 3, 1, 0}};
  ring.append(RecordType::kSamples, testing::samples_payload(entries), 0, 1);
  testing::FakeGdbStub stub;
  constexpr uint64_t kRing = 0x400000;
  stub.add_memory(kRing, ring.image());
  auto tail = [&] {
    uint64_t value = 0;
    std::memcpy(&value, stub.memory(kRing + offsetof(TransferRingHeader, tail), 8).data(), 8);
    return value;
  };
  GdbClient client({"127.0.0.1", stub.port()}, std::chrono::seconds(2));
  client.set_physical_memory_mode(true);
  const auto db = fresh_directory("dcpi-session-test-e");
  { ProfileDatabaseWriter create(db); }
  SessionOptions options;
  options.wait_seconds = 0;
  {
    ProfileDatabaseWriter full(db, WriterFaults{.fail_after_bytes = 0});
    GdbRingSource source(client, kRing);
    ProfileBuilder builder;
    ScriptedWatch watch(0);
    SessionStats stats;
    EXPECT_THROW(run_session(source, watch, builder, full, options, stats), ProfileDatabaseError);
  }
  EXPECT_EQ(tail(), ring.header.tail) << "the guest must keep what was not stored";
  ProfileDatabaseWriter writer(db);
  GdbRingSource source(client, kRing);
  ProfileBuilder builder;
  ScriptedWatch watch(0);
  SessionStats stats;
  run_session(source, watch, builder, writer, options, stats);
  EXPECT_EQ(stats.totals.samples, 3u);
  EXPECT_EQ(tail(), ring.header.head);
}

TEST(Session, SerialStreamEndsWhenClosed) {
  ProfileDatabaseWriter writer(fresh_directory("dcpi-session-test-d"));
  ProfileBuilder builder;
  SerialStreamSource source([](double, bool& closed) {
    closed = true;
    return std::vector<uint8_t>{1, 2, 3};  // garbage, then end of stream
  });
  ScriptedWatch watch(100);
  SessionStats stats;
  SessionOptions options;
  options.wait_seconds = 0;
  run_session(source, watch, builder, writer, options, stats);
  EXPECT_EQ(watch.waits(), 0);
  EXPECT_EQ(stats.pulls, 1u);
  EXPECT_EQ(stats.decode.records, 0u);
}

// The exact argv, shell-quoted, and the same one qemu_command builds.
TEST(RunCli, PrintsTheQemuCommand) {
  const std::string palcode = testing::fixture_path("fake_palcode.elf");
  const std::string kernel = testing::fixture_path("fake_kernel.elf");
  if (palcode.empty() || kernel.empty()) GTEST_SKIP() << "no Alpha binutils";
  const testing::CommandResult result =
      testing::run_dcpi({"run", "--print-qemu-command", "--palcode", palcode, "--kernel", kernel,
                         "--cpus", "2", "--no-initrd", "--gdb-port", "1234",
                         "--append=test=boot halt=1", "--plugin", "file=x.so,out=y"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  qemu::MachineConfig config;
  config.palcode = palcode;
  config.kernel = kernel;
  config.cpus = 2;
  config.append = "test=boot halt=1";
  config.gdb_port = 1234;
  config.plugins = {"file=x.so,out=y"};
  std::string expected;
  for (const std::string& arg : qemu::qemu_command(config))
    expected += (expected.empty() ? "" : " ") + (arg == config.append ? "'" + arg + "'" : arg);
  EXPECT_EQ(result.out, expected + "\n");
}

TEST(RunCli, PrintQemuCommandChecksTheFiles) {
  const testing::CommandResult result = testing::run_dcpi(
      {"run", "--print-qemu-command", "--palcode", "/nonexistent/p.elf", "--no-gdb"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("PALcode (-bios) not found"), std::string::npos) << result.err;
}

// Issue 18: numbers with trailing junk, fractions or signs are usage errors.
TEST(RunCli, NumbersMustBeWholeNumbers) {
  for (const auto& [option, text] :
       std::vector<std::pair<std::string, std::string>>{{"--cpus", "3abc"},
                                                        {"--cpus", "1.5"},
                                                        {"--cpus", "-1"},
                                                        {"--period", "4096zz"},
                                                        {"--memory", "128 "},
                                                        {"--epoch", "99999999999999999999"},
                                                        {"--cpus", ""}}) {
    const testing::CommandResult result =
        testing::run_dcpi({"run", option, text, "--print-qemu-command"});
    EXPECT_EQ(result.exit_code, 2) << option << " " << text;
    EXPECT_NE(result.err.find("must be a number"), std::string::npos) << result.err;
  }
  EXPECT_EQ(parse_whole_number("4096", 1, 65536), 4096u);
  EXPECT_FALSE(parse_whole_number("4096zz", 1, 65536));
  EXPECT_FALSE(parse_whole_number("+1", 0, 9));
}

}  // namespace
}  // namespace dcpi
