// The multiprocessor (coherence.h): a store takes the line out of the other
// CPUs' caches, a fill of a line another CPU wrote is an intervention; and
// address spaces tag the TBs and user lines as ASNs do (vcpu_model.h).
#include "qemu/machine/plugins/ev5/coherence.h"

#include <gtest/gtest.h>

#include "qemu/machine/plugins/ev5/memory_system.h"
#include "qemu/machine/plugins/ev5/vcpu_model.h"
#include "tests/unit/ev5/encode.h"

namespace dcpi::ev5 {
namespace {

struct TwoCpus {
  Machine machine;
  Coherence coherence;
  MemorySystem cpu0{machine}, cpu1{machine};
  TwoCpus() {
    cpu0.join(&coherence, 0);
    cpu1.join(&coherence, 1);
  }
};

TEST(Ev5Coherence, AStoreInvalidatesTheOtherCpusCopy) {
  TwoCpus m;
  const uint64_t line = 0x40000;
  EXPECT_EQ(m.cpu0.load(line, 0), 100u);    // from memory
  EXPECT_EQ(m.cpu0.load(line, 200), 200u);  // a D-cache hit
  m.cpu1.store(line + 8, 300);              // the same 64-byte line
  EXPECT_EQ(m.cpu0.events().invalidated, 1u);
  // CPU 0 lost every level's copy: the line comes again, from CPU 1's cache.
  EXPECT_GE(m.cpu0.load(line, 1000), 1000u + m.machine.memory_latency);
  EXPECT_EQ(m.cpu0.events().interventions, 1u);
  EXPECT_EQ(m.cpu0.load(line, 2000), 2000u);  // and stays
  EXPECT_EQ(m.cpu1.events().invalidated, 0u);
}

TEST(Ev5Coherence, OnlyTheFirstOfAWritersStoresInvalidates) {
  TwoCpus m;
  const uint64_t line = 0x80000;
  m.cpu0.load(line, 0);
  m.cpu1.store(line, 100);
  m.cpu1.store(line + 16, 200);  // its own line, unread since: nothing to do
  EXPECT_EQ(m.cpu0.events().invalidated, 1u);
  m.cpu0.load(line, 1000);  // an intervention; the line is shared again
  m.cpu1.store(line + 24, 2000);
  EXPECT_EQ(m.cpu0.events().invalidated, 2u);
  EXPECT_EQ(m.cpu0.events().interventions, 1u);
}

TEST(Ev5Coherence, AnotherLineIsNotTouched) {
  TwoCpus m;
  m.cpu0.load(0x40000, 0);
  m.cpu1.store(0x40040, 100);  // the next 64-byte line
  EXPECT_EQ(m.cpu0.events().invalidated, 0u);
  EXPECT_EQ(m.cpu0.load(0x40000, 500), 500u);
}

TEST(Ev5AddressSpaces, TbEntriesAndUserLinesAreTaggedWithTheAddressSpace) {
  Machine machine;
  VcpuModel model(machine);
  const uint64_t pc = 0xfffffc0000103000ull, user = 0x140000000;
  BlockRecord block = testing::block_of(pc, {testing::ldq(1, 16)});
  auto load = [&] {
    model.enter(block);
    return model.memory_access(block, 0, user, ~0ull, false);
  };
  model.switch_address_space(1);
  EXPECT_EQ(load(), machine.dtb_refill);  // a DTB miss
  EXPECT_EQ(load(), 0u);
  model.switch_address_space(2);  // another process, the same virtual address
  EXPECT_EQ(load(), machine.dtb_refill);
  model.switch_address_space(1);  // back: its entry is still there
  EXPECT_EQ(load(), 0u);
  EXPECT_EQ(model.truth().dtb_miss, 2u);
  // One line per address space: the direct-mapped D-cache holds one of the
  // two (the same index), the 3-way S-cache both (its third miss is the
  // block's instruction fetch).
  EXPECT_EQ(model.memory_events().dcache_miss, 3u);
  EXPECT_EQ(model.memory_events().scache_miss, 3u);
}

}  // namespace
}  // namespace dcpi::ev5
