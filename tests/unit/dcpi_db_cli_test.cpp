// dcpi ingest --from-file, dcpi db check/show end to end: a recorded stream
// and a ring image become a database that checks clean; damage is reported
// per file with exit status 1; a locked database is refused clearly.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "test_support.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using testing::run_dcpi;

constexpr uint64_t kKernelBase = 0xfffffc0000310000;

testing::RecordStream recorded_stream() {
  testing::RecordStream stream;
  stream.load(testing::load_record(LoadKind::kKernel, 0, kKernelBase, 0x10000, kKernelBase,
                                   "/boot/kernel.elf", {0xab, 0xcd}));
  stream.load(testing::load_record(LoadKind::kExec, 3, 0x120000000, 0x4000, 0x120000000, "/bin/x"));
  stream.samples({{kKernelBase + 4, 10, 3, 0}, {0x120000008, 5, 3, 0}, {0x42, 1, 3, 0}}, 1);
  return stream;
}

TEST(DcpiIngest, FromStreamFileThenCheckAndShow) {
  testing::TempDir dir;
  testing::RecordStream stream = recorded_stream();
  std::vector<uint8_t> bytes(5 + stream.bytes.size());
  std::memcpy(bytes.data(), "noise", 5);  // garbage before the first record
  std::copy(stream.bytes.begin(), stream.bytes.end(), bytes.begin() + 5);
  testing::write_file(dir.file("serial.bin"), bytes);
  const auto result =
      run_dcpi({"ingest", "--from-file", dir.file("serial.bin"), "--db", dir.file("db")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("ingested 3 records (3 entries, 16 samples, 1 unknown"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("bad magic 1"), std::string::npos) << result.out;
  // The same recording again is refused (issue 18: it used to double the
  // counts); another recording is merged, not replaced.
  const auto again =
      run_dcpi({"ingest", "--from-file", dir.file("serial.bin"), "--db", dir.file("db")});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("was already ingested into"), std::string::npos) << again.err;
  bytes[0] = 'N';  // another capture of the same records
  testing::write_file(dir.file("serial2.bin"), bytes);
  ASSERT_EQ(run_dcpi({"ingest", "--from-file", dir.file("serial2.bin"), "--db", dir.file("db")})
                .exit_code,
            0);
  const auto check = run_dcpi({"db", "check", dir.file("db")});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("OK (1 epochs, 3 profiles, 3 rows, 32 samples, 0 value files)"),
            std::string::npos)
      << check.out;
  const auto show = run_dcpi({"db", "show", dir.file("db")});
  EXPECT_NE(show.out.find("cycles /boot/kernel.elf [abcd]: 20 samples in 1 rows"),
            std::string::npos)
      << show.out;
}

