// The truth's address spaces (qemu/machine/truth/truth_space.h), which both
// plugins key user code by.
#include <gtest/gtest.h>

#include "qemu/machine/truth/truth_space.h"

namespace dcpi::truth {
namespace {

constexpr uint64_t kKernelTable = 0x8ba000;

TEST(TruthSpaces, ProcessesGetASpacePerPageTable) {
  TruthSpaces spaces;
  EXPECT_EQ(spaces.switch_to(0, kKernelTable), 0u);  // an idle thread
  const uint32_t init = spaces.switch_to(1, 0x8c0000);
  EXPECT_EQ(init, 1u);
  EXPECT_EQ(spaces.switch_to(1, 0x8c0000), init);       // the same process again
  const uint32_t exec = spaces.switch_to(1, 0x932000);  // a new page table: an exec
  EXPECT_EQ(spaces.process(exec), std::make_pair(1u, 1u));
}

// A kernel thread (dcpid) has a pid but runs on the idle threads' page
// table: it has no user space, so it books like pid 0 (session 14: on
// 2 CPUs user PCs were seen booked under the daemon's space).
TEST(TruthSpaces, KernelThreadsShareTheKernelsSpace) {
  TruthSpaces spaces;
  EXPECT_EQ(spaces.switch_to(0, kKernelTable), 0u);
  EXPECT_EQ(spaces.switch_to(2, kKernelTable), 0u);
  EXPECT_EQ(spaces.switch_to(3, 0x932000), 1u);
  EXPECT_EQ(spaces.process(1), std::make_pair(3u, 0u));
}

}  // namespace
}  // namespace dcpi::truth
