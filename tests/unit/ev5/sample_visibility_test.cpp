// Which cycles a counter sample can land on (sample_visibility.h): none from
// a delivery to the reload, PAL's where PAL returns to, and the truth
// file's `visible` records.
#include "qemu/machine/plugins/ev5/sample_visibility.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "firmware/pal_abi.h"
#include "qemu/machine/plugins/ev5/machine_options.h"
#include "qemu/machine/plugins/ev5/truth_file.h"
#include "qemu/machine/plugins/ev5/vcpu_model.h"
#include "tests/unit/ev5/encode.h"
#include "tests/unit/ev5/visibility_blocks.h"

namespace dcpi::ev5 {
namespace {

using State = SampleVisibility::State;
using testing::kAddq;
using testing::kKernel;
using testing::kPal;
using testing::kUser;
using testing::two_at;
constexpr uint32_t kCallsys = 0x83, kRtiperf = 0x3b, kWrperfmon = 0x39;

struct Blocks {
  BlockTiming user = two_at(kUser), user_call = two_at(kUser + 0x40, kCallsys);
  BlockTiming reloader = two_at(kKernel, kWrperfmon), kernel = two_at(kKernel + 0x40);
  BlockTiming handler = two_at(kKernel + 0x80, kRtiperf);
  BlockTiming wrperfmon = two_at(kPal + 0x1000 + 64 * kWrperfmon);
  BlockTiming rtiperf = two_at(kPal + 0x1000 + 64 * kRtiperf);
  BlockTiming callsys = two_at(kPal + 0x2000 + 64 * (kCallsys - 0x80));
  BlockTiming clock = two_at(kPal + PAL_VECTOR_CLOCK);
  BlockTiming delivery = two_at(kPal + PAL_COUNTER_DELIVERY);
  BlockTiming masked = two_at(kKernel + 0xc0);  // kernel code the tests run at a high IPL
};

// The driver's reload: a kernel block ending in CALL_PAL wrperfmon, PAL's
// wrperfmon, back in the kernel.
void reload(SampleVisibility& v, const Blocks& b) {
  v.enter(b.reloader, kWrperfmon);
  v.enter(b.wrperfmon, kAddq);
  v.enter(b.kernel, kAddq);
}

TEST(Ev5SampleVisibility, NothingIsVisibleBeforeTheFirstReload) {
  const Blocks b;
  SampleVisibility v(true);
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.state(), State::kOff);
  v.book(kUser, 7);
  reload(v, b);
  EXPECT_EQ(v.state(), State::kCounting);
  v.enter(b.user, kAddq);
  v.book(kUser, 50);
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.visible().at(kUser), 50 + b.user.instructions[0].cost);  // the stall, the block
}

TEST(Ev5SampleVisibility, NothingIsVisibleFromADeliveryToTheReload) {
  const Blocks b;
  SampleVisibility v(true);
  reload(v, b);
  v.enter(b.user, kAddq);
  v.cut(1);  // the exit: its second instruction did not run
  v.enter(b.clock, kAddq);
  v.enter(b.delivery, kAddq);
  v.enter(b.handler, kRtiperf);
  EXPECT_EQ(v.state(), State::kOff);
  v.book(kKernel + 0x80, 40);
  v.enter(b.rtiperf, kAddq);  // the reload and the return
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.state(), State::kCounting);
  EXPECT_EQ(v.visible().count(kKernel + 0x80), 0u);
  // The block the exit cut short (its first instruction), and PAL's
  // cycles after the reload (rtiperf's own, where it returns to).
  EXPECT_EQ(v.visible().at(kUser), b.user.instructions[0].cost + b.rtiperf.static_cycles);
  EXPECT_EQ(v.visible().count(kUser + 4), 0u);
}

