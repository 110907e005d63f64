// Where counters 1 and 2's samples can land (sample_visibility.h
// for_events(), event_visibility.h): each counted event weighs by the
// hazard of the drawn period, events at IPL 6 and above or in PALcode land
// where the interrupt can be taken, none from the overflow to the next write.
#include "qemu/machine/plugins/ev5/event_visibility.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "firmware/ev5_counters.h"
#include "firmware/pal_abi.h"
#include "qemu/machine/plugins/ev5/sample_visibility.h"
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

SampleVisibility counter() { return SampleVisibility::for_events(100, 100, IPL_PERFCTR); }

void book(SampleVisibility& v, uint64_t pc, int n) {
  for (int i = 0; i < n; ++i) v.book(pc, 1);
}

// The compensator up to the overflow: E = mean x H(drawn), here 150 ln 2.
TEST(Ev5EventVisibility, AnEventWeighsByTheHazardOfItsCountUpToTheOverflow) {
  const BlockTiming user = two_at(kUser);
  SampleVisibility v = counter();
  v.enter(user, kAddq);
  EXPECT_EQ(v.state(), State::kOff);  // not written yet: nothing counts
  book(v, kUser, 10);
  v.arm(150);
  v.enter(user, kAddq);
  book(v, kUser, 200);  // 50 after the overflow weigh nothing
  EXPECT_NEAR(v.visible().at(kUser), 150 * std::log(2.0), 1e-9);
  // No block's static cycles count: only the events booked.
  v.enter(user, kAddq);
  EXPECT_NEAR(v.visible().at(kUser), 150 * std::log(2.0), 1e-9);
}

// The 21164's counter interrupt is at IPL 6: kernel code at IPL 5 takes it,
// at 6 and above its events land where the IPL drops.
TEST(Ev5EventVisibility, EventsAtIpl6LandWhereTheIplDropsAndAtIpl5WhereTheyHappen) {
  const BlockTiming user = two_at(kUser), kernel = two_at(kKernel), handler = two_at(kKernel + 64);
  SampleVisibility v = counter();
  v.arm(190);
  v.set_ipl(5);
  v.enter(kernel, kAddq);
  EXPECT_EQ(v.state(), State::kCounting);
  book(v, kKernel, 150);
  v.set_ipl(6);
  v.enter(handler, kAddq);
  EXPECT_EQ(v.state(), State::kHighIpl);
  book(v, kKernel + 64, 200);  // the overflow at 190 falls here
  v.set_ipl(0);
  v.enter(user, kAddq);
  EXPECT_NEAR(v.visible().at(kKernel), 150 * std::log(2.0), 1e-9);
  EXPECT_NEAR(v.visible().at(kUser), 150 * std::log(5.0), 1e-9);
  EXPECT_EQ(v.visible().count(kKernel + 64), 0u);
}

TEST(Ev5EventVisibility, NothingWeighsFromTheDeliveryToTheNextWrite) {
  const BlockTiming user = two_at(kUser), vector = two_at(kPal + EV5_PAL_VECTOR_COUNTER);
  const BlockTiming other = two_at(kUser + 64);
  SampleVisibility v = counter();
  v.arm(100);
  v.enter(user, kAddq);
  book(v, kUser, 99);
  v.book(kUser, 1);
  v.overflowed();
  v.enter(vector, kAddq);  // the delivery
  EXPECT_EQ(v.state(), State::kOff);
  v.enter(other, kAddq);
  book(v, kUser + 64, 50);
  EXPECT_EQ(v.visible().count(kUser + 64), 0u);
  v.arm(150);  // the handler's reload
  v.enter(other, kAddq);
  book(v, kUser + 64, 150);
  EXPECT_NEAR(v.visible().at(kUser + 64), 150 * std::log(2.0), 1e-9);
}

// An entry into the counter vector with nothing raised (PAL finds no bits)
// delivers nothing: the count goes on.
TEST(Ev5EventVisibility, TheVectorWithoutAnOverflowDeliversNothing) {
  const BlockTiming user = two_at(kUser), vector = two_at(kPal + EV5_PAL_VECTOR_COUNTER);
  SampleVisibility v = counter();
  v.arm(150);
  v.enter(user, kAddq);
  book(v, kUser, 100);
  v.enter(vector, kAddq);
  v.enter(user, kAddq);
  book(v, kUser, 100);
  EXPECT_NEAR(v.visible().at(kUser), 150 * std::log(2.0), 1e-9);
}

// DCPI's mux gives the counter back to an event with its partial count
// (wrperfmon 9 writes what was read): the same count goes on.
TEST(Ev5EventVisibility, ACountGivenBackGoesOn) {
  const BlockTiming user = two_at(kUser);
  SampleVisibility v = counter();
  v.arm(150);
  v.enter(user, kAddq);
  book(v, kUser, 120);
  v.arm(30);  // the rest of the same period
  v.enter(user, kAddq);
  book(v, kUser, 40);
  EXPECT_NEAR(v.visible().at(kUser), 150 * std::log(2.0), 1e-9);
}

// A count outside the driver's periods (a partial count given back after
// it wrapped): its one sample's weight spreads evenly up to the overflow.
TEST(Ev5EventVisibility, ACountTheDriverDidNotDrawSpreadsItsSampleEvenly) {
  const BlockTiming user = two_at(kUser), other = two_at(kUser + 64);
  SampleVisibility v = counter();
  v.arm(1000);
  v.enter(user, kAddq);
  book(v, kUser, 250);
  v.enter(other, kAddq);
  book(v, kUser + 64, 800);  // 50 after the overflow
  EXPECT_NEAR(v.visible().at(kUser), 150 * 0.25, 1e-9);
  EXPECT_NEAR(v.visible().at(kUser + 64), 150 * 0.75, 1e-9);
}

TEST(Ev5EventVisibility, OnlyEventsACounterWroteAreKept) {
  const BlockTiming user = two_at(kUser);
  EventVisibility events(true);
  events.counted(ModelEvent::kDCacheMiss, kUser, 1, false);
  EXPECT_EQ(events.of(ModelEvent::kDCacheMiss), nullptr);
  events.set_ipl(0);
  events.armed(ModelEvent::kDCacheMiss, EV5_EVENT_PERIOD_BASE + 10);
  events.enter(user, kAddq);
  for (int i = 0; i < 5000; ++i) events.counted(ModelEvent::kDCacheMiss, kUser, 1, false);
  ASSERT_NE(events.of(ModelEvent::kDCacheMiss), nullptr);
  EXPECT_GT(events.of(ModelEvent::kDCacheMiss)->visible().at(kUser), 0);
  EXPECT_EQ(events.of(ModelEvent::kICacheMiss), nullptr);
  EventVisibility off;
  off.armed(ModelEvent::kDCacheMiss, 100);
  EXPECT_EQ(off.of(ModelEvent::kDCacheMiss), nullptr);
}

}  // namespace
}  // namespace dcpi::ev5
