// Attribution rules (DCPI §4.3.2; hostdump/load_map_model.h) and the
// builder that turns records into per-image profiles.
#include "hostdump/load_map_model.h"

#include <gtest/gtest.h>

#include "firmware/ev5_counters.h"
#include "hostdump/profile_builder.h"
#include "profiledb/event_scale.h"
#include "profiledb/own_cycles.h"
#include "profiledb/profile_db.h"
#include "profiledb/profile_db_writer.h"
#include "test_support.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

using testing::load_record;

// Decodes `stream` into `builder` and flushes it into the database at `db`,
// as hostdump does after a pull.
void ingest(const testing::RecordStream& stream, const std::string& db, ProfileBuilder& builder) {
  StreamDecoder decoder;
  for (const TransferRecord& record : decoder.feed(stream.bytes)) builder.add_record(record);
  ProfileDatabaseWriter writer(db);
  builder.flush(writer);
}

void ingest(const testing::RecordStream& stream, const std::string& db) {
  ProfileBuilder builder;
  ingest(stream, db, builder);
}

constexpr uint64_t kKernelBase = 0xfffffc0000310000;

LoadMapModel booted() {
  LoadMapModel model;
  model.apply(load_record(LoadKind::kKernel, 0, kKernelBase, 0x10000, kKernelBase,
                          "/boot/kernel.elf", {0x01, 0x23, 0xab}));
  model.apply(load_record(LoadKind::kPalcode, 0, 0xfffffc0000000000, 0x8000, 0, "palcode.elf"));
  return model;
}

TEST(LoadMapModel, KernelAndPalcodeServeEveryPid) {
  const LoadMapModel model = booted();
  for (uint32_t pid : {0u, 5u, 999u}) {
    const auto placed = model.place(pid, kKernelBase + 0x44);
    ASSERT_TRUE(placed);
    EXPECT_EQ(model.images()[placed->image_id].path, "/boot/kernel.elf");
    EXPECT_EQ(model.images()[placed->image_id].build_id, "0123ab");
    EXPECT_EQ(placed->address, kKernelBase + 0x44);
  }
  const auto pal = model.place(3, 0xfffffc0000000100);
  ASSERT_TRUE(pal);
  EXPECT_EQ(pal->address, 0x100u);                      // PALcode linked at 0
  EXPECT_FALSE(model.place(0, kKernelBase + 0x10000));  // one past the end
}

TEST(LoadMapModel, ExecImagesArePerPidWithLinkAddress) {
  LoadMapModel model = booted();
  model.apply(load_record(LoadKind::kExec, 7, 0x200000000, 0x4000, 0x120000000, "/bin/a"));
  model.apply(load_record(LoadKind::kExec, 8, 0x200000000, 0x4000, 0x120000000, "/bin/b"));
  EXPECT_EQ(model.images()[model.place(7, 0x200000010)->image_id].path, "/bin/a");
  EXPECT_EQ(model.images()[model.place(8, 0x200000010)->image_id].path, "/bin/b");
  EXPECT_EQ(model.place(7, 0x200000010)->address, 0x120000010u);
  EXPECT_FALSE(model.place(9, 0x200000010));  // no such process
}

TEST(LoadMapModel, ExitedMappingsServeLateSamplesUntilPidReuse) {
  LoadMapModel model = booted();
  model.apply(load_record(LoadKind::kExec, 7, 0x120000000, 0x4000, 0x120000000, "/bin/a"));
  LoadMapRecord exit{};
  exit.kind = static_cast<uint32_t>(LoadKind::kExit);
  exit.pid = 7;
  model.apply(exit);
  EXPECT_TRUE(model.has_exited(7));
  // A lazily flushed sample of the dead process still lands in /bin/a.
  EXPECT_EQ(model.images()[model.place(7, 0x120000100)->image_id].path, "/bin/a");
  // The PID is reused by another program: the old mapping goes.
  model.apply(load_record(LoadKind::kExec, 7, 0x120000000, 0x2000, 0x120000000, "/bin/c"));
  EXPECT_EQ(model.images()[model.place(7, 0x120000100)->image_id].path, "/bin/c");
  EXPECT_FALSE(model.place(7, 0x120003000));
}