// PALcode records the sample itself (firmware/pal_abi.h
// PERFMON_PAL_RECORDS): no handler, no rtiperf; the count restarts at the
// instruction at PAL_COUNTER_RELOAD, and PAL returns to the interrupted PC.
TEST(Ev5SampleVisibility, PalcodesOwnRecordRestartsTheCountWhereItReloads) {
  const Blocks b;
  SampleVisibility v(true);
  reload(v, b);
  v.enter(b.user, kAddq);
  v.cut(1);
  v.enter(b.clock, kAddq);
  v.enter(b.delivery, kAddq);
  const BlockTiming record = two_at(kPal + PAL_COUNTER_RELOAD - 4);  // the draw's end, the reload
  v.enter(record, kAddq);
  EXPECT_EQ(v.state(), State::kOff);
  v.reloaded_in_pal(record.pc + 4);
  EXPECT_EQ(v.state(), State::kPal);
  v.enter(b.user, kAddq);  // hw_rei: back where it was interrupted
  EXPECT_EQ(v.state(), State::kCounting);
  // The block the exit cut short (its first instruction), and PAL's
  // cycles from the reload on, where it returned to; none before.
  EXPECT_EQ(v.visible().at(kUser), b.user.instructions[0].cost + record.instructions[1].cost);
  EXPECT_EQ(v.visible().count(kUser + 4), 0u);
}

TEST(Ev5SampleVisibility, PalCyclesAreSeenWherePalReturns) {
  const Blocks b;
  SampleVisibility v(true);
  reload(v, b);
  v.enter(b.user_call, kCallsys);
  v.enter(b.callsys, kAddq);
  EXPECT_EQ(v.state(), State::kPal);
  v.book(b.callsys.pc, 30);  // a stall in PAL
  v.enter(b.kernel, kAddq);  // callsys goes on in the kernel
  EXPECT_EQ(v.state(), State::kCounting);
  EXPECT_EQ(v.visible().count(b.callsys.pc), 0u);
  // (and the kernel block after the reload, which starts there too, with
  // the reloading PAL block's cycles, which returned there)
  EXPECT_EQ(v.visible().at(kKernel + 0x40),
            30 + b.callsys.static_cycles + b.kernel.static_cycles + b.wrperfmon.static_cycles);
}

TEST(Ev5SampleVisibility, PalCutShortByAnInterruptIsSeenWhereTheInterruptReturns) {
  const Blocks b;
  SampleVisibility v(true);
  reload(v, b);
  v.enter(b.user_call, kCallsys);
  v.enter(b.callsys, kAddq);
  v.enter(b.clock, kAddq);  // pending on PAL's return: taken at once
  v.enter(b.delivery, kAddq);
  v.enter(b.handler, kRtiperf);
  v.enter(b.rtiperf, kAddq);
  v.enter(b.user, kAddq);  // back where the callsys returned
  // The callsys PAL block (the clock vector's came after the overflow), and
  // rtiperf's after the reload.
  EXPECT_EQ(v.visible().at(kUser), b.callsys.static_cycles + b.rtiperf.static_cycles);
}

// DCPI §4.1.3's other blind spot: the overflow waits while the IPL masks
// it (5 and above: QEMU's clock interrupt) and lands where the IPL drops.
TEST(Ev5SampleVisibility, HighIplCyclesAreSeenWhereTheIplDrops) {
  const Blocks b;
  SampleVisibility v(true);
  reload(v, b);
  v.set_ipl(7);  // the kernel's swpipl (the block that called it ran at 0)
  v.enter(b.masked, kAddq);
  EXPECT_EQ(v.state(), State::kHighIpl);
  v.book(kKernel + 0xc0, 25);  // a stall at IPL 7
  v.set_ipl(0);                // its last instruction: swpipl back to 0
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.state(), State::kCounting);
  EXPECT_EQ(v.visible().count(kKernel + 0xc0), 0u);
  EXPECT_EQ(v.visible().at(kUser), 25 + b.masked.static_cycles);
}

