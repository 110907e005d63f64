#include "qemu/machine/plugins/ev5/write_buffer.h"

#include <gtest/gtest.h>

#include "qemu/machine/plugins/ev5/machine.h"
#include "qemu/machine/plugins/ev5/memory_system.h"

namespace dcpi::ev5 {
namespace {

TEST(Ev5WriteBuffer, StoresToOneLineMerge) {
  WriteBuffer buffer;
  EXPECT_TRUE(buffer.store(0x100, 0, 10));
  EXPECT_FALSE(buffer.store(0x108, 1, 10));
  EXPECT_FALSE(buffer.store(0x118, 2, 10));
  EXPECT_EQ(buffer.occupied(3), 1u);
  EXPECT_TRUE(buffer.store(0x120, 3, 10));  // next line: a new entry
  EXPECT_EQ(buffer.occupied(3), 2u);
}

TEST(Ev5WriteBuffer, AFullBufferMakesTheSeventhLineWait) {
  WriteBuffer buffer;
  for (uint64_t i = 0; i < 6; ++i) {
    EXPECT_EQ(buffer.wait(i * 32, 0), 0u);
    buffer.store(i * 32, 0, 10);
  }
  // Entries retire one after another: the first at 10 (it started when the
  // second arrived), the second at 20, ...
  EXPECT_EQ(buffer.occupied(0), 6u);
  EXPECT_EQ(buffer.wait(6 * 32, 0), 10u);
  EXPECT_EQ(buffer.wait(6 * 32, 15), 0u);
  EXPECT_EQ(buffer.occupied(25), 4u);
  // A store into a waiting entry's line merges even when the buffer is full.
  EXPECT_EQ(buffer.wait(5 * 32 + 8, 0), 0u);
}

TEST(Ev5WriteBuffer, ALoneEntryWaitsForMergesThenRetires) {
  WriteBuffer buffer;
  buffer.store(0x200, 0, 5);
  EXPECT_FALSE(buffer.store(0x208, 60, 5));  // within the idle time: merges
  EXPECT_EQ(buffer.occupied(68), 1u);
  EXPECT_EQ(buffer.occupied(69), 0u);  // retired at 64 + 5
  EXPECT_TRUE(buffer.store(0x210, 70, 5));
}

TEST(Ev5MemorySystem, StoresToMissingLinesBackUpTheWriteBuffer) {
  Machine machine;
  MemorySystem memory(machine);
  uint64_t waited = 0;
  // A copy loop's stores: a new 32-byte line every four stores, every line
  // missing in the S-cache: each entry retires in 5 + 100 cycles.
  for (uint64_t i = 0; i < 64; ++i) waited += memory.store(0x100000 + 8 * i, 4 * i);
  EXPECT_GT(waited, 0u);
  EXPECT_GT(memory.events().wbuf_full, 0u);
}

}  // namespace
}  // namespace dcpi::ev5
