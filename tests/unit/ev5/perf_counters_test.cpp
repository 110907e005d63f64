// The 21164's counters 1 and 2 in the ev5 model, and counter 0 on issues:
// the HRM's widths (16, 16 and 14 bits), selections, kill bits and interrupt
// frequencies (firmware/ev5_counters.h), and refusals of what the model
// cannot count.
#include "qemu/machine/plugins/ev5/perf_counters.h"

#include <gtest/gtest.h>

#include "firmware/ev5_counters.h"

namespace dcpi::ev5 {
namespace {

constexpr uint64_t kUserPc = 0x120001000;
constexpr uint64_t kKernelPc = 0xfffffc0000310000;
constexpr uint64_t kPalPc = 0xfffffc0000002040;  // PALcode: physical [0, 1 MB) in KSEG

uint64_t mux(uint8_t sel1, uint8_t sel2) {
  return uint64_t{sel1} << EV5_MUX_SEL1_SHIFT | uint64_t{sel2} << EV5_MUX_SEL2_SHIFT;
}
uint64_t freq(uint8_t ctl1, uint8_t ctl2) {
  return uint64_t{ctl1} << EV5_CTL1_SHIFT | uint64_t{ctl2} << EV5_CTL2_SHIFT;
}

PerfCounters counting(uint8_t ctl1, uint8_t ctl2) {
  PerfCounters c;
  EXPECT_TRUE(c.mux(mux(EV5_SEL1_LOADS, EV5_SEL2_DCACHE_MISSES)));
  EXPECT_TRUE(c.frequency(freq(ctl1, ctl2)));
  c.enable(EV5_OVERFLOW_COUNTERS);
  return c;
}

uint64_t count_until_interrupt(PerfCounters& c, ModelEvent e, uint64_t pc, uint64_t limit) {
  for (uint64_t n = 1; n <= limit; ++n)
    if (c.count(e, pc)) return n;
  return 0;
}

TEST(PerfCounters, Counter2WrapsAt14BitsAndCounter1At16) {
  PerfCounters c = counting(EV5_CTL_WRAP, EV5_CTL_WRAP);
  EXPECT_EQ(count_until_interrupt(c, ModelEvent::kDCacheMiss, kUserPc, 1 << 20), 1u << 14);
  EXPECT_EQ(count_until_interrupt(c, ModelEvent::kLoad, kUserPc, 1 << 20), 1u << 16);
  EXPECT_EQ(c.interrupts(1), 1u);
  EXPECT_EQ(c.interrupts(2), 1u);
}

TEST(PerfCounters, Every256AndTheOverflowBitNamesTheCounter) {
  PerfCounters c = counting(EV5_CTL_COUNT, EV5_CTL_256);
  for (int i = 0; i < 255; ++i) EXPECT_EQ(c.count(ModelEvent::kDCacheMiss, kUserPc), 0u);
  EXPECT_EQ(c.count(ModelEvent::kDCacheMiss, kUserPc), uint64_t{EV5_OVERFLOW_CTR2});
  // Counter 1 counts (CTL 1) but never interrupts.
  EXPECT_EQ(count_until_interrupt(c, ModelEvent::kLoad, kUserPc, 1 << 17), 0u);
  EXPECT_EQ(c.value(1), (1u << 17) & 0xffff);
}

TEST(PerfCounters, WriteAndReadUseTheHrmFields) {
  PerfCounters c = counting(EV5_CTL_WRAP, EV5_CTL_WRAP);
  c.write(uint64_t{0xfffe} << EV5_CTR1_SHIFT | uint64_t{0x3fff} << EV5_CTR2_SHIFT);
  EXPECT_EQ(c.read(), uint64_t{0xfffe} << EV5_CTR1_SHIFT | uint64_t{0x3fff} << EV5_CTR2_SHIFT);
  EXPECT_EQ(c.count(ModelEvent::kDCacheMiss, kUserPc), uint64_t{EV5_OVERFLOW_CTR2});
  EXPECT_EQ(c.count(ModelEvent::kLoad, kUserPc), 0u);
  EXPECT_EQ(c.count(ModelEvent::kLoad, kUserPc), uint64_t{EV5_OVERFLOW_CTR1});
}

TEST(PerfCounters, KillBitsStopCountingInTheirMode) {
  PerfCounters c = counting(EV5_CTL_COUNT, EV5_CTL_COUNT);
  ASSERT_TRUE(c.options(EV5_KILL_KERNEL | EV5_KILL_PAL));
  c.count(ModelEvent::kLoad, kKernelPc);
  c.count(ModelEvent::kLoad, kPalPc);
  c.count(ModelEvent::kLoad, kUserPc);
  EXPECT_EQ(c.value(1), 1u);
  ASSERT_TRUE(c.options(EV5_KILL_USER));
  c.count(ModelEvent::kLoad, kUserPc);
  c.count(ModelEvent::kLoad, kKernelPc);
  EXPECT_EQ(c.value(1), 2u);
}

TEST(PerfCounters, DisabledOrUnselectedEventsAreNotCounted) {
  PerfCounters c = counting(EV5_CTL_COUNT, EV5_CTL_COUNT);
  EXPECT_FALSE(c.counts(ModelEvent::kICacheMiss));
  c.count(ModelEvent::kICacheMiss, kUserPc);
  EXPECT_EQ(c.value(2), 0u);
  c.disable(EV5_OVERFLOW_CTR2);
  c.count(ModelEvent::kDCacheMiss, kUserPc);
  EXPECT_EQ(c.value(2), 0u);
  ASSERT_TRUE(c.mux(mux(EV5_SEL1_STORES, EV5_SEL2_ICACHE_MISSES)));
  c.enable(EV5_OVERFLOW_CTR2);
  c.count(ModelEvent::kICacheMiss, kUserPc);
  c.count(ModelEvent::kStore, kUserPc);
  EXPECT_EQ(c.value(2), 1u);
  EXPECT_EQ(c.value(1), 1u);
}

TEST(PerfCounters, RefusesWhatTheModelCannotCount) {
  PerfCounters c = counting(EV5_CTL_COUNT, EV5_CTL_COUNT);
  std::string error;
  EXPECT_FALSE(c.mux(mux(EV5_SEL1_LOADS, 0x8), &error));  // loads merged in the MAF
  EXPECT_NE(error.find("counter 2 selection 8"), std::string::npos) << error;
  EXPECT_FALSE(c.mux(mux(0x2, EV5_SEL2_DCACHE_MISSES), &error));  // pipe dry
  EXPECT_FALSE(c.mux(mux(0x3, EV5_SEL2_DCACHE_MISSES), &error));  // replay traps
  EXPECT_FALSE(c.options(1, &error));
  EXPECT_FALSE(c.frequency(uint64_t{EV5_CTL_256} << EV5_CTL0_SHIFT, &error));
  // The refusals changed nothing.
  c.count(ModelEvent::kDCacheMiss, kUserPc);
  EXPECT_EQ(c.value(2), 1u);
  // A counter that is off may hold any selection.
  PerfCounters off;
  EXPECT_TRUE(off.mux(mux(0x3, 0x0)));
  EXPECT_FALSE(off.frequency(freq(EV5_CTL_COUNT, 0)));
}

// PC mispredicts (SEL2 2, issue 26): counted like the other counter-2 events.
TEST(PerfCounters, PcMispredictsAreCountedOnCounterTwo) {
  PerfCounters c = counting(EV5_CTL_COUNT, EV5_CTL_COUNT);
  ASSERT_TRUE(c.mux(mux(EV5_SEL1_LOADS, EV5_SEL2_PC_MISPREDICTS)));
  EXPECT_EQ(c.event_of(2), ModelEvent::kPcMispredict);
  c.count(ModelEvent::kPcMispredict, kUserPc);
  c.count(ModelEvent::kBranchMispredict, kUserPc);  // another selection's
  EXPECT_EQ(c.value(2), 1u);
}

// The issue-width cycles (SEL1 0, 4-7) and long stalls (SEL2 0) are the
// model's: selected, counted, and n events at once wrap the counter once.
TEST(PerfCounters, IssueWidthCyclesAndLongStallsAreCounted) {
  PerfCounters c;
  ASSERT_TRUE(c.mux(mux(EV5_SEL1_DUAL_ISSUE_CYCLES, EV5_SEL2_LONG_STALLS)));
  ASSERT_TRUE(c.frequency(freq(EV5_CTL_WRAP, EV5_CTL_WRAP)));
  c.enable(EV5_OVERFLOW_COUNTERS);
  EXPECT_EQ(c.event_of(1), ModelEvent::kIssue2);
  EXPECT_EQ(c.event_of(2), ModelEvent::kLongStall);
  EXPECT_TRUE(c.counts(ModelEvent::kIssue2));
  EXPECT_FALSE(c.counts(ModelEvent::kIssue1));
  EXPECT_TRUE(c.counts_issue_groups());
  c.count(ModelEvent::kIssue2, kUserPc);
  c.count(ModelEvent::kLongStall, kUserPc);
  EXPECT_EQ(c.value(1), 1u);
  EXPECT_EQ(c.value(2), 1u);
  ASSERT_TRUE(c.mux(mux(EV5_SEL1_NONISSUE_CYCLES, EV5_SEL2_LONG_STALLS)));
  c.write(uint64_t{0xfff0} << EV5_CTR1_SHIFT);
  EXPECT_EQ(c.count(ModelEvent::kNonIssue, kUserPc, 15), 0u);  // 0xffff
  EXPECT_EQ(c.count(ModelEvent::kNonIssue, kUserPc, 40), uint64_t{EV5_OVERFLOW_CTR1});
  EXPECT_EQ(c.value(1), 39u);
  // Every 256: an interrupt when n events cross a multiple of 256.
  ASSERT_TRUE(c.frequency(freq(EV5_CTL_256, EV5_CTL_WRAP)));
  c.write(uint64_t{250} << EV5_CTR1_SHIFT);
  EXPECT_EQ(c.count(ModelEvent::kNonIssue, kUserPc, 5), 0u);
  EXPECT_EQ(c.count(ModelEvent::kNonIssue, kUserPc, 300), uint64_t{EV5_OVERFLOW_CTR1});
}

// Counter 0 on issues (SEL0 = 1): the model's, 16 bits, the kill bits
// apply, its field 63:48 in read and write (wrperfmon 5 and 9).
TEST(PerfCounters, Counter0CountsIssuesWhenSelected) {
  PerfCounters c;
  EXPECT_FALSE(c.counts_issues());
  ASSERT_TRUE(c.mux(EV5_MUX_SEL0_ISSUES));
  ASSERT_TRUE(c.frequency(uint64_t{EV5_CTL_WRAP} << EV5_CTL0_SHIFT));
  ASSERT_TRUE(c.options(EV5_KILL_KERNEL | EV5_KILL_PAL));
  EXPECT_FALSE(c.counts_issues());  // not enabled yet
  c.enable(1);
  ASSERT_TRUE(c.counts_issues());
  EXPECT_EQ(c.count_issues(7, kKernelPc), 0u);
  EXPECT_EQ(c.count_issues(7, kPalPc), 0u);
  EXPECT_EQ(c.count_issues(7, kUserPc), 0u);
  EXPECT_EQ(c.read(), uint64_t{7} << EV5_CTR0_SHIFT);
  c.write(uint64_t{0xfffe} << EV5_CTR0_SHIFT);
  EXPECT_EQ(c.count_issues(1, kUserPc), 0u);
  EXPECT_EQ(c.count_issues(3, kUserPc), uint64_t{EV5_OVERFLOW_CTR0});  // 0xffff + 3 wraps
  EXPECT_EQ(c.value(0), 2u);
  EXPECT_EQ(c.interrupts(0), 1u);
  // Back on cycles: counter 0 is PALcode's clock again, not in the fields.
  ASSERT_TRUE(c.mux(0));
  EXPECT_FALSE(c.counts_issues());
  EXPECT_EQ(c.read(), 0u);
}

TEST(PerfCounters, ModesByAddress) {
  EXPECT_EQ(mode_of(kUserPc), Mode::kUser);
  EXPECT_EQ(mode_of(kKernelPc), Mode::kKernel);
  EXPECT_EQ(mode_of(kPalPc), Mode::kPal);
}

}  // namespace
}  // namespace dcpi::ev5
