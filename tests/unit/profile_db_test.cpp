// The profile database: round trip, merge on update, epochs and metadata,
// one writer at a time, atomic replacement under write failures, and a reader
// that reports (never crashes on) damaged files.
#include "profiledb/profile_db.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "firmware/crc32c.h"
#include "hostdump/row_accumulator.h"
#include "profiledb/profile_db_writer.h"
#include "profiledb/profile_format.h"
#include "test_support.h"

namespace dcpi {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const ImageIdentity kKernel{"0123456789abcdef", "/boot/kernel.elf", 0x80000, false};
const ImageIdentity kProgram{"", "/bin/sieve", 0x6000, false};

std::vector<ProfileRow> sample_rows() {
  return {{0, 0, 0xfffffc0000310000, 5},
          {0, 0, 0xfffffc0000310004, 1},
          {0, 3, 0xfffffc0000310000, 2},
          {12, 1, 0xfffffc0000310100, 70000}};
}

TEST(ProfileFormat, VarintBoundaries) {
  for (uint64_t value : {0ull, 127ull, 128ull, 16383ull, 16384ull, ~0ull}) {
    std::vector<uint8_t> bytes;
    profiledb::put_varint(bytes, value);
    EXPECT_LE(bytes.size(), profiledb::kMaxVarintBytes);
    ProfileInfo info{"", 0, kProgram, 0, "cycles", 0, 0};
    const std::vector<uint8_t> file =
        profile_format::encode_profile(info, std::vector<ProfileRow>{{0, 0, value, 1}});
    EXPECT_EQ(profile_format::decode_profile(file, "x").rows[0].address, value);
  }
}

TEST(ProfileFormat, EncodeDecodeRoundTrip) {
  ProfileInfo info{"", 0, kKernel, 0, "cycles", 0, 0};
  const std::vector<uint8_t> bytes = profile_format::encode_profile(info, sample_rows());
  const Profile profile = profile_format::decode_profile(bytes, "mem");
  EXPECT_EQ(profile.rows, sample_rows());
  EXPECT_EQ(profile.info.image, kKernel);
  EXPECT_EQ(profile.info.event_name, "cycles");
  EXPECT_EQ(profile.info.row_count, 4u);
  EXPECT_EQ(profile.info.total_count, 70008u);
  // Delta + varint rows: under half the 24 bytes per row of a raw table, even
  // with 64-bit kernel addresses starting each (pid, cpu) group.
  const size_t fixed = 64 + kKernel.build_id.size() + kKernel.path.size() + 6 + 8;
  EXPECT_LT(bytes.size() - fixed, 4 * 24u / 2);
}

TEST(ProfileFormat, EncoderRefusesUnsortedRows) {
  ProfileInfo info{"", 0, kProgram, 0, "cycles", 0, 0};
  std::vector<ProfileRow> rows = sample_rows();
  std::swap(rows[0], rows[1]);
  EXPECT_THROW(profile_format::encode_profile(info, rows), std::logic_error);
}

TEST(ProfileDatabase, WriteMergeAndRead) {
  TempDir dir;
  const fs::path db = dir.file("db");
  {
    ProfileDatabaseWriter writer(db);
    writer.merge_profile(1, kKernel, 0, sample_rows());
    writer.merge_profile(1, kKernel, 0, {{0, 0, 0xfffffc0000310004, 9}, {99, 0, 0x10, 1}});
    writer.merge_profile(2, kProgram, 0, {{12, 0, 0x120000000, 3}});
    EpochMetadata meta;
    meta.epoch = 1;
    meta.samples = 70008 + 10;
    meta.cpu_stats[0]["interrupts"] = 5;
    writer.merge_epoch_metadata(meta);
    meta.samples = 0;
    meta.records_lost = 2;
    meta.cpu_stats[0]["interrupts"] = 8;
    writer.merge_epoch_metadata(meta);
  }
  const ProfileDatabase database = ProfileDatabase::open(db);
  EXPECT_EQ(database.epochs(), (std::vector<uint64_t>{1, 2}));
  const std::vector<ProfileInfo> profiles = database.profiles(1);
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].image, kKernel);
  EXPECT_EQ(profiles[0].total_count, 70018u);
  const Profile profile = database.read_profile(profiles[0]);
  ASSERT_EQ(profile.rows.size(), 5u);
  EXPECT_EQ(profile.rows[1], (ProfileRow{0, 0, 0xfffffc0000310004, 10}));
  EXPECT_EQ(profile.rows.back(), (ProfileRow{99, 0, 0x10, 1}));
  EXPECT_EQ(profile.info.epoch, 1u);
  const EpochMetadata meta = database.epoch_metadata(1);
  EXPECT_EQ(meta.samples, 70018u);
  EXPECT_EQ(meta.records_lost, 2u);
  EXPECT_EQ(meta.updates, 2u);
  EXPECT_EQ(meta.cpu_stats.at(0).at("interrupts"), 8u);  // newest snapshot wins
  EXPECT_EQ(database.profiles(2)[0].image.path, "/bin/sieve");
}

