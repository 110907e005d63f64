// One translated block as the run-time model and the truth file see it: its
// static timing and how often it was entered, shared by all vCPUs (QEMU
// translates a block once for every CPU). Identical blocks translated again
// (after a TB flush, or the same code in another process) share a record.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>
#include <vector>

#include "qemu/plugins/ev5/block_timing.h"

namespace dcpi::ev5 {

struct BlockRecord;

// Names instruction `index` of a block in callbacks and in the per-vCPU
// "last charged instruction" word.
struct InstructionRef {
  BlockRecord* block = nullptr;
  uint32_t index = 0;
};

struct BlockRecord {
  explicit BlockRecord(BlockTiming t);
  BlockTiming timing;
  std::vector<InstructionRef> refs;  // never resized: callbacks hold pointers
  std::atomic<uint64_t> entries{0};
  // cut[k]: entries that left the block before instruction k ran (an exact
  // exit), so instruction i ran entries - sum(cut[0..i]) times.
  std::unique_ptr<std::atomic<uint64_t>[]> cut;

  uint64_t executions(size_t i) const;
};

class BlockTable {
 public:
  BlockRecord& find_or_add(uint64_t pc, std::span<const uint32_t> words);
  // Every record (call when no vCPU runs).
  std::vector<const BlockRecord*> records() const;

 private:
  using Key = std::tuple<uint64_t, size_t, uint64_t>;  // pc, length, hash of the words
  mutable std::mutex mutex_;
  std::map<Key, std::unique_ptr<BlockRecord>> records_;
};

}  // namespace dcpi::ev5
