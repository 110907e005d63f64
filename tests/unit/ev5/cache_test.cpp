#include "qemu/machine/plugins/ev5/cache.h"

#include <gtest/gtest.h>

#include "qemu/machine/plugins/ev5/machine.h"
#include "qemu/machine/plugins/ev5/memory_system.h"

namespace dcpi::ev5 {
namespace {

TEST(Ev5Cache, DirectMappedLinesConflictEightKilobytesApart) {
  Cache dcache(8 * 1024, 1, 32);
  EXPECT_EQ(dcache.sets(), 256u);
  EXPECT_FALSE(dcache.lookup(0x1000, 0).hit);
  dcache.fill(0x1000, 0);
  EXPECT_TRUE(dcache.lookup(0x101f, 0).hit);   // same 32-byte line
  EXPECT_FALSE(dcache.lookup(0x1020, 0).hit);  // the next line
  dcache.fill(0x3000, 0);                      // same set, 8 KB further
  EXPECT_FALSE(dcache.lookup(0x1000, 0).hit);
  EXPECT_TRUE(dcache.lookup(0x3000, 0).hit);
}

TEST(Ev5Cache, ThreeWaysEvictTheLeastRecentlyUsed) {
  Cache scache(96 * 1024, 3, 64);
  const uint64_t way = 32 * 1024;  // addresses this far apart share a set
  scache.fill(0, 0);
  scache.fill(way, 0);
  scache.fill(2 * way, 0);
  EXPECT_TRUE(scache.lookup(0, 0).hit);  // 0 is now the most recent
  scache.fill(3 * way, 0);               // evicts `way`, the least recent
  EXPECT_TRUE(scache.lookup(0, 0).hit);
  EXPECT_FALSE(scache.lookup(way, 0).hit);
  EXPECT_TRUE(scache.lookup(2 * way, 0).hit);
  EXPECT_TRUE(scache.lookup(3 * way, 0).hit);
}

TEST(Ev5Cache, AHitOnALineBeingFilledWaitsForTheFill) {
  Cache dcache(8 * 1024, 1, 32);
  dcache.fill(0x40, 100);
  EXPECT_EQ(dcache.lookup(0x48, 30).ready, 100u);
  EXPECT_EQ(dcache.lookup(0x48, 130).ready, 130u);
}

TEST(Ev5MemorySystem, LoadLatencyByLevel) {
  Machine machine;
  MemorySystem memory(machine);
  // Cold: from memory; the D-cache line is then there.
  EXPECT_EQ(memory.load(0x10000, 0), 100u);
  EXPECT_EQ(memory.load(0x10008, 200), 200u);
  // The other 32 bytes of the 64-byte S-cache line: an S-cache hit.
  EXPECT_EQ(memory.load(0x10020, 300), 300u + 8);
  // Evicted from the D-cache by a conflict, still in the S-cache.
  memory.load(0x10000 + 8 * 1024, 400);
  EXPECT_EQ(memory.load(0x10000, 1000), 1000u + 8);
  EXPECT_EQ(memory.events().dcache_miss, 4u);
  EXPECT_EQ(memory.events().scache_miss, 2u);
  EXPECT_EQ(memory.events().bcache_miss, 2u);
}

TEST(Ev5MemorySystem, SixMissesOutstandingThenTheSeventhWaits) {
  Machine machine;
  machine.memory_bus_cycles = 0;  // only the miss address file limits
  MemorySystem memory(machine);
  for (uint64_t i = 0; i < 6; ++i) EXPECT_EQ(memory.load(i * 0x10000, 0), 100u);
  // The miss address file is full until the first fill completes at 100.
  EXPECT_EQ(memory.load(6 * 0x10000, 0), 200u);
}

TEST(Ev5MemorySystem, MemoryFillsTakeTheBusOneAtATime) {
  Machine machine;
  machine.memory_bus_cycles = 48;
  MemorySystem memory(machine);
  EXPECT_EQ(memory.load(0x10000, 0), 100u);
  EXPECT_EQ(memory.load(0x20000, 0), 148u);  // waits 48 cycles for the bus
  EXPECT_EQ(memory.load(0x30000, 500), 600u);
  // An S-cache hit does not use the bus.
  EXPECT_EQ(memory.load(0x30020, 700), 708u);
}

// A fill's data come 16 bytes per data cycle, the requested 16 first, the
// others in interleaved (XOR) order: with the fill asked for 0x10010 they
// come as chunks 1, 0, 3, 2 of the 64-byte line.
TEST(Ev5MemorySystem, ALinesDataArriveSixteenBytesPerDataCycleInWrapOrder) {
  Machine machine;
  machine.memory_bus_cycles = 0;
  machine.fill_chunk_cycles = 10;
  MemorySystem memory(machine);
  EXPECT_EQ(memory.load(0x10010, 0), 100u);  // chunk 1: first
  EXPECT_EQ(memory.load(0x10000, 0), 110u);  // chunk 0: second (the same D-cache line)
  EXPECT_EQ(memory.load(0x10038, 0), 120u);  // chunk 3: third (S-cache line still arriving)
  EXPECT_EQ(memory.load(0x10020, 0), 130u);  // chunk 2: last
  EXPECT_EQ(memory.events().scache_miss, 1u);
  // Once the line is there the S-cache serves in its 8 cycles.
  MemorySystem later(machine);
  EXPECT_EQ(later.load(0x20000, 0), 100u);
  EXPECT_EQ(later.load(0x20020, 200), 208u);
}

TEST(Ev5MemorySystem, InstructionFetchMissesOncePerLine) {
  Machine machine;
  MemorySystem memory(machine);
  EXPECT_EQ(memory.fetch(0x2000, 0), 100u);
  EXPECT_EQ(memory.fetch(0x2000, 0), 0u);
  EXPECT_EQ(memory.fetch(0x2020, 0), 120u);  // same S-cache line, still arriving: third data cycle
  EXPECT_EQ(memory.fetch(0x4000, 200), 100u);
  EXPECT_EQ(memory.fetch(0x4020, 400), 8u);  // same S-cache line, there
  EXPECT_EQ(memory.events().icache_miss, 4u);
}

}  // namespace
}  // namespace dcpi::ev5