TEST(Ev5SampleVisibility, AnInterruptHandlerAtIpl5IsSeenWhereItReturns) {
  const Blocks b;
  BlockTiming rti = two_at(kPal + 0x1000 + 64 * 0x3f);
  SampleVisibility v(true);
  reload(v, b);
  v.enter(b.user, kAddq);
  v.enter(b.clock, kAddq);  // the tick, not the counter
  v.set_ipl(5);             // PAL enters the kernel at IPL_CLOCK
  v.enter(b.masked, 0x3f);  // the handler, ending in rti
  EXPECT_EQ(v.state(), State::kHighIpl);
  v.enter(rti, kAddq);
  v.set_ipl(0);  // rti restores the interrupted PS
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.visible().count(kKernel + 0xc0), 0u);
  EXPECT_EQ(v.visible().at(kUser), b.user.static_cycles + b.clock.static_cycles +
                                       b.masked.static_cycles + rti.static_cycles);
}

TEST(Ev5SampleVisibility, PalReturningToAMaskedIplKeepsWaiting) {
  const Blocks b;
  SampleVisibility v(true);
  reload(v, b);
  v.set_ipl(6);
  v.enter(b.user_call, kCallsys);  // (a kernel call at IPL 6, as far as visibility goes)
  v.enter(b.callsys, kAddq);
  v.enter(b.masked, kAddq);  // PAL returns; the IPL still masks
  EXPECT_EQ(v.state(), State::kHighIpl);
  EXPECT_EQ(v.visible().count(kKernel + 0xc0), 0u);
  v.set_ipl(4);  // IPL_DEVICE does not mask the clock
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.state(), State::kCounting);
  EXPECT_EQ(v.visible().at(kUser),
            b.user_call.static_cycles + b.callsys.static_cycles + b.masked.static_cycles);
}

// However long a masked stretch, one overflow is one interrupt: it lands as
// E[min(X, L)] cycles, X uniform in [period, period + range].
TEST(Ev5SampleVisibility, AMaskedStretchLandsAsAtMostOnePeriod) {
  const Blocks b;
  auto landed = [&](int64_t stretch) {
    SampleVisibility v(true, 1000, 200);
    reload(v, b);
    v.set_ipl(7);
    v.enter(b.masked, kAddq);
    v.book(kKernel + 0xc0, stretch - static_cast<int64_t>(b.masked.static_cycles));
    v.set_ipl(0);
    v.enter(b.user, kAddq);
    return v.visible().at(kUser);
  };
  EXPECT_EQ(landed(400), 400);       // shorter than any period: whole
  EXPECT_EQ(landed(1000), 1000);     // up to the smallest period
  EXPECT_EQ(landed(1100), 1075);     // (1100² - 1000²)/2/200 + 1100 × 100/200
  EXPECT_EQ(landed(1200), 1100);     // the mean period
  EXPECT_EQ(landed(5000000), 1100);  // a long sleep: one sample
}

// With the drawn period known (read at the reload), a cycle weighs by the
// hazard of the period at its count since the reload, up to the overflow
// and no further: nothing before the smallest period (the handler's
// return, whatever it perturbed), and over a whole count the weights sum to
// mean period × H(X), H(X) = -ln((base + range - X) / range): the
// compensator, whose expectation is one sample per count.
TEST(Ev5SampleVisibility, WithTheDrawnPeriodACycleWeighsByItsHazardUpToTheOverflow) {
  const Blocks b;
  SampleVisibility v(true, 100, 100);
  v.enter(b.reloader, kWrperfmon);
  v.next_period(150);  // read from the driver's reload
  v.enter(b.wrperfmon, kAddq);
  v.enter(b.kernel, kAddq);
  v.enter(b.user, kAddq);
  v.book(kUser, 120);  // a stall across the smallest period
  v.book(kUser, 100);  // the overflow at 150 falls in this one: nothing after it weighs
  v.enter(b.user_call, kCallsys);
  EXPECT_EQ(v.visible().count(kKernel + 0x40), 0u);  // before the smallest period
  EXPECT_NEAR(v.visible().at(kUser), 150 * std::log(2.0), 1e-9);
  EXPECT_EQ(v.visible().count(kUser + 4), 0u);
  EXPECT_EQ(v.visible().count(kUser + 0x40), 0u);  // after the overflow
}

