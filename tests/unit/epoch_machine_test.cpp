// Issue 14: every epoch records the machine its samples were taken on
// (epoch.meta `machine`: qemu or ev5; absent in older databases = qemu).
// From the builder that `dcpi run` hands RunRequest::timing_machine to,
// through the writer and reader, to db show, db merge and stats.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "firmware/crc32c.h"
#include "hostdump/profile_builder.h"
#include "hostdump/run/profiled_run.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "profiledb/profile_format.h"
#include "report_fixture.h"
#include "test_support.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

using testing::contains;
using testing::run_dcpi;
using testing::TempDir;

// The text of an epoch.meta with `line` in place of the machine line
// (nothing when empty), checksummed again.
std::string meta_with_machine_line(const std::string& line) {
  EpochMetadata meta;
  meta.epoch = 1;
  std::string text = profile_format::encode_epoch_metadata(meta);
  text = text.substr(0, text.rfind("crc32c "));
  const size_t at = text.find("machine qemu\n");
  text.replace(at, 13, line.empty() ? "" : line + "\n");
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", crc32c(text.data(), text.size()));
  return text + "crc32c " + crc + "\n";
}

TEST(EpochMachine, RoundTripsAndOldFilesReadAsQemu) {
  EpochMetadata meta;
  meta.epoch = 3;
  meta.machine = std::string(kMachineEv5);
  const std::string text = profile_format::encode_epoch_metadata(meta);
  EXPECT_TRUE(contains(text, "\nmachine ev5\n")) << text;
  EXPECT_EQ(profile_format::decode_epoch_metadata(text, "m").machine, "ev5");
  // A database from before issue 14 has no machine line: qemu.
  EXPECT_EQ(profile_format::decode_epoch_metadata(meta_with_machine_line(""), "m").machine, "qemu");
  EXPECT_EQ(
      profile_format::decode_epoch_metadata(meta_with_machine_line("machine ev5"), "m").machine,
      "ev5");
}

TEST(EpochMachine, UnknownOrRepeatedMachineIsAFormatError) {
  try {
    profile_format::decode_epoch_metadata(meta_with_machine_line("machine ev6"), "m");
    FAIL() << "machine ev6 accepted";
  } catch (const ProfileFormatError& error) {
    EXPECT_TRUE(contains(error.what(), "unknown machine 'ev6' (qemu or ev5)")) << error.what();
  }
  EXPECT_THROW(profile_format::decode_epoch_metadata(
                   meta_with_machine_line("machine ev5\nmachine qemu"), "m"),
               ProfileFormatError);
  EXPECT_THROW(profile_format::decode_epoch_metadata(meta_with_machine_line("machine"), "m"),
               ProfileFormatError);
}

// The path `dcpi run --machine ev5` takes: RunRequest::timing_machine goes to
// ProfileBuilder::set_machine (hostdump/run/profiled_run.cpp), which stamps every epoch
// it writes.
TEST(EpochMachine, BuilderRecordsTheRunsMachineInEveryEpoch) {
  TempDir dir;
  RunRequest run;
  EXPECT_EQ(run.timing_machine, "qemu");  // dcpi run's default
  run.timing_machine = std::string(kMachineEv5);
  ProfileBuilder builder;
  builder.set_machine(run.timing_machine);
  DriverCpuStats busy{};
  busy.interrupts = 3;
  testing::RecordStream stream;
  stream.add(RecordType::kStats, testing::bytes_of(busy), 0, 1);
  stream.add(RecordType::kStats, testing::bytes_of(busy), 0, 2);
  StreamDecoder decoder;
  for (const TransferRecord& record : decoder.feed(stream.bytes)) builder.add_record(record);
  {
    ProfileDatabaseWriter writer(dir.file("db"));
    builder.flush(writer);
  }
  const ProfileDatabase db = ProfileDatabase::open(dir.file("db"));
  ASSERT_EQ(db.epochs(), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(db.epoch_metadata(1).machine, "ev5");
  EXPECT_EQ(db.epoch_metadata(2).machine, "ev5");
  const auto show = run_dcpi({"db", "show", dir.file("db")});
  EXPECT_TRUE(contains(show.out, "period unknown, machine ev5\n")) << show.out;
  const auto json = run_dcpi({"db", "show", dir.file("db"), "--json"});
  EXPECT_TRUE(contains(json.out, "\"machine\": \"ev5\"")) << json.out;
}

// One epoch, one machine: samples of another machine are refused, and the
// epoch stays as it was.
TEST(EpochMachine, WriterRefusesAnotherMachinesSamplesInAnEpoch) {
  TempDir dir;
  ProfileDatabaseWriter writer(dir.file("db"));
  writer.merge_profile(1, {"ab", "/bin/a", 64, false}, 0, {{1, 0, 0x100, 5}});
  EpochMetadata update{.epoch = 1, .samples = 5};
  update.machine = "ev5";
  writer.merge_epoch_metadata(update);  // the new epoch's placeholder takes ev5
  writer.merge_epoch_metadata(update);  // same machine: fine
  update.machine = "qemu";
  try {
    writer.merge_epoch_metadata(update);
    FAIL() << "a qemu update merged into an ev5 epoch";
  } catch (const ProfileDatabaseError& error) {
    EXPECT_TRUE(contains(error.what(),
                         "holds samples from machine ev5; refusing to add samples "
                         "from machine qemu"))
        << error.what();
  }
  const EpochMetadata stored = ProfileDatabase::open(dir.file("db")).epoch_metadata(1);
  EXPECT_EQ(stored.machine, "ev5");
  EXPECT_EQ(stored.samples, 10u);
}

TEST(EpochMachine, DbMergeKeepsEachEpochsMachineAndStatsShowsThem) {
  TempDir dir;
  testing::write_report_database(dir.file("q.db"));
  {
    ProfileDatabaseWriter writer(dir.file("e.db"));
    writer.merge_profile(1, testing::workload_identity(), 0, {{7, 0, testing::kAccumulate, 40}});
    EpochMetadata meta{.epoch = 1, .samples = 40};
    meta.machine = "ev5";
    writer.merge_epoch_metadata(meta);
  }
  const auto merged =
      run_dcpi({"db", "merge", dir.file("out.db"), dir.file("q.db"), dir.file("e.db")});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const ProfileDatabase out = ProfileDatabase::open(dir.file("out.db"));
  EXPECT_EQ(out.epoch_metadata(1).machine, "qemu");
  EXPECT_EQ(out.epoch_metadata(3).machine, "ev5");
  EXPECT_EQ(run_dcpi({"db", "check", dir.file("out.db")}).exit_code, 0);

  const auto stats = run_dcpi({"stats", "--db", dir.file("q.db"), "--db", dir.file("e.db")});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_TRUE(contains(stats.out, "machine qemu\n")) << stats.out;
  EXPECT_TRUE(contains(stats.out, "machine ev5\n")) << stats.out;
  EXPECT_TRUE(contains(stats.err, "the sets come from different machines")) << stats.err;
  const auto by_epoch =
      run_dcpi({"stats", "--db", dir.file("out.db"), "--epochs", "each", "--json"});
  ASSERT_EQ(by_epoch.exit_code, 0) << by_epoch.err;
  EXPECT_TRUE(contains(by_epoch.out, "\"machine\":\"ev5\"")) << by_epoch.out;
}

}  // namespace
}  // namespace dcpi