TEST(LoadMapModel, SharedLibraryMappingsJoinTheirPid) {
  LoadMapModel model = booted();
  model.apply(load_record(LoadKind::kExec, 7, 0x120000000, 0x4000, 0x120000000, "/bin/a"));
  // ld.so and libc mapped by the process after its exec (issue 15), linked at 0.
  model.apply(load_record(LoadKind::kMap, 7, 0x20000000000, 0x30000, 0, "/lib/ld-linux.so.2"));
  model.apply(load_record(LoadKind::kMap, 7, 0x20000040000, 0x200000, 0, "/lib/libc.so.6.1"));
  EXPECT_EQ(model.images()[model.place(7, 0x120000010)->image_id].path, "/bin/a");
  const auto in_libc = model.place(7, 0x20000041234);
  ASSERT_TRUE(in_libc);
  EXPECT_EQ(model.images()[in_libc->image_id].path, "/lib/libc.so.6.1");
  EXPECT_EQ(in_libc->address, 0x1234u);
  EXPECT_FALSE(model.place(8, 0x20000041234));  // another process has no libc there
  // A mapping record for an exited pid does not drop its other images.
  LoadMapRecord exit{};
  exit.kind = static_cast<uint32_t>(LoadKind::kExit);
  exit.pid = 7;
  model.apply(exit);
  model.apply(load_record(LoadKind::kMap, 7, 0x20000300000, 0x2000, 0, "/lib/libm.so.6.1"));
  EXPECT_EQ(model.images()[model.place(7, 0x120000010)->image_id].path, "/bin/a");
}

TEST(LoadMapModel, MalformedRecordsAreCountedAndIgnored) {
  LoadMapModel model;
  LoadMapRecord bad = load_record(LoadKind::kExec, 1, 0x1000, 0, 0, "/x");  // empty
  EXPECT_FALSE(model.apply(bad));
  bad = load_record(LoadKind::kExec, 1, ~0ull - 10, 0x100, 0, "/x");  // wraps
  EXPECT_FALSE(model.apply(bad));
  bad = load_record(LoadKind::kExec, 1, 0x1000, 0x100, 0, "/x");
  bad.kind = 77;
  EXPECT_FALSE(model.apply(bad));
  bad = load_record(LoadKind::kExec, 1, 0x1000, 0x100, 0, "/x");
  std::memset(bad.path, 'a', sizeof bad.path);  // no NUL
  EXPECT_FALSE(model.apply(bad));
  EXPECT_EQ(model.rejected_records(), 4u);
  EXPECT_FALSE(model.place(1, 0x1000));
}

TEST(ProfileBuilder, RecordsToDatabaseWithUnknownProfile) {
  testing::TempDir dir;
  testing::RecordStream stream;
  stream.load(load_record(LoadKind::kKernel, 0, kKernelBase, 0x10000, kKernelBase, "/k", {1}));
  stream.load(load_record(LoadKind::kExec, 4, 0x120000000, 0x4000, 0x120000000, "/bin/a"));
  stream.samples({{kKernelBase + 8, 3, 4, 0},
                  {0x120000010, 2, 4, 0},
                  {0x5, 1, 4, 0},
                  {kKernelBase + 8, 0, 4, 0}},
                 /*cpu=*/2);
  ProfileBuilder builder;
  ingest(stream, dir.file("db"), builder);
  EXPECT_EQ(builder.totals().samples, 6u);
  EXPECT_EQ(builder.totals().unknown_samples, 1u);
  const ProfileDatabase db = ProfileDatabase::open(dir.file("db"));
  const auto profiles = db.profiles(1);
  ASSERT_EQ(profiles.size(), 3u);  // /bin/a, /k, [unknown]
  EXPECT_EQ(profiles[0].image.path, "/bin/a");
  EXPECT_EQ(db.read_profile(profiles[0]).rows, (std::vector<ProfileRow>{{4, 2, 0x120000010, 2}}));
  EXPECT_EQ(profiles[2].image.path, "[unknown]");
  EXPECT_TRUE(profiles[2].image.unknown);
  EXPECT_EQ(db.read_profile(profiles[2]).rows, (std::vector<ProfileRow>{{4, 2, 0x5, 1}}));
  const EpochMetadata meta = db.epoch_metadata(1);
  EXPECT_EQ(meta.samples, 6u);
  EXPECT_EQ(meta.unknown_samples, 1u);
  EXPECT_EQ(meta.records, 3u);
}

