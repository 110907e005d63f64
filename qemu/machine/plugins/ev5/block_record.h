// One translated block as the run-time model and the truth file see it: its
// static timing and how often it was entered, shared by all vCPUs (QEMU
// translates a block once for every CPU). Identical blocks translated again
// (after a TB flush, or the same code in another process) share a record.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <tuple>
#include <vector>

#include "qemu/machine/plugins/ev5/block_timing.h"

namespace dcpi::ev5 {

struct BlockRecord;

// Names instruction `index` of a block in callbacks and in the per-vCPU
// "last charged instruction" word.
struct InstructionRef {
  BlockRecord* block = nullptr;
  uint32_t index = 0;
  bool step = false;    // in the block's step translation (QEMU's CF_ICOUNT_STEP)
  bool access = false;  // the charge before its memory access, not at its start
};

// Aligned to a host cache line: what every entry reads and writes lies in
// the record's first two (issue 31).
struct alignas(64) BlockRecord {
  BlockRecord(BlockTiming t, std::span<const uint32_t> instruction_words, uint32_t serial = 0);
  BlockTiming timing;
  uint32_t id = 0;  // dense: the order of creation (indexes per-vCPU counters)
  // What every entry reads, kept beside `timing`'s own fields so that an
  // entry touches no instruction's timing and no word unless it needs to
  // (issue 31): the last instruction's word and PC, and the instructions
  // whose I-cache line (and page) fetch looks up, the head and each
  // `starts_line` one, in order (VcpuModel::fetch_stall): the first
  // kNearHeads of them here, all of them in `far_heads` when there are more.
  uint32_t last_word = 0;
  uint64_t last_pc = 0;
  std::atomic<uint64_t> entries{0};
  static constexpr size_t kNearHeads = 6;
  uint16_t fetch_head_count = 0;
  std::array<uint16_t, kNearHeads> near_heads{};
  std::vector<uint32_t> far_heads;
  uint32_t fetch_head(size_t k) const {
    return fetch_head_count <= kNearHeads ? near_heads[k] : far_heads[k];
  }
  std::vector<uint32_t> words;
  // Never resized: callbacks hold pointers. The ordinary translation's and
  // the step translation's (a block a timer deadline falls in).
  std::vector<InstructionRef> refs, step_refs, access_refs, step_access_refs;
  // cut[k]: entries that left the block before instruction k ran (an exact
  // exit), so instruction i ran entries - sum(cut[0..i]) times.
  std::unique_ptr<std::atomic<uint64_t>[]> cut;

  uint64_t executions(size_t i) const;
};

// Instructions [first, first + n) of `whole`, timed as they are there.
BlockTiming slice_timing(const BlockTiming& whole, size_t first, size_t n);

// A block QEMU cuts short (icount trims a block to the instructions left
// before a timer deadline; what is left of it then runs as a block of its
// own) is timed as a slice of the whole block it was cut from, the most
// entered complete block that holds it: an issue group split by the cut
// keeps its cost and its refunds where the whole block has them, so the
// deadline after the cut falls on the next group's first instruction, as it
// would in the whole block, never on an instruction that takes no time.
class BlockTable {
 public:
  BlockRecord& find_or_add(uint64_t pc, std::span<const uint32_t> words);
  // Every record (call when no vCPU runs).
  std::vector<const BlockRecord*> records() const;

 private:
  using Key = std::tuple<uint64_t, size_t, uint64_t>;  // pc, length, hash of the words
  mutable std::mutex mutex_;
  std::map<Key, std::unique_ptr<BlockRecord>> records_;
  const BlockRecord* enclosing(uint64_t pc, std::span<const uint32_t> words, size_t& first) const;
  // Complete blocks (ending in a control transfer) by their first PC.
  std::multimap<uint64_t, const BlockRecord*> complete_;
};

}  // namespace dcpi::ev5
