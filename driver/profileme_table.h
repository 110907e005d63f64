// ProfileMe's aggregation table (issue 27 item 1): the driver "aggregates
// records by (PID, PC, event-bit pattern) with summed latencies in its hash
// table" (seed 004 §3; DCPI §4.2.1's table, one per CPU). A record is one
// update of one entry: its key is the PC, the PID and the pattern (the event
// bits and the log2 buckets of its stall and load latencies), its value the
// record count and the latencies' sums. An entry leaves the table (evicted,
// or flushed by the daemon) expanded into the pm_* SampleEntries the
// earlier driver added one by one (firmware/profileme.h
// PROFILEME_EVENT_LIST), so the transfer ring, the database and every
// report see the same events and sums as before.
#pragma once
#include <cstddef>
#include <cstdint>

#include "driver/hot_layout.h"
#include "firmware/exponential_table.h"
#include "firmware/profileme.h"
#include "firmware/transfer_ring.h"

namespace dcpi::driver {

// The pattern: PROFILEME_BIT_* in bits 12:0 (the load and replay bits
// included), then the stall's log2 bucket + 1 (0: no stall) and the load's
// + 1 (0: not a load), so that records of one entry share their buckets.
inline constexpr uint32_t kPmPatternBits = 0x1fff;
inline constexpr uint32_t kPmStallBucketShift = 13;
inline constexpr uint32_t kPmLoadBucketShift = 17;
inline constexpr uint32_t kPmBucketMask = 0xf;
static_assert(PROFILEME_BIT_LOAD == 0x800 && (PROFILEME_BIT_LOAD & kPmPatternBits) != 0);
static_assert(PROFILEME_BIT_REPLAY == 0x1000 && (PROFILEME_BIT_REPLAY & kPmPatternBits) != 0 &&
                  (kPmPatternBits >> kPmStallBucketShift) == 0,
              "driver/fast_handler.S: lda 0x1fff, the buckets at 13 and 17");
static_assert(PROFILEME_LATENCY_BUCKETS + 1 <= kPmBucketMask + 1);

struct PmEntry {
  uint64_t pc;  // 0 with count 0: empty
  uint16_t pid;
  uint16_t count;    // records
  uint32_t pattern;  // above
  uint32_t issue;    // cycles summed: issue, fetch -> slot, slot -> issue,
  uint32_t fetch;    // load issue -> data (firmware/profileme.h registers 2, 9)
  uint32_t stall;
  uint32_t load;
};
static_assert(sizeof(PmEntry) == 32, "two entries a cache line");

// A record as an entry of its own: the registers' PC, the running PID, the
// events register's bits, the latency register and, for a load, register
// 9's load -> data (0 otherwise).
inline PmEntry pm_record(uint64_t pc, uint16_t pid, uint64_t bits, uint64_t latency,
                         uint32_t load) {
  auto field = [latency](uint32_t shift, uint64_t mask) {
    return static_cast<uint32_t>((latency >> shift) & mask);
  };
  PmEntry e{pc,
            pid,
            1,
            static_cast<uint32_t>(bits & kPmPatternBits),
            field(PROFILEME_LAT_ISSUE_SHIFT, PROFILEME_LAT_ISSUE_MASK),
            field(PROFILEME_LAT_FETCH_SHIFT, PROFILEME_LAT_FETCH_MASK),
            field(PROFILEME_LAT_STALL_SHIFT, PROFILEME_LAT_STALL_MASK),
            0};
  if (bits & PROFILEME_BIT_LOAD) {
    e.load = load;
    e.pattern |= (profileme_latency_bucket(load) + 1) << kPmLoadBucketShift;
  }
  if (e.stall != 0) e.pattern |= (profileme_latency_bucket(e.stall) + 1) << kPmStallBucketShift;
  return e;
}

// Per CPU: kPmBuckets buckets of kPmBucketEntries, round-robin eviction. A
// bucket is one 64-byte line (DCPI §4.2.1's buckets are a line each): with
// four entries, two lines: the probe of the third cost ~26 cycles a record
// (its line's miss, compress on the ev5 model).
inline constexpr uint32_t kPmBucketEntries = 2;
inline constexpr uint32_t kPmEntries = 1024;
inline constexpr uint32_t kPmBuckets = kPmEntries / kPmBucketEntries;
static_assert((kPmBuckets & (kPmBuckets - 1)) == 0);
// The SampleEntries one PmEntry expands into, at most: samples, each of the
// PROFILEME_BITS bits, three latency sums, the load's sum, two buckets and
// the replay.
inline constexpr uint32_t kPmMaxExpansion = 1 + PROFILEME_BITS + 3 + 1 + 2 + 1;

// The SampleEntries of `e`, through emit(const SampleEntry&); returns their
// number. Only nonzero counts, as the one-by-one driver's record_sum kept.
template <typename Emit>
uint32_t pm_expand(const PmEntry& e, Emit&& emit) {
  uint32_t n = 0;
  auto add = [&](uint32_t event, uint32_t count) {
    if (count == 0) return;
    emit(SampleEntry{e.pc, count, e.pid, static_cast<uint16_t>(event)});
    ++n;
  };
  add(PROFILEME_EVENT_SAMPLES, e.count);
  constexpr uint16_t kBitEvents[PROFILEME_BITS] = {
      PROFILEME_EVENT_RETIRED, PROFILEME_EVENT_IMISS,   PROFILEME_EVENT_ITBMISS,
      PROFILEME_EVENT_DMISS,   PROFILEME_EVENT_DTBMISS, PROFILEME_EVENT_MISPREDICT,
      PROFILEME_EVENT_PAL,     PROFILEME_EVENT_SMISS,   PROFILEME_EVENT_BMISS,
      PROFILEME_EVENT_WBUF,    PROFILEME_EVENT_TRAP};
  for (uint32_t b = 0; b < PROFILEME_BITS; ++b)
    if (e.pattern & (1u << b)) add(kBitEvents[b], e.count);
  add(PROFILEME_EVENT_STALL, e.stall);
  add(PROFILEME_EVENT_FETCH, e.fetch);
  add(PROFILEME_EVENT_ISSUE, e.issue);
  if (e.pattern & PROFILEME_BIT_LOAD) add(PROFILEME_EVENT_LOAD, e.load);
  const uint32_t stall_bucket = (e.pattern >> kPmStallBucketShift) & kPmBucketMask;
  if (stall_bucket != 0) add(PROFILEME_EVENT_STALL_LOG2_0 + stall_bucket - 1, e.count);
  const uint32_t load_bucket = (e.pattern >> kPmLoadBucketShift) & kPmBucketMask;
  if (load_bucket != 0) add(PROFILEME_EVENT_LOAD_LOG2_0 + load_bucket - 1, e.count);
  if (e.pattern & PROFILEME_BIT_REPLAY) add(PROFILEME_EVENT_REPLAY, e.count);
  return n;
}

// ProfileMe's per-CPU state, the assembly record's (driver/fast_handler.S
// dcpi_entry_profileme) and the C++ one's: defined in fast_handler.S's
// per-CPU section at HOT_TO_PM from each CpuHot (driver/hot_layout.h).
struct alignas(64) PmHot {
  PmEntry* table;             // this CPU's table (kPmBuckets buckets)
  const ExpTable* intervals;  // the mean's intervals (firmware/exponential_table.h)
  uint32_t seed;              // the Fetched Instruction Counter's draws (Park–Miller)
  uint8_t evict;              // the round-robin victim (DCPI §4.2.1)
  // 1: single records on and no counting mode: the assembly record may run
  // (profileme_start sets it; profileme_configure and counting mode clear it).
  uint8_t fast;
  // 1 from profileme_start to profileme_stop: the C++ record re-arms the
  // counter only then (a record taken after the stop is the last).
  uint8_t armed;
  uint8_t unused;
  // The assembly record's scratch registers, in the line it reads first: the
  // 21164's D-cache does not allocate on a write, so a save area in a line
  // of its own missed on every restore.
  uint64_t save[5];
  uint64_t padding[8];  // to CpuHot's stride: one displacement from HOT
};
static_assert(sizeof(PmHot) == PM_SIZE && PM_SIZE == HOT_SIZE, "at CpuHot's stride");
static_assert(offsetof(PmHot, table) == PM_TABLE && offsetof(PmHot, intervals) == PM_INTERVALS &&
                  offsetof(PmHot, seed) == PM_SEED && offsetof(PmHot, evict) == PM_EVICT &&
                  offsetof(PmHot, fast) == PM_FAST && offsetof(PmHot, save) == PM_SAVE &&
                  PM_SAVE + 5 * 8 == 64,
              "the state and the save area: line 0");
static_assert(sizeof(PmEntry) == 1u << PM_ENTRY_SHIFT &&
              kPmBucketEntries * sizeof(PmEntry) == 1u << PM_BUCKET_SHIFT &&
              kPmBuckets == 1u << PM_BUCKET_BITS);
static_assert(offsetof(PmEntry, pid) == 8 && offsetof(PmEntry, count) == 10 &&
                  offsetof(PmEntry, pattern) == 12 && offsetof(PmEntry, issue) == 16 &&
                  offsetof(PmEntry, fetch) == 20 && offsetof(PmEntry, stall) == 24 &&
                  offsetof(PmEntry, load) == 28,
              "driver/fast_handler.S reads quadwords {pc}, {pid, count, pattern}, "
              "{issue, fetch}, {stall, load}");
// The fast path's bucket takes the hash's bits 0-8 and 12-20 only, so it
// multiplies by the multiplier's low 21 bits (0x1779b1).
static_assert(kPmBuckets <= 512);
static_assert(kPmBucketEntries * sizeof(PmEntry) == 64, "a bucket is a line");

struct CpuHot;
PmHot& pm_hot(const CpuHot& hot);
PmHot& pm_hot_of(uint32_t cpu);
// One record into this CPU's table (at IPL 6; while the daemon flushes the
// table, expanded straight into the overflow buffer).
void pm_table_add(CpuHot& hot, const PmEntry& record);
// The daemon's flush of `cpu`'s table (its flushing flag set): every entry
// expanded through emit, then cleared.
PmEntry* pm_table(uint32_t cpu);

}  // namespace dcpi::driver