// The period of each epoch comes from the kStats records that say their CPU
// sampled since its previous one (docs/transfer-format.md).
TEST(ProfileBuilder, EpochPeriodFromStatsRecords) {
  const auto stats = [](uint16_t cpu, uint32_t base, uint16_t range, uint16_t flags) {
    DriverCpuStats s{};
    s.cpu = cpu;
    s.interrupts = 10;
    s.period_base = base;
    s.period_range = range;
    s.period_flags = flags;
    return testing::bytes_of(s);
  };
  testing::TempDir dir;
  testing::RecordStream stream;
  // Epoch 1: CPU 0 sampled at 8192 + [0, 1024); CPU 1 did not sample (its
  // default period does not count).
  stream.add(RecordType::kStats, stats(0, 8192, 1024, kPeriodSampled), 0, 1);
  stream.add(RecordType::kStats, stats(1, 61440, 4096, 0), 1, 1);
  // Epoch 2: the period changed (the driver flushed and reported the old one first).
  stream.add(RecordType::kStats, stats(0, 8192, 1024, kPeriodSampled), 0, 2);
  stream.add(RecordType::kStats, stats(0, 4096, 0, kPeriodSampled), 0, 2);
  // Epoch 3: only records from a guest that predates the period fields.
  stream.add(RecordType::kStats, stats(0, 0, 0, 0), 0, 3);
  ingest(stream, dir.file("db"));
  const ProfileDatabase db = ProfileDatabase::open(dir.file("db"));
  EXPECT_EQ(db.epoch_metadata(1).period, (SamplingPeriod{8192, 1024, false}));
  EXPECT_EQ(db.epoch_metadata(2).period, (SamplingPeriod{4096, 9216 - 4096, true}));
  EXPECT_FALSE(db.epoch_metadata(3).period.known());
  // The per-CPU statistics lines do not change (the period is not a counter).
  EXPECT_EQ(db.epoch_metadata(1).cpu_stats.at(0).count("period_base"), 0u);

  // A later session adds to the same epochs: epoch 1 keeps one period,
  // epoch 3 learns its period.
  testing::RecordStream later(stream.bytes.size() / 32);
  later.add(RecordType::kStats, stats(0, 8192, 1024, kPeriodSampled), 0, 1);
  later.add(RecordType::kStats, stats(0, 8192, 1024, kPeriodSampled), 0, 3);
  ingest(later, dir.file("db"));
  EXPECT_EQ(db.epoch_metadata(1).period, (SamplingPeriod{8192, 1024, false}));
  EXPECT_EQ(db.epoch_metadata(3).period, (SamplingPeriod{8192, 1024, false}));
}

