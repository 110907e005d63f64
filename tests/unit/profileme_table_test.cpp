// ProfileMe's aggregation table (driver/profileme_table.h): records
// aggregated by (PID, PC, pattern) with summed latencies, then expanded,
// must give exactly the pm_* sums the earlier driver added record by
// record (its record(): one per record, one per event bit, the nonzero
// latencies, a load's load -> data and bucket, a stall's bucket).
#include "driver/profileme_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>

namespace dcpi::driver {
namespace {

using Sums = std::map<std::tuple<uint64_t, uint16_t, uint16_t>, uint64_t>;  // (pc, pid, event)

// The one-by-one reference: what driver/profileme_sampler.cpp added per
// record before the table (commit c7241a1).
void add_one_by_one(Sums& sums, uint64_t pc, uint16_t pid, uint64_t bits, uint64_t latency,
                    uint32_t load) {
  auto add = [&](uint32_t event, uint64_t n) {
    if (n != 0) sums[{pc, pid, static_cast<uint16_t>(event)}] += n;
  };
  add(PROFILEME_EVENT_SAMPLES, 1);
  const uint16_t bit_events[] = {
      PROFILEME_EVENT_RETIRED, PROFILEME_EVENT_IMISS,   PROFILEME_EVENT_ITBMISS,
      PROFILEME_EVENT_DMISS,   PROFILEME_EVENT_DTBMISS, PROFILEME_EVENT_MISPREDICT,
      PROFILEME_EVENT_PAL,     PROFILEME_EVENT_SMISS,   PROFILEME_EVENT_BMISS,
      PROFILEME_EVENT_WBUF,    PROFILEME_EVENT_TRAP};
  for (uint32_t b = 0; b < PROFILEME_BITS; ++b)
    if (bits & (1u << b)) add(bit_events[b], 1);
  const uint64_t stall = latency & PROFILEME_LAT_STALL_MASK;
  add(PROFILEME_EVENT_STALL, stall);
  add(PROFILEME_EVENT_FETCH, (latency >> PROFILEME_LAT_FETCH_SHIFT) & PROFILEME_LAT_FETCH_MASK);
  add(PROFILEME_EVENT_ISSUE, (latency >> PROFILEME_LAT_ISSUE_SHIFT) & PROFILEME_LAT_ISSUE_MASK);
  if (bits & PROFILEME_BIT_LOAD) {
    add(PROFILEME_EVENT_LOAD, load);
    add(PROFILEME_EVENT_LOAD_LOG2_0 + profileme_latency_bucket(load), 1);
  }
  if (stall != 0) add(PROFILEME_EVENT_STALL_LOG2_0 + profileme_latency_bucket(stall), 1);
  if (bits & PROFILEME_BIT_REPLAY) add(PROFILEME_EVENT_REPLAY, 1);  // the bit added since
}

TEST(ProfileMeTable, AggregatedRecordsExpandToTheOneByOneSums) {
  std::mt19937_64 random(27);
  Sums reference, expanded;
  std::map<std::tuple<uint64_t, uint16_t, uint32_t>, PmEntry> table;  // (pc, pid, pattern)
  for (int i = 0; i < 20000; ++i) {
    const uint64_t pc = 0x120000000 + 4 * (random() % 16);
    const auto pid = static_cast<uint16_t>(1 + random() % 2);
    // Few patterns (so entries aggregate), every bit used somewhere.
    const uint64_t bits = (random() % 4 == 0 ? random() : random() % 4) & 0x1fff;
    const uint64_t latency = (random() % 3 << PROFILEME_LAT_ISSUE_SHIFT) |
                             (random() % 3 == 0 ? random() % 40 << PROFILEME_LAT_FETCH_SHIFT : 0) |
                             (random() % 2 ? random() % 300 : 0);
    const uint32_t load = (bits & PROFILEME_BIT_LOAD) ? static_cast<uint32_t>(random() % 200) : 0;
    add_one_by_one(reference, pc, pid, bits, latency, load);
    const PmEntry record = pm_record(pc, pid, bits, latency, load);
    auto [it, fresh] = table.try_emplace({pc, pid, record.pattern}, record);
    if (!fresh) {
      PmEntry& e = it->second;
      ++e.count;
      e.issue += record.issue, e.fetch += record.fetch, e.stall += record.stall,
          e.load += record.load;
    }
  }
  uint32_t most = 0;
  for (const auto& [key, e] : table) {
    const uint32_t n = pm_expand(e, [&](const SampleEntry& s) {
      EXPECT_NE(s.count, 0u);
      expanded[{s.pc, s.pid, s.event}] += s.count;
    });
    EXPECT_LE(n, kPmMaxExpansion);
    most = std::max(most, n);
  }
  EXPECT_EQ(expanded, reference);
  EXPECT_LT(table.size(), 20000u / 2) << "records of one key share an entry";
  EXPECT_GT(most, 10u) << "the random bits reached the long expansions";
}

TEST(ProfileMeTable, EveryBitAndBothBucketsFitTheLongestExpansion) {
  const PmEntry e = pm_record(0x120000000, 1, 0x1fff, (1ull << 48) | (1ull << 32) | 200, 150);
  Sums got;
  const uint32_t n = pm_expand(e, [&](const SampleEntry& s) {
    got[{s.pc, s.pid, s.event}] += s.count;
  });
  EXPECT_EQ(n, kPmMaxExpansion);
  EXPECT_EQ((got[{0x120000000, 1, PROFILEME_EVENT_STALL_LOG2_7}]), 1u);  // 200 >= 128
  EXPECT_EQ((got[{0x120000000, 1, PROFILEME_EVENT_LOAD_LOG2_7}]), 1u);   // 150 >= 128
  EXPECT_EQ((got[{0x120000000, 1, PROFILEME_EVENT_LOAD}]), 150u);
  EXPECT_EQ((got[{0x120000000, 1, PROFILEME_EVENT_REPLAY}]), 1u);
}

}  // namespace
}  // namespace dcpi::driver