// Issue 14: a recording of an ev5 run is ingested as such; its epochs then
// take no samples of another machine.
TEST(DcpiIngest, MachineIsRecordedAndEpochsDoNotMixMachines) {
  testing::TempDir dir;
  const testing::RecordStream stream = recorded_stream();
  testing::write_file(dir.file("a.bin"), stream.bytes);
  std::vector<uint8_t> other = stream.bytes;
  other.insert(other.begin(), 'x');  // another recording of the same records
  testing::write_file(dir.file("b.bin"), other);
  auto r = run_dcpi(
      {"ingest", "--from-file", dir.file("a.bin"), "--db", dir.file("db"), "--machine", "ev5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(run_dcpi({"db", "show", dir.file("db")}).out.find(", machine ev5\n"),
            std::string::npos);
  r = run_dcpi({"ingest", "--from-file", dir.file("b.bin"), "--db", dir.file("db")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("holds samples from machine ev5; refusing to add samples from machine qemu"),
            std::string::npos)
      << r.err;
  r = run_dcpi(
      {"ingest", "--from-file", dir.file("b.bin"), "--db", dir.file("db"), "--machine", "ev6"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--machine is qemu or ev5, not 'ev6'"), std::string::npos) << r.err;
}

TEST(DcpiIngest, FromRingImage) {
  testing::TempDir dir;
  testing::RingImage ring(kTransferRingBytes - 32 * 3);
  ring.append(RecordType::kLoadMap,
              testing::bytes_of(testing::load_record(LoadKind::kKernel, 0, kKernelBase, 0x100,
                                                     kKernelBase, "/k")),
              0);
  ring.append(RecordType::kSamples, testing::samples_payload({{kKernelBase, 7, 0, 0}}), 1);
  ring.header.records_dropped = 2;
  testing::write_file(dir.file("ring.bin"), ring.image());
  const auto result =
      run_dcpi({"ingest", "--from-file", dir.file("ring.bin"), "--db", dir.file("db"), "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"samples\": 7, \"unknown_samples\": 0"), std::string::npos)
      << result.out;
  const ProfileDatabase db = ProfileDatabase::open(dir.file("db"));
  EXPECT_EQ(db.epoch_metadata(1).ring_records_dropped, 2u);
}

TEST(DcpiDbCheck, ReportsEachDamagedFileAndTotals) {
  testing::TempDir dir;
  testing::write_file(dir.file("serial.bin"), recorded_stream().bytes);
  ASSERT_EQ(
      run_dcpi({"ingest", "--from-file", dir.file("serial.bin"), "--db", dir.file("db")}).exit_code,
      0);
  const fs::path epoch = fs::path(dir.file("db")) / "epoch-00000001";
  std::vector<fs::path> profiles;
  for (const auto& entry : fs::directory_iterator(epoch))
    if (entry.path().extension() == ".prof") profiles.push_back(entry.path());
  ASSERT_EQ(profiles.size(), 3u);
  std::vector<uint8_t> bytes = testing::read_file(profiles[0]);
  bytes[bytes.size() - 12] ^= 1;  // in the rows: checksum
  testing::write_file(profiles[0], bytes);
  fs::remove(profiles[1]);  // totals no longer add up
  const auto check = run_dcpi({"db", "check", dir.file("db")});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.out.find(profiles[0].string() + ": at offset"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("checksum mismatch"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("samples, metadata says 16"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("problem(s)"), std::string::npos);
}

TEST(DcpiDbCheck, NotADatabase) {
  testing::TempDir dir;
  const auto check = run_dcpi({"db", "check", dir.file("")});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.err.find("is not a dcpi profile database"), std::string::npos) << check.err;
}

TEST(DcpiIngest, LockedDatabaseIsRefusedAndUntouched) {
  testing::TempDir dir;
  testing::write_file(dir.file("serial.bin"), recorded_stream().bytes);
  ProfileDatabaseWriter holder(dir.file("db"));  // another writer holds the lock
  const auto result =
      run_dcpi({"ingest", "--from-file", dir.file("serial.bin"), "--db", dir.file("db")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("is locked by another writer"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(fs::path(dir.file("db")) / "epoch-00000001"));
}

TEST(DcpiIngest, UsageErrors) {
  EXPECT_EQ(run_dcpi({"ingest", "--db", "/tmp/x"}).exit_code, 2);
  EXPECT_EQ(run_dcpi({"ingest", "--db", "/tmp/x", "--from-file", "a", "--gdb", ":1"}).exit_code, 2);
  const auto missing = run_dcpi({"ingest", "--db", "/tmp/x", "--from-file", "/nonexistent"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open /nonexistent"), std::string::npos);
}

TEST(DcpiBenchDb, RunsOnAnAlphaFixtureAndWritesJson) {
  const std::string fixture = testing::fixture_path("fake_kernel.elf");
  if (fixture.empty()) GTEST_SKIP() << "no Alpha binutils";
  testing::TempDir dir;
  const auto result = run_dcpi(
      {"bench-db", "--images", fixture, "--entries", "200000", "--json", dir.file("bench.json")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("entries ingested                         200000"), std::string::npos)
      << result.out;
  const std::vector<uint8_t> json = testing::read_file(dir.file("bench.json"));
  EXPECT_NE(std::string(json.begin(), json.end()).find("\"entries_per_second_memory\""),
            std::string::npos);
}

}  // namespace
}  // namespace dcpi