// Issue 26: a kStats record (StatsPayload) carries each event's cycles on the
// rotating counter 2; epoch.meta keeps them per CPU and event_scale turns
// them into shares of time (docs/transfer-format.md, profile-db.md).
TEST(ProfileBuilder, CountedCyclesGiveEachEventsShare) {
  const auto stats = [](uint16_t cpu, uint64_t imiss, uint64_t dmiss, uint64_t branchmp) {
    StatsPayload s{};
    s.stats.cpu = cpu;
    s.stats.interrupts = 10;
    s.stats.period_base = 8192;
    s.stats.period_range = 1024;
    s.stats.period_flags = kPeriodSampled;
    s.counted.cycles[static_cast<int>(Event::kIMiss)] = imiss;
    s.counted.cycles[static_cast<int>(Event::kDMiss)] = dmiss;
    s.counted.cycles[static_cast<int>(Event::kBranchMp)] = branchmp;
    return testing::bytes_of(s);
  };
  testing::TempDir dir;
  testing::RecordStream stream;
  stream.add(RecordType::kStats, stats(0, 100, 200, 0), 0, 1);  // branchmp never had it here
  stream.add(RecordType::kStats, stats(1, 300, 200, 200), 1, 1);
  ingest(stream, dir.file("db"));
  const ProfileDatabase db = ProfileDatabase::open(dir.file("db"));
  const EpochMetadata meta = db.epoch_metadata(1);
  EXPECT_EQ(meta.cpu_stats.at(0).at("counted_cycles_imiss"), 100u);
  EXPECT_EQ(meta.cpu_stats.at(0).count("counted_cycles_branchmp"), 0u);  // zero: not stored
  EXPECT_EQ(meta.cpu_stats.at(1).at("counted_cycles_branchmp"), 200u);
  const EventScale imiss = event_scale(meta, static_cast<uint16_t>(Event::kIMiss));
  const EventScale dmiss = event_scale(meta, static_cast<uint16_t>(Event::kDMiss));
  const EventScale branchmp = event_scale(meta, static_cast<uint16_t>(Event::kBranchMp));
  EXPECT_TRUE(imiss.shared);
  EXPECT_DOUBLE_EQ(imiss.share, 400.0 / 1000.0);
  EXPECT_DOUBLE_EQ(dmiss.share, 400.0 / 1000.0);
  EXPECT_DOUBLE_EQ(branchmp.share, 200.0 / 1000.0);
  const double counter2_mean = mean_period(EV5_EVENT_PERIOD_BASE, EV5_EVENT_PERIOD_RANGE);
  EXPECT_DOUBLE_EQ(*branchmp.events_per_sample(), counter2_mean * 5);
  // Counter 0's cycles: the recorded period, all the time.
  const EventScale cycles = event_scale(meta, static_cast<uint16_t>(Event::kCycles));
  EXPECT_FALSE(cycles.shared);
  EXPECT_DOUBLE_EQ(*cycles.events_per_sample(), 8703.5);
  // A 128-byte record (a guest from before) still reads, with no shares.
  testing::RecordStream old_guest(stream.bytes.size() / 32);
  DriverCpuStats alone{};
  alone.cpu = 0;
  alone.interrupts = 5;  // it sampled: the epoch is kept
  old_guest.add(RecordType::kStats, testing::bytes_of(alone), 0, 2);
  ingest(old_guest, dir.file("db"));
  EXPECT_EQ(db.epoch_metadata(2).cpu_stats.at(0).at("interrupts"), 5u);
  EXPECT_FALSE(event_scale(db.epoch_metadata(2), static_cast<uint16_t>(Event::kIMiss)).shared);
}

// Counter 1's events (loads, stores: StatsPayload::counted_more) share
// counter 1's time, not counter 2's: each counter's shares add up to 1.
TEST(ProfileBuilder, CounterOnesEventsShareItsTimeOnly) {
  StatsPayload s{};
  s.stats.cpu = 0;
  s.stats.interrupts = 10;
  s.counted.cycles[static_cast<int>(Event::kIMiss)] = 300;
  s.counted.cycles[static_cast<int>(Event::kDMiss)] = 100;
  s.counted_more[static_cast<int>(Event::kLoads) - kCountedCyclesFirst] = 150;
  s.counted_more[static_cast<int>(Event::kStores) - kCountedCyclesFirst] = 250;
  testing::TempDir dir;
  testing::RecordStream stream;
  stream.add(RecordType::kStats, testing::bytes_of(s), 0, 1);
  ingest(stream, dir.file("db"));
  const EpochMetadata meta = ProfileDatabase::open(dir.file("db")).epoch_metadata(1);
  EXPECT_EQ(meta.cpu_stats.at(0).at("counted_cycles_loads"), 150u);
  EXPECT_DOUBLE_EQ(event_scale(meta, static_cast<uint16_t>(Event::kLoads)).share, 150.0 / 400.0);
  EXPECT_DOUBLE_EQ(event_scale(meta, static_cast<uint16_t>(Event::kStores)).share, 250.0 / 400.0);
  EXPECT_DOUBLE_EQ(event_scale(meta, static_cast<uint16_t>(Event::kIMiss)).share, 300.0 / 400.0);
  // A 208-byte payload (a guest from before counter 1) still reads.
  testing::RecordStream before(stream.bytes.size() / 32);
  const std::vector<uint8_t> whole = testing::bytes_of(s);
  before.add(RecordType::kStats,
             std::vector<uint8_t>(whole.begin(), whole.begin() + kStatsPayloadBeforeCounter1), 0,
             2);
  ingest(before, dir.file("db"));
  const EpochMetadata older = ProfileDatabase::open(dir.file("db")).epoch_metadata(2);
  EXPECT_EQ(older.cpu_stats.at(0).at("counted_cycles_imiss"), 300u);
  EXPECT_EQ(older.cpu_stats.at(0).count("counted_cycles_loads"), 0u);
}

