// ProfileMe's aggregation table (driver/profileme_table.h): one update per
// record, in place of the one-by-one pm_* table updates (up to eleven a
// record, each a hash and a probe of DCPI's table).
#include "driver/profileme_table.h"

#include "driver/internal.h"

namespace dcpi::driver {

namespace {

alignas(64) PmEntry g_pm_tables[kMaxCpus][kPmEntries];

}  // namespace
}  // namespace dcpi::driver

// driver/fast_handler.S, in the per-CPU section (driver/hot_layout.h HOT_TO_PM).
extern "C" dcpi::driver::PmHot dcpi_pm_hot[];

namespace dcpi::driver {
namespace {

// Bucket of (PID, PC, pattern), spread as driver/handler.cpp bucket_of does.
inline uint32_t pm_bucket_of(uint64_t pc, uint16_t pid, uint32_t pattern) {
  uint64_t h = (pc >> 2) + (uint64_t{pid} << 20 ^ pattern) * kHashMultiplier;
  h ^= h >> 12;
  return static_cast<uint32_t>(h) & (kPmBuckets - 1);
}

// Adds `v` to a 32-bit sum; false (nothing added) when it would wrap.
inline bool fits(uint32_t sum, uint32_t v) { return sum <= ~0u - v; }

void expand_to_buffer(CpuHot& hot, const PmEntry& e) {
  pm_expand(e, [&](const SampleEntry& entry) { append_profileme(hot, entry); });
}

}  // namespace

PmEntry* pm_table(uint32_t cpu) { return g_pm_tables[cpu]; }

PmHot& pm_hot(const CpuHot& hot) { return dcpi_pm_hot[hot.cpu]; }
PmHot& pm_hot_of(uint32_t cpu) { return dcpi_pm_hot[cpu]; }

void pm_table_add(CpuHot& hot, const PmEntry& record) {
  // DCPI §4.2.3: while the daemon copies the table, go straight to the buffer.
  if (hot.flushing) [[unlikely]] {
    expand_to_buffer(hot, record);
    return;
  }
  PmEntry* bucket =
      g_pm_tables[hot.cpu] + pm_bucket_of(record.pc, record.pid, record.pattern) * kPmBucketEntries;
  for (uint32_t i = 0; i < kPmBucketEntries; ++i) {
    PmEntry& e = bucket[i];
    if (e.pc != record.pc || e.pid != record.pid || e.pattern != record.pattern || e.count == 0)
      continue;
    if (e.count == UINT16_MAX || !fits(e.issue, record.issue) || !fits(e.fetch, record.fetch) ||
        !fits(e.stall, record.stall) || !fits(e.load, record.load)) {
      expand_to_buffer(hot, e);  // full: out it goes, the record starts it anew
      e = record;
      return;
    }
    ++e.count;
    e.issue += record.issue;
    e.fetch += record.fetch;
    e.stall += record.stall;
    e.load += record.load;
    return;
  }
  // Miss: the round-robin victim (DCPI §4.2.1), here with its own counter.
  PmHot& pm = pm_hot(hot);
  PmEntry& victim = bucket[pm.evict];
  pm.evict = (pm.evict + 1) & (kPmBucketEntries - 1);
  if (victim.count != 0) expand_to_buffer(hot, victim);
  victim = record;
}

}  // namespace dcpi::driver