// The event counters' wrperfmon functions (a write of counters 1 and 2, a
// read, a mux) leave counter 0's count alone: its hazard goes on.
TEST(Ev5SampleVisibility, AWrperfmonOfTheEventCountersIsNoReload) {
  const Blocks b;
  SampleVisibility v(true, 100, 100);
  v.enter(b.reloader, kWrperfmon);
  v.next_period(150);
  v.enter(b.wrperfmon, kAddq);
  v.enter(b.kernel, kAddq);
  v.enter(b.user, kAddq);
  v.book(kUser, 120);
  v.enter(b.reloader, kWrperfmon);
  v.keeps_count();  // the plugin saw a0 != PERFMON_WRITE
  v.enter(b.wrperfmon, kAddq);
  v.enter(b.user_call, kCallsys);
  v.book(kUser + 0x40, 100);  // the overflow at 150 falls in this one
  v.enter(b.user, kAddq);
  // One count from the reload to the overflow: its whole compensator,
  // mean x H(150), wherever it landed (a new count would weigh raw cycles).
  double total = 0;
  for (const auto& [key, weight] : v.visible()) total += weight;
  EXPECT_NEAR(total, 150 * std::log(2.0), 1e-9);
  EXPECT_GT(v.visible().at(kUser + 0x40), 0);
}

// A masked stretch the overflow falls in: its weight lands where the IPL drops.
TEST(Ev5SampleVisibility, AMaskedStretchsHazardLandsWhereTheIplDrops) {
  const Blocks b;
  SampleVisibility v(true, 100, 100);
  v.enter(b.reloader, kWrperfmon);
  v.next_period(190);
  v.enter(b.wrperfmon, kAddq);
  v.enter(b.kernel, kAddq);
  v.set_ipl(7);
  v.enter(b.masked, kAddq);
  v.book(kKernel + 0xc0, 300);
  v.set_ipl(0);
  v.enter(b.user, kAddq);
  EXPECT_NEAR(v.visible().at(kUser), 150 * -std::log(10.0 / 100), 1e-9);
  EXPECT_EQ(v.visible().count(kKernel + 0xc0), 0u);
}

// An idle CPU halts in wtint (QEMU runs it inline) and nothing reports the
// sleep; woken by the overflow, the sleep ran the count to the drawn period:
// the rest of the count's weight lands after the wtint, where the sample is.
TEST(Ev5SampleVisibility, AnUnreportedSleepEndedByTheOverflowLandsAfterTheWtint) {
  const Blocks b;
  const BlockTiming idle = two_at(kKernel + 0x100, 0x3e);  // ... call_pal wtint
  SampleVisibility v(true, 100, 100);
  v.enter(b.reloader, kWrperfmon);
  v.next_period(150);
  v.enter(b.wrperfmon, kAddq);
  v.enter(b.kernel, kAddq);
  v.enter(idle, 0x3e);
  v.enter(b.clock, kAddq);     // woken: the interrupt's PAL entry
  v.enter(b.delivery, kAddq);  // the counter's
  v.enter(b.handler, kRtiperf);
  v.enter(b.rtiperf, kAddq);
  const BlockTiming after = two_at(kKernel + 0x108);
  v.enter(after, kAddq);  // PAL returns after the wtint
  EXPECT_NEAR(v.visible().at(kKernel + 0x108), 150 * std::log(2.0) + b.rtiperf.static_cycles, 1e-9);
}

// The boot CPU's idle loop sleeps at IPL 7 and takes the overflow that woke
// it after the swpipl that lowers the IPL (issue 25: its 204,543 samples
// had no expectation on 4 CPUs; the kernel's placement was 120x noise).
TEST(Ev5SampleVisibility, ASleepAtAMaskingIplLandsAfterTheSwpiplThatEndsIt) {
  const Blocks b;
  const BlockTiming idle = two_at(kKernel + 0x100, 0x3e);   // ... call_pal wtint
  const BlockTiming lower = two_at(kKernel + 0x108, 0x35);  // ... call_pal swpipl
  const BlockTiming after = two_at(kKernel + 0x110);
  SampleVisibility v(true, 100, 100);
  v.enter(b.reloader, kWrperfmon);
  v.next_period(150);
  v.enter(b.wrperfmon, kAddq);
  v.enter(b.kernel, kAddq);
  v.set_ipl(7);
  v.enter(idle, 0x3e);
  v.enter(lower, 0x35);  // woken, still at IPL 7
  v.set_ipl(0);
  v.enter(b.delivery, kAddq);  // taken as the IPL drops
  v.enter(b.handler, kRtiperf);
  v.enter(b.rtiperf, kAddq);
  v.enter(after, kAddq);
  // The sleep's weight (the hazard from a few cycles, below the period's
  // base, to the drawn 150) and the return's PAL cycles.
  EXPECT_NEAR(v.visible().at(kKernel + 0x110), 150 * std::log(2.0) + b.rtiperf.static_cycles, 1e-9);
  EXPECT_EQ(v.visible().count(kKernel + 0x108), 0u);
}