// Counter 2's PC mispredicts (event 16, StatsPayload::counted_extra) share
// counter 2's time; a 272-byte payload (a guest from before them) still reads.
TEST(ProfileBuilder, PcMispredictsCountedCyclesComeFromTheExtraWords) {
  StatsPayload s{};
  s.stats.cpu = 0;
  s.stats.interrupts = 10;
  s.counted.cycles[static_cast<int>(Event::kIMiss)] = 300;
  s.counted_extra[static_cast<int>(Event::kPcMispredict) - 2 * kCountedCyclesFirst] = 100;
  testing::TempDir dir;
  testing::RecordStream stream;
  stream.add(RecordType::kStats, testing::bytes_of(s), 0, 1);
  ingest(stream, dir.file("db"));
  const EpochMetadata meta = ProfileDatabase::open(dir.file("db")).epoch_metadata(1);
  EXPECT_EQ(meta.cpu_stats.at(0).at("counted_cycles_pcmispredict"), 100u);
  EXPECT_DOUBLE_EQ(event_scale(meta, static_cast<uint16_t>(Event::kPcMispredict)).share,
                   100.0 / 400.0);
  testing::RecordStream before(stream.bytes.size() / 32);
  const std::vector<uint8_t> whole = testing::bytes_of(s);
  before.add(RecordType::kStats,
             std::vector<uint8_t>(whole.begin(), whole.begin() + kStatsPayloadBeforePcMispredicts),
             0, 2);
  ingest(before, dir.file("db"));
  const EpochMetadata older = ProfileDatabase::open(dir.file("db")).epoch_metadata(2);
  EXPECT_EQ(older.cpu_stats.at(0).at("counted_cycles_imiss"), 300u);
  EXPECT_EQ(older.cpu_stats.at(0).count("counted_cycles_pcmispredict"), 0u);
}

// The CPUs' cycles running threads and their own share of them under
// -icount's one clock (kernel/cpu_time.h) reach epoch.meta and give the
// epoch's share; a 336-byte payload (a guest before them) still reads.
TEST(ProfileBuilder, CpuTimesGiveTheEpochsOwnShare) {
  StatsPayload s{};
  s.stats.cpu = 1;
  s.stats.interrupts = 10;
  s.thread_cycles = 4000;
  s.own_cycles = 1000;
  testing::TempDir dir;
  testing::RecordStream stream;
  stream.add(RecordType::kStats, testing::bytes_of(s), 0, 1);
  ingest(stream, dir.file("db"));
  const EpochMetadata meta = ProfileDatabase::open(dir.file("db")).epoch_metadata(1);
  EXPECT_EQ(meta.cpu_stats.at(1).at("thread_cycles"), 4000u);
  EXPECT_EQ(meta.cpu_stats.at(1).at("own_cycles"), 1000u);
  ASSERT_TRUE(own_cycle_share(meta).has_value());
  EXPECT_DOUBLE_EQ(own_cycle_share(meta)->share, 0.25);
  testing::RecordStream before(stream.bytes.size() / 32);
  const std::vector<uint8_t> whole = testing::bytes_of(s);
  before.add(RecordType::kStats,
             std::vector<uint8_t>(whole.begin(), whole.begin() + kStatsPayloadBeforeCpuTime), 0, 2);
  ingest(before, dir.file("db"));
  const EpochMetadata older = ProfileDatabase::open(dir.file("db")).epoch_metadata(2);
  EXPECT_EQ(older.cpu_stats.at(1).count("thread_cycles"), 0u);
  EXPECT_FALSE(own_cycle_share(older).has_value());
}

}  // namespace
}  // namespace dcpi