TEST(ProfileDatabase, OpenRejectsNonDatabases) {
  TempDir dir;
  EXPECT_THROW(ProfileDatabase::open(dir.file("missing")), ProfileDatabaseError);
  fs::create_directories(dir.file("plain"));
  try {
    ProfileDatabase::open(dir.file("plain"));
    FAIL();
  } catch (const ProfileDatabaseError& error) {
    EXPECT_NE(std::string(error.what()).find("is not a dcpi profile database"), std::string::npos);
  }
}

TEST(ProfileDatabase, SecondWriterGetsClearError) {
  TempDir dir;
  ProfileDatabaseWriter first(dir.file("db"));
  try {
    ProfileDatabaseWriter second(dir.file("db"));
    FAIL() << "two writers";
  } catch (const ProfileDatabaseError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("is locked by another writer (pid " + std::to_string(getpid()) + ")"),
              std::string::npos)
        << error.what();
  }
}

TEST(ProfileDatabase, LockIsReleasedWithTheWriter) {
  TempDir dir;
  { ProfileDatabaseWriter first(dir.file("db")); }
  EXPECT_NO_THROW(ProfileDatabaseWriter second(dir.file("db")));
}

TEST(ProfileDatabase, UnwritableLocationIsExplained) {
  TempDir dir;
  testing::write_file(dir.file("file"), {1, 2, 3});
  try {
    ProfileDatabaseWriter writer(dir.file("file") + "/db");
    FAIL();
  } catch (const ProfileDatabaseError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot create profile database directory"),
              std::string::npos)
        << error.what();
  }
}