// The kernel sleeps at IPL 7 and reports the sleep (CSERVE_SLEPT): a sleep
// ends at the first overflow in it, so it lands whole, not capped.
TEST(Ev5SampleVisibility, AReportedSleepLandsWholeWhereTheIplDrops) {
  const Blocks b;
  SampleVisibility v(true, 1000, 200);
  reload(v, b);
  v.set_ipl(7);
  v.enter(b.masked, kAddq);
  v.book_sleep(5000);
  v.set_ipl(0);
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.visible().at(kUser), 5000 + b.masked.static_cycles);
}

// When an interrupt is pending as the IPL drops, it is taken at once: the
// stretch lands on the instruction after the swpipl, which never entered.
TEST(Ev5SampleVisibility, AnInterruptTakenAsTheIplDropsLandsAfterTheSwpipl) {
  const Blocks b;
  SampleVisibility v(true, 1000, 200);
  reload(v, b);
  v.set_ipl(7);
  v.enter(b.masked, kAddq);
  v.book_sleep(700);
  v.set_ipl(0);             // the block's last instruction lowered it
  v.enter(b.clock, kAddq);  // the pending interrupt
  v.enter(b.delivery, kAddq);
  const uint64_t after = kKernel + 0xc0 + 4 * b.masked.instructions.size();
  EXPECT_EQ(v.visible().at(after), 700 + b.masked.static_cycles);
}

// Round-robin icount: a CPU's counter counts the others' cycles while it
// waits for its turn; an overflow then is taken where it resumes.
TEST(Ev5SampleVisibility, AWaitForTheTurnLandsWhereTheCpuResumes) {
  const Blocks b;
  SampleVisibility v(true, 1000, 200);
  reload(v, b);
  v.enter(b.user, kAddq);
  v.waited(300, kUser);  // resumes at the same block's head
  v.enter(b.user, kAddq);
  EXPECT_EQ(v.visible().at(kUser), 300 + b.user.static_cycles);
  v.waited(5000, b.delivery.pc);  // an overflow taken on resuming: where it stopped
  v.enter(b.delivery, kAddq);
  v.enter(b.handler, kRtiperf);
  v.enter(b.rtiperf, kAddq);
  v.enter(b.user, kAddq);  // PAL returns to the next instruction
  EXPECT_EQ(v.visible().at(kUser),
            300 + 2 * b.user.static_cycles + b.rtiperf.static_cycles + 1100);  // <= one period
}

// A block that ran to its end does not say where the CPU goes on: a taken
// branch goes to its target. An overflow taken on resuming there lands where
// PAL returns to (the interrupted PC), not after the block (issue 25:
// parallel4's loop exit had 2,487 expected samples and none; 7.2x noise).
TEST(Ev5SampleVisibility, AWaitEndingInAnInterruptLandsWherePalReturns) {
  const Blocks b;
  SampleVisibility v(true, 1000, 200);
  reload(v, b);
  const BlockTiming loop = two_at(kUser + 0x100, testing::bne(1, -3));  // back to kUser + 0x100
  v.enter(loop, testing::bne(1, -3));
  v.waited(5000, b.delivery.pc);
  v.enter(b.delivery, kAddq);
  v.enter(b.handler, kRtiperf);
  EXPECT_EQ(v.visible().count(kKernel + 0x80), 0u);  // not in the handler, before the reload
  v.enter(b.rtiperf, kAddq);
  v.enter(loop, testing::bne(1, -3));  // the branch was taken
  EXPECT_EQ(v.visible().at(kUser + 0x100),
            loop.instructions[0].cost + b.rtiperf.static_cycles + 1100);  // + the return's PAL
  EXPECT_EQ(v.visible().count(kUser + 0x108), 0u);                        // not the fall-through
}

