// Mode modifiers (issue 26 item 1; profiledb/event_modes.h): perf's letters
// as the 21164's kill bits, the reader's `imiss:u` names from the epoch's
// recorded kill bits, and the mode of a PC for the scores.
#include "profiledb/event_modes.h"

#include <gtest/gtest.h>

#include "firmware/ev5_counters.h"
#include "firmware/events.h"
#include "profiledb/profile_db_writer.h"
#include "test_support.h"

namespace dcpi {
namespace {

constexpr uint32_t kUserOnly = EV5_KILL_KERNEL | EV5_KILL_PAL;

TEST(EventModes, LettersAreTheModesNotKilled) {
  EXPECT_EQ(kill_bits_of_modes("u"), kUserOnly);
  EXPECT_EQ(kill_bits_of_modes("k"), uint32_t{EV5_KILL_USER | EV5_KILL_PAL});
  EXPECT_EQ(kill_bits_of_modes("p"), uint32_t{EV5_KILL_USER | EV5_KILL_KERNEL});
  EXPECT_EQ(kill_bits_of_modes("ku"), uint32_t{EV5_KILL_PAL});
  for (const char* bad : {"", "x", "uu", "ukp", "U"})
    EXPECT_FALSE(kill_bits_of_modes(bad).has_value()) << bad;
}

TEST(EventModes, SuffixRoundTrips) {
  EXPECT_EQ(mode_suffix(0), "");
  EXPECT_EQ(mode_suffix(kUserOnly), ":u");
  EXPECT_EQ(mode_suffix(EV5_KILL_PAL), ":uk");
  for (const char* letters : {"u", "k", "p", "uk", "up", "kp"})
    EXPECT_EQ(mode_suffix(*kill_bits_of_modes(letters)), std::string(":") + letters);
  EXPECT_EQ(event_base_name("imiss:u"), "imiss");
  EXPECT_EQ(event_base_name("dmiss"), "dmiss");
  EXPECT_EQ(kill_bits_of_event_name("imiss:u"), kUserOnly);
  EXPECT_EQ(kill_bits_of_event_name("imiss"), 0u);
  EXPECT_FALSE(kill_bits_of_event_name("imiss:z").has_value());
}

TEST(EventModes, ModeOfAPc) {
  const uint64_t user = 0x120001000, kernel = 0xfffffc0000310000;
  const uint64_t pal = 0xfffffc0000000000 + 0x100;  // KSEG base: PALcode's region
  EXPECT_TRUE(counts_at(kUserOnly, user));
  EXPECT_FALSE(counts_at(kUserOnly, kernel));
  EXPECT_FALSE(counts_at(kUserOnly, pal));
  EXPECT_TRUE(counts_at(EV5_KILL_USER | EV5_KILL_PAL, kernel));
  EXPECT_TRUE(counts_at(EV5_KILL_USER | EV5_KILL_KERNEL, pal));
  EXPECT_TRUE(counts_at(0, kernel));
}

// The reader names counters 1 and 2's profiles with the epoch's modes;
// cycles and an epoch without `event_kill` (an older database) stay plain.
TEST(EventModes, ReaderNamesProfilesWithTheEpochsModes) {
  testing::TempDir dir;
  const std::filesystem::path db = dir.file("db");
  const ImageIdentity program{"", "/bin/copy", 0x6000, false};
  const auto imiss = static_cast<uint16_t>(Event::kIMiss);
  {
    ProfileDatabaseWriter writer(db);
    for (uint64_t epoch : {1, 2}) {
      writer.merge_profile(epoch, program, 0, {{12, 0, 0x120000000, 3}});
      writer.merge_profile(epoch, program, imiss, {{12, 0, 0x120000000, 2}});
      EpochMetadata meta;
      meta.epoch = epoch;
      meta.cpu_stats[0]["interrupts"] = 5;
      if (epoch == 2) meta.cpu_stats[0]["event_kill"] = kUserOnly;
      writer.merge_epoch_metadata(meta);
    }
  }
  const ProfileDatabase database = ProfileDatabase::open(db);
  for (uint64_t epoch : {1, 2}) {
    const std::vector<ProfileInfo> profiles = database.profiles(epoch);
    ASSERT_EQ(profiles.size(), 2u);
    EXPECT_EQ(profiles[0].event_name, "cycles");
    EXPECT_EQ(profiles[1].event_name, epoch == 2 ? "imiss:u" : "imiss");
    EXPECT_EQ(database.read_profile(profiles[1]).info.event_name, profiles[1].event_name);
  }
}

}  // namespace
}  // namespace dcpi