// A full disk in the middle of a merge: the error is clear and the profile
// already on disk is untouched (no torn file, no temporary left behind).
TEST(ProfileDatabase, WriteFailureKeepsTheOldFile) {
  TempDir dir;
  const fs::path db = dir.file("db");
  { ProfileDatabaseWriter(db).merge_profile(1, kKernel, 0, sample_rows()); }
  const fs::path file =
      db / "epoch-00000001" / profile_format::profile_file_name(kKernel, "cycles");
  const std::vector<uint8_t> before = testing::read_file(file);
  ProfileDatabaseWriter writer(db, {.fail_after_bytes = 10});
  try {
    writer.merge_profile(1, kKernel, 0, {{5, 5, 5, 5}});
    FAIL() << "expected a write failure";
  } catch (const ProfileDatabaseError& error) {
    EXPECT_NE(std::string(error.what()).find("No space left on device"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("previous version"), std::string::npos);
  }
  EXPECT_EQ(testing::read_file(file), before);
  for (const auto& entry : fs::directory_iterator(file.parent_path()))
    EXPECT_FALSE(entry.path().filename().string().starts_with(".tmp")) << entry.path();
}

// The real thing on a 64 KB tmpfs when we may mount (root); SKIP otherwise.
TEST(ProfileDatabase, RealFullDiskOnSmallTmpfs) {
  TempDir dir;
  const std::string mount_point = dir.file("small");
  fs::create_directories(mount_point);
  if (geteuid() != 0 || mount("tmpfs", mount_point.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root / CAP_SYS_ADMIN)";
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{mount_point};
  const fs::path db = mount_point + "/db";
  std::vector<ProfileRow> small = {{1, 0, 0x1000, 1}};
  { ProfileDatabaseWriter(db).merge_profile(1, kProgram, 0, small); }
  const fs::path file =
      db / "epoch-00000001" / profile_format::profile_file_name(kProgram, "cycles");
  const std::vector<uint8_t> before = testing::read_file(file);
  std::vector<ProfileRow> big;
  for (uint64_t i = 0; i < 100000; ++i) big.push_back({2, 0, 0x1000 + i * 4096, 1000 + i});
  ProfileDatabaseWriter writer(db);
  EXPECT_THROW(writer.merge_profile(1, kProgram, 0, big), ProfileDatabaseError);
  EXPECT_EQ(testing::read_file(file), before);
  EXPECT_EQ(read_profile_file(file).rows, small);
}

TEST(ProfileDatabase, DamagedExistingFileIsNeverOverwritten) {
  TempDir dir;
  const fs::path db = dir.file("db");
  { ProfileDatabaseWriter(db).merge_profile(1, kKernel, 0, sample_rows()); }
  const fs::path file =
      db / "epoch-00000001" / profile_format::profile_file_name(kKernel, "cycles");
  std::vector<uint8_t> bytes = testing::read_file(file);
  bytes[bytes.size() / 2] ^= 0x40;
  testing::write_file(file, bytes);
  ProfileDatabaseWriter writer(db);
  try {
    writer.merge_profile(1, kKernel, 0, sample_rows());
    FAIL();
  } catch (const ProfileDatabaseError& error) {
    EXPECT_NE(std::string(error.what()).find("damaged, not overwriting"), std::string::npos);
  }
  EXPECT_EQ(testing::read_file(file), bytes);
}

TEST(ProfileDatabase, EpochMetadataRoundTripAndDamage) {
  EpochMetadata meta;
  meta.epoch = 3;
  meta.samples = 100;
  meta.unknown_samples = 1;
  meta.cpu_stats[2]["hits"] = 40;
  const std::string text = profile_format::encode_epoch_metadata(meta);
  const EpochMetadata back = profile_format::decode_epoch_metadata(text, "m");
  EXPECT_EQ(back.samples, 100u);
  EXPECT_EQ(back.cpu_stats.at(2).at("hits"), 40u);
  std::string damaged = text;
  damaged[damaged.find("100")] = '9';
  EXPECT_THROW(profile_format::decode_epoch_metadata(damaged, "m"), ProfileFormatError);
  EXPECT_THROW(profile_format::decode_epoch_metadata(text.substr(0, text.size() - 5), "m"),
               ProfileFormatError);
}

// An epoch.meta as written before the sampling period was recorded: the
// same text without the period lines, checksummed again.
std::string without_period_lines(const std::string& text) {
  std::string body;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find('\n', at) + 1;
    const std::string line = text.substr(at, end - at);
    at = end;
    if (line.starts_with("crc32c ")) break;
    if (!line.starts_with("period_")) body += line;
  }
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", crc32c(body.data(), body.size()));
  return body + "crc32c " + crc + "\n";
}

TEST(SamplingPeriod, MeanIsWhatTheDriverDraws) {
  // scale_to_range gives base + [0, range - 1]; range 0 always gives base.
  EXPECT_EQ(mean_period(61440, 4096), 63487.5);
  EXPECT_EQ(mean_period(8192, 1024), 8703.5);
  EXPECT_EQ(mean_period(8192, 0), 8192.0);
  EXPECT_EQ(mean_period(8192, 1), 8192.0);
  EXPECT_EQ((SamplingPeriod{8192, 1024, false}.mean()), 8703.5);
  EXPECT_EQ(SamplingPeriod{}.mean(), 0.0);
  EXPECT_FALSE(SamplingPeriod{}.known());
  EXPECT_EQ(to_string(SamplingPeriod{}), "unknown");
  EXPECT_EQ(to_string(SamplingPeriod{8192, 1024, false}), "[8192, 9216)");
  EXPECT_EQ(to_string(SamplingPeriod{8192, 0, false}), "8192");
  EXPECT_EQ(to_string(SamplingPeriod{4096, 5120, true}), "changed, within [4096, 9216)");
}

TEST(SamplingPeriod, MergeRule) {
  const SamplingPeriod a{8192, 1024, false}, b{61440, 4096, false}, fixed{4096, 0, false};
  SamplingPeriod p;
  p.merge(SamplingPeriod{});  // unknown adds nothing
  EXPECT_EQ(p, SamplingPeriod{});
  p.merge(a);  // unknown + known = known
  EXPECT_EQ(p, a);
  p.merge(a);  // the same period again: unchanged
  EXPECT_EQ(p, a);
  p.merge(SamplingPeriod{});
  EXPECT_EQ(p, a);
  p.merge(b);  // another: changed, the interval holding both
  EXPECT_EQ(p, (SamplingPeriod{8192, 65536 - 8192, true}));
  // Order does not matter; a range of 0 counts as the one period `base`.
  SamplingPeriod q = b;
  q.merge(fixed);
  q.merge(a);
  SamplingPeriod r = fixed;
  r.merge(a);
  r.merge(b);
  EXPECT_EQ(q, r);
  EXPECT_EQ(q, (SamplingPeriod{4096, 65536 - 4096, true}));
  SamplingPeriod s = fixed;
  s.merge(SamplingPeriod{5000, 0, false});
  EXPECT_EQ(s, (SamplingPeriod{4096, 905, true}));
  // A changed epoch stays changed, even when merged with a period it holds.
  SamplingPeriod t = a;
  t.merge(SamplingPeriod{8192, 1024, true});
  EXPECT_TRUE(t.changed);
}

TEST(ProfileDatabase, EpochMetadataPeriodRoundTripAndOldFormat) {
  EpochMetadata meta;
  meta.epoch = 4;
  meta.samples = 10;
  meta.period = {8192, 1024, false};
  const std::string text = profile_format::encode_epoch_metadata(meta);
  EXPECT_NE(text.find("\nperiod_base 8192\nperiod_range 1024\nperiod_changed 0\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(profile_format::decode_epoch_metadata(text, "m").period, meta.period);
  meta.period = {4096, 61440, true};
  EXPECT_EQ(profile_format::decode_epoch_metadata(profile_format::encode_epoch_metadata(meta), "m")
                .period,
            meta.period);
  // Unknown is written as zeros and read back as unknown.
  meta.period = {};
  const std::string unknown = profile_format::encode_epoch_metadata(meta);
  EXPECT_NE(unknown.find("\nperiod_base 0\n"), std::string::npos);
  EXPECT_FALSE(profile_format::decode_epoch_metadata(unknown, "m").period.known());

  // A database from before the period was recorded: no period keys at all.
  const std::string old = without_period_lines(text);
  ASSERT_EQ(old.find("period"), std::string::npos) << old;
  const EpochMetadata back = profile_format::decode_epoch_metadata(old, "m");
  EXPECT_EQ(back.samples, 10u);
  EXPECT_FALSE(back.period.known());

  // Malformed period keys are rejected like any other field.
  const auto with_lines = [&](const std::string& lines) {
    std::string body = old.substr(0, old.rfind("crc32c "));
    body += lines;
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", crc32c(body.data(), body.size()));
    return body + "crc32c " + crc + "\n";
  };
  EXPECT_NO_THROW(profile_format::decode_epoch_metadata(
      with_lines("period_base 512\nperiod_range 0\nperiod_changed 0\n"), "m"));
  for (const char* bad : {"period_base 8192\n",  // the three come together
                          "period_base 8192\nperiod_range 1\nperiod_changed 2\n",
                          "period_base 0\nperiod_range 1024\nperiod_changed 0\n",
                          "period_base 8192\nperiod_range 1\nperiod_changed 0\n"
                          "period_base 8192\n",
                          "period_base x\nperiod_range 1\nperiod_changed 0\n",
                          // issue 18: beyond the 16-bit counter (a mean of 4.6e18 before)
                          "period_base 65536\nperiod_range 9223372036854775807\n"
                          "period_changed 0\n",
                          "period_base 70000\nperiod_range 0\nperiod_changed 0\n",
                          "period_base 61440\nperiod_range 4097\nperiod_changed 0\n"})
    EXPECT_THROW(profile_format::decode_epoch_metadata(with_lines(bad), "m"), ProfileFormatError)
        << bad;
}

TEST(ProfileDatabase, PeriodMergesAcrossUpdatesAndIntoOldMetadata) {
  TempDir dir;
  const fs::path db = dir.file("db");
  ProfileDatabaseWriter writer(db);
  EpochMetadata meta;
  meta.epoch = 1;
  writer.merge_epoch_metadata(meta);  // nothing known yet
  meta.period = {8192, 1024, false};
  writer.merge_epoch_metadata(meta);
  meta.period = {};
  writer.merge_epoch_metadata(meta);  // an update that saw no kStats keeps it
  meta.period = {8192, 1024, false};
  writer.merge_epoch_metadata(meta);
  EXPECT_EQ(ProfileDatabase::open(db).epoch_metadata(1).period,
            (SamplingPeriod{8192, 1024, false}));
  meta.period = {61440, 4096, false};
  writer.merge_epoch_metadata(meta);  // a second period: changed, never averaged away
  EXPECT_EQ(ProfileDatabase::open(db).epoch_metadata(1).period,
            (SamplingPeriod{8192, 65536 - 8192, true}));

  // An old epoch.meta (no period keys) loads as unknown and takes the period
  // of the next update.
  meta.epoch = 2;
  meta.period = {};
  writer.merge_epoch_metadata(meta);
  const fs::path file = db / "epoch-00000002" / profile_format::kEpochMetaName;
  const std::vector<uint8_t> bytes = testing::read_file(file);
  const std::string old = without_period_lines(std::string(bytes.begin(), bytes.end()));
  testing::write_file(file, std::vector<uint8_t>(old.begin(), old.end()));
  EXPECT_FALSE(ProfileDatabase::open(db).epoch_metadata(2).period.known());
  meta.period = {4096, 0, false};
  writer.merge_epoch_metadata(meta);
  const EpochMetadata merged = ProfileDatabase::open(db).epoch_metadata(2);
  EXPECT_EQ(merged.period, (SamplingPeriod{4096, 0, false}));
  EXPECT_EQ(merged.updates, 2u);
}

TEST(ProfileReader, ErrorsNameFileAndOffset) {
  ProfileInfo info{"", 0, kKernel, 0, "cycles", 0, 0};
  std::vector<uint8_t> bytes = profile_format::encode_profile(info, sample_rows());
  bytes[0] = 'X';
  try {
    profile_format::decode_profile(bytes, "/db/x.prof");
    FAIL();
  } catch (const ProfileFormatError& error) {
    EXPECT_EQ(std::string(error.what()),
              "/db/x.prof: at offset 0: bad magic: not a dcpi profile file");
    EXPECT_EQ(error.offset(), 0u);
  }
}

TEST(RowAccumulator, AggregatesAndSorts) {
  RowAccumulator rows;
  for (int round = 0; round < 3; ++round)
    for (uint64_t i = 0; i < 1000; ++i) rows.add(uint32_t(i % 3), 1, 0x1000 + 4 * (999 - i), 2);
  EXPECT_EQ(rows.size(), 1000u);
  EXPECT_EQ(rows.total(), 6000u);
  const std::vector<ProfileRow> sorted = rows.sorted_rows();
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  EXPECT_EQ(sorted[0].count, 6u);
}

// Mutations and truncations of valid files: the reader either decodes them
// (a flip may hit nothing checked... but the CRC covers everything) or throws
// ProfileFormatError; nothing else, never a crash.
TEST(ProfileReaderFuzz, DamagedFilesFailCleanly) {
  std::vector<ProfileRow> rows;
  std::mt19937 random(3);
  for (uint32_t pid = 0; pid < 4; ++pid)
    for (uint64_t a = 0; a < 200; ++a)
      if (random() % 3 == 0)
        rows.push_back({pid, pid % 2, 0x120000000 + 4 * a, 1 + random() % 5000});
  ProfileInfo info{"", 0, kKernel, 0, "cycles", 0, 0};
  const std::vector<uint8_t> original = profile_format::encode_profile(info, rows);
  int rejected = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<uint8_t> bytes = original;
    testing::damage(bytes, random, round);
    try {
      (void)profile_format::decode_profile_info(bytes, "f");
      const Profile profile = profile_format::decode_profile(bytes, "f");
      EXPECT_EQ(profile.rows, rows) << "a damaged file decoded to different rows, round " << round;
    } catch (const ProfileFormatError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 3900);
}

// Files that pass the checksum but lie inside (hand-built): the structural
// checks catch them too.
TEST(ProfileReaderFuzz, ChecksummedButInconsistentBodies) {
  ProfileInfo info{"", 0, kProgram, 0, "cycles", 0, 0};
  const std::vector<uint8_t> good = profile_format::encode_profile(info, sample_rows());
  std::mt19937 random(5);
  int rejected = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes = good;
    const size_t body = 64 + kProgram.path.size() + 6;
    bytes[body + random() % (bytes.size() - 8 - body)] = uint8_t(random());
    const uint32_t crc = crc32c(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &crc, 4);
    try {
      (void)profile_format::decode_profile(bytes, "f");
    } catch (const ProfileFormatError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 500);
}

// epoch.meta is text with a CRC-32C line: damaged copies are rejected or, if
// the damage misses everything checked, decode to the same metadata; copies
// whose damaged body is re-sealed with a valid CRC decode only to metadata
// within the format's bounds (issue 18: every reader has a fuzzer).
TEST(EpochMetadataFuzz, DamagedAndResealedCopiesFailCleanly) {
  EpochMetadata meta;
  meta.epoch = 7;
  meta.samples = 12345;
  meta.unknown_samples = 3;
  meta.records = 40;
  meta.period = {61440, 4096, false};
  const std::string text = profile_format::encode_epoch_metadata(meta);
  const std::string body = text.substr(0, text.rfind("crc32c "));
  std::mt19937 random(11);
  int rejected = 0, resealed_rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> bytes(text.begin(), text.end());
    testing::damage(bytes, random, round);
    try {
      const EpochMetadata back =
          profile_format::decode_epoch_metadata(std::string(bytes.begin(), bytes.end()), "m");
      EXPECT_EQ(back.samples, meta.samples) << "round " << round;
      EXPECT_EQ(back.period, meta.period) << "round " << round;
    } catch (const ProfileFormatError&) {
      ++rejected;
    }
    std::vector<uint8_t> damaged_body(body.begin(), body.end());
    testing::damage(damaged_body, random, round);
    std::string resealed(damaged_body.begin(), damaged_body.end());
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", crc32c(resealed.data(), resealed.size()));
    resealed += std::string("crc32c ") + crc + "\n";
    try {
      const EpochMetadata back = profile_format::decode_epoch_metadata(resealed, "m");
      if (back.period.known()) {
        EXPECT_LE(back.period.base + back.period.range, 65536u) << round;
      }
    } catch (const ProfileFormatError&) {
      ++resealed_rejected;
    }
  }
  EXPECT_GT(rejected, 2900);
  EXPECT_GT(resealed_rejected, 0);
}

}  // namespace
}  // namespace dcpi