TEST(Ev5SampleVisibility, AWaitAfterAWtintIsTheReportedSleeps) {
  const Blocks b;
  SampleVisibility v(true, 1000, 200);
  reload(v, b);
  BlockTiming idle = two_at(kKernel + 0x100, 0x3e);  // ends in CALL_PAL wtint
  v.enter(idle, 0x3e);
  v.waited(4000, kKernel + 0x40);
  v.enter(b.kernel, kAddq);
  EXPECT_EQ(v.visible().count(kKernel + 0x40), 1u);  // only the reload's PAL cycles
  EXPECT_EQ(v.visible().at(kKernel + 0x40), b.kernel.static_cycles + b.wrperfmon.static_cycles);
}

TEST(Ev5SampleVisibility, WithoutSamplingNothingIsRecorded) {
  const Blocks b;
  SampleVisibility v;
  reload(v, b);
  v.enter(b.user, kAddq);
  v.book(kUser, 5);
  v.enter(b.user, kAddq);
  EXPECT_TRUE(v.visible().empty());
}

uint64_t number_after(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  return at == std::string::npos ? 0 : std::stoull(text.substr(at + prefix.size()));
}

TEST(Ev5SampleVisibility, TheTruthFileSaysWhichCyclesASampleCanSee) {
  Machine machine;
  VcpuModel model(machine, SampleVisibility(true));
  BlockRecord reloader = testing::block_of(0x120000100, {testing::addq(1, 1, 1), kWrperfmon});
  BlockRecord pal = testing::block_of(kPal + 0x2000, {testing::addq(2, 2, 2), kAddq});
  BlockRecord loop = testing::block_of(kUser, {testing::addq(1, 1, 1), kCallsys});
  model.enter(reloader);
  model.enter(pal);  // the reload
  for (int i = 0; i < 200; ++i) {
    model.enter(loop);
    model.enter(pal);
  }
  model.enter(loop);
  const std::string path = ::testing::TempDir() + "visible.txt";
  model.settle_truth();
  ASSERT_TRUE(write_truth_file(path, {&model}, TruthSpaces(), {}));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  EXPECT_EQ(s.rfind("dcpi-exec-counts 6\n", 0), 0u) << s.substr(0, 200);  // visible, pcevent
  // PAL is never visible: its cycles count where it returns to, the loop's
  // head, which then shows more than its own.
  EXPECT_EQ(s.find("visible fffffc000000200"), std::string::npos);
  EXPECT_GT(number_after(s, "visible 120000000 "), number_after(s, "cycles 120000000 "));
  // The reloading block ran before any reload: nothing of it is visible.
  EXPECT_EQ(s.find("visible 120000100"), std::string::npos);
  EXPECT_GT(number_after(s, "event visible_cycles "), 0u);
  EXPECT_GT(s.find("visible "), s.rfind("\nevent "));  // the format's order
}

TEST(Ev5Options, SamplingIsOnOrOff) {
  PluginOptions options;
  std::string error;
  EXPECT_TRUE(apply_option("sampling=1", options, error));
  EXPECT_EQ(options.sampling, 1u);
  EXPECT_FALSE(apply_option("sampling=2", options, error));
  EXPECT_EQ(error, "ev5: sampling=2 is not an integer in [0, 1]");
  EXPECT_TRUE(apply_option("period=8192", options, error));
  EXPECT_TRUE(apply_option("period_range=1024", options, error));
  EXPECT_EQ(options.period + options.period_range, 9216u);
  EXPECT_FALSE(apply_option("period=65537", options, error));
}

}  // namespace
}  // namespace dcpi::ev5
