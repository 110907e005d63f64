// ProfileMe's software side (issue 27; seed 004 §3, firmware/profileme.h):
// the driver arms each CPU's Fetched Instruction Counter with a randomized
// interval, and on the record's interrupt (PALcode's dedicated delivery,
// EV5_OVERFLOW_PROFILEME, at IPL 6) reads the Profile Registers, adds the
// record to its aggregation table as one entry of (PID, PC, event-bit
// pattern) with the latencies summed (driver/profileme_table.h), and arms
// the counter again: the paper's "software interrupt handler ... reads the
// Profile Registers" and restarts sampling.
#include "driver/driver.h"
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "driver/profileme_table.h"
#include "firmware/exponential_table.h"
#include "firmware/park_miller.h"
#include "firmware/profileme.h"

extern "C" {
void dcpi_entry_profileme();  // driver/fast_handler.S
void dcpi_profileme_record(dcpi::driver::CpuHot* hot);
}

namespace dcpi::driver {

namespace {

uint32_t g_interval_mean = 0;                    // 0: ProfileMe off
uint32_t g_pair_window = 0;                      // W of paired sampling, 0: single records
constexpr uint32_t kProfileMeSeed = 0x3c6ef372;  // its own stream, apart from the counters'

// Memoryless intervals (firmware/exponential_table.h): the handler's own
// return after the re-arm is counted too, and only an interval that can end
// anywhere, however soon, tags its instructions as often as the program's,
// so that k·S is unbiased (seed 004 §5.1). A narrow uniform interval,
// longer than that return, never tags it and projected the program's
// instructions high by return / S (5 % at S = 8K). The table is built once
// per mean (profileme_configure), so a draw is a look-up and a multiply.
ExpTable g_intervals{};

uint64_t draw_interval(PmHot& pm) { return exp_table_interval(g_intervals, pm.seed); }

// The ARM word: the major interval, and with pairs a minor interval drawn
// uniformly in [1, W] (seed 004 §5.2.2: "a pseudo-random number uniformly
// distributed between 1 and W").
uint64_t arm_word(PmHot& pm) {
  const uint64_t major = draw_interval(pm) & PROFILEME_ARM_MAJOR_MASK;
  if (g_pair_window == 0) return major;
  pm.seed = park_miller_next(pm.seed);
  const uint64_t minor = 1 + scale_to_range(pm.seed, g_pair_window);
  return major | minor << PROFILEME_ARM_MINOR_SHIFT;
}

uint64_t profile_register(uint64_t index) {
  return static_cast<uint64_t>(pal::wrperfmon(PERFMON_PROFILEME_READ, index));
}

uint32_t field(uint64_t word, uint32_t shift, uint64_t mask) {
  return static_cast<uint32_t>((word >> shift) & mask);
}

// What a pair's overlap test needs of each record.
struct RecordSummary {
  uint64_t pc;
  uint64_t bits;
  uint32_t charged;  // its cycles: issue + fetch -> slot + slot -> issue
};

// One record (the registers at `base`) into the table as one entry of
// (PID, PC, pattern) with its latencies summed (driver/profileme_table.h),
// with its cycles in progress when paired (at least its issue cycle,
// issue_slots.h).
RecordSummary record(CpuHot& hot, uint64_t base) {
  const uint64_t pc = profile_register(base + PROFILEME_REG_PC);
  const uint64_t bits = profile_register(base + PROFILEME_REG_EVENTS);
  const uint64_t latency = profile_register(base + PROFILEME_REG_LATENCY);
  const auto pid = static_cast<uint16_t>(hot.pid);
  // A load's issue -> data (register 9, or 10 for the pair's second),
  // summed and counted in its log2 bucket, and the stall's bucket: the
  // distributions (issue 27 item 4). Only a load's register 9 is read: any
  // other instruction's holds its unit latency, the same in every record
  // of its PC, which the host multiplies out. A zero stall has no bucket:
  // its records are pm_samples less the buckets' sum.
  const uint32_t load =
      (bits & PROFILEME_BIT_LOAD)
          ? field(profile_register(base ? PROFILEME_REG_LATENCY2_SECOND : PROFILEME_REG_LATENCY2),
                  PROFILEME_LAT2_LOAD_SHIFT, PROFILEME_LAT2_LOAD_MASK)
          : 0;
  const PmEntry entry = pm_record(pc, pid, bits, latency, load);
  pm_table_add(hot, entry);
  const uint32_t charged = entry.stall + entry.fetch + entry.issue;
  // In progress from fetch to issue, at least its issue cycle; a squashed
  // instruction never was (issue_slots.h).
  if (g_pair_window != 0 && (bits & PROFILEME_BIT_RETIRED)) {
    const uint32_t window = charged ? charged : 1;
    record_sum(hot, pc, pid, PROFILEME_EVENT_WINDOW, window);
    // The spread of the windows (a rare long miss among hits) for the
    // estimate's error: dcpi score's sigma of the wasted slots.
    const uint64_t square = uint64_t{window} * window;
    record_sum(hot, pc, pid, PROFILEME_EVENT_WINDOW_SQ,
               square > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(square));
  }
  return RecordSummary{pc, bits, charged};
}

// Seed 004 §5.2.3's useful overlap on the in-order 21164: the second issued
// while the first was in progress, and so the first while the second was,
// exactly when they issued in one group: the fetch latency is the first's
// own cycles (nothing between them took any) and the second took none
// (docs/profileme.md "Paired sampling"). Both must have retired.
void record_overlap(CpuHot& hot, const RecordSummary& first, const RecordSummary& second) {
  if (!(first.bits & second.bits & PROFILEME_BIT_RETIRED) || second.charged != 0) return;
  if (profile_register(PROFILEME_REG_PAIR_FETCH) != first.charged) return;
  const auto pid = static_cast<uint16_t>(hot.pid);
  record_sum(hot, first.pc, pid, PROFILEME_EVENT_OVERLAP, 1);
  record_sum(hot, second.pc, pid, PROFILEME_EVENT_OVERLAP, 1);
}

}  // namespace

int64_t profileme_configure(uint32_t interval_mean, uint32_t pair_window) {
  if (interval_mean != 0 && !machine_has_event_counters()) return kControlUncountableEvent;
  if (pair_window > PROFILEME_PAIR_WINDOW_MAX) return kControlBadArgument;
  g_interval_mean = interval_mean;
  if (interval_mean != 0) exp_table_fill(g_intervals, interval_mean);
  g_pair_window = interval_mean != 0 ? pair_window : 0;
  // Until profileme_start, every record goes through C++, which reads the
  // new configuration (off: no re-arm).
  profileme_slow_path();
  return kControlOk;
}

void profileme_slow_path() {
  for (uint32_t cpu = 0; cpu < kMaxCpus; ++cpu) pm_hot_of(cpu).fast = 0;
}

uint32_t profileme_interval() { return g_interval_mean; }
uint32_t profileme_pair_window() { return g_pair_window; }

void profileme_reseed(CpuHot& hot) { pm_hot(hot).seed = start_seed(kProfileMeSeed + hot.cpu); }

void profileme_start(CpuHot& hot) {
  if (g_interval_mean == 0) return;
  PmHot& pm = pm_hot(hot);
  if (pm.seed == 0) pm.seed = start_seed(kProfileMeSeed + hot.cpu);
  pm.table = pm_table(hot.cpu);
  pm.intervals = &g_intervals;
  // Pairs (two register sets, the overlap) and counting mode stay in C++
  // (record_overlap, counting_overflow).
  pm.fast = g_pair_window == 0 && !counting_active();
  pm.armed = 1;
  // The record's interrupt alone takes the dedicated delivery counter 0
  // has (DCPI §4.1's cheap path; firmware/profileme.h
  // PERFMON_PROFILEME_ENTRY): no OSF/1 frame, no kernel entry. PALcode
  // delivers it with the context wrperfmon 8 registered (counter_start).
  pal::wrperfmon(PERFMON_PROFILEME_ENTRY, reinterpret_cast<uint64_t>(dcpi_entry_profileme));
  pal::wrperfmon(PERFMON_PROFILEME_ARM, arm_word(pm));
}

void profileme_interrupt(CpuHot& hot) {
  const RecordSummary first = record(hot, 0);
  if (g_pair_window != 0) record_overlap(hot, first, record(hot, PROFILEME_REG_SECOND));
  PmHot& pm = pm_hot(hot);
  if (g_interval_mean != 0 && pm.armed) pal::wrperfmon(PERFMON_PROFILEME_ARM, arm_word(pm));
}

void profileme_stop(CpuHot& hot) {
  PmHot& pm = pm_hot(hot);
  if (!pm.armed) return;  // never started here (or not a machine with ProfileMe)
  pm.fast = 0;            // the assembly record re-arms at its return: C++ only
  pm.armed = 0;
  pal::wrperfmon(PERFMON_PROFILEME_ARM, 0);
}

}  // namespace dcpi::driver

// ProfileMe's dedicated delivery when the assembly record
// (driver/fast_handler.S dcpi_entry_profileme) cannot do it: pairs, counting
// mode, the table being flushed, an eviction, a sum that would wrap. On this
// CPU's chain stack at IPL 6; the registers read again with CALL_PAL (the
// model keeps them until the counter is armed again). The record, as the
// classic delivery's event_counter_interrupt does it for
// EV5_OVERFLOW_PROFILEME alone.
extern "C" void dcpi_profileme_record(dcpi::driver::CpuHot* hot) {
  using namespace dcpi::driver;
  if (counting_overflow(EV5_OVERFLOW_PROFILEME)) return;  // counting mode: no record
  profileme_interrupt(*hot);
}
