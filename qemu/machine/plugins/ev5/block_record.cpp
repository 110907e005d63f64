#include "qemu/machine/plugins/ev5/block_record.h"

#include <algorithm>

namespace dcpi::ev5 {

BlockRecord::BlockRecord(BlockTiming t, std::span<const uint32_t> instruction_words,
                         uint32_t serial)
    : timing(std::move(t)),
      id(serial),
      words(instruction_words.begin(), instruction_words.end()),
      cut(new std::atomic<uint64_t>[timing.instructions.size()]) {
  const size_t n = timing.instructions.size();
  last_pc = timing.instructions.back().pc;
  last_word = words.back();
  for (size_t i = 0; i < n; ++i)
    if (i == 0 || timing.instructions[i].starts_line) far_heads.push_back(static_cast<uint32_t>(i));
  // A block has at most 512 instructions (QEMU's TCG_MAX_INSNS).
  fetch_head_count = static_cast<uint16_t>(far_heads.size());
  if (far_heads.size() <= kNearHeads) {
    std::copy(far_heads.begin(), far_heads.end(), near_heads.begin());
    far_heads.clear();
  }
  refs.resize(n);
  step_refs.resize(n);
  access_refs.resize(n);
  step_access_refs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const auto index = static_cast<uint32_t>(i);
    refs[i] = InstructionRef{this, index, false, false};
    step_refs[i] = InstructionRef{this, index, true, false};
    access_refs[i] = InstructionRef{this, index, false, true};
    step_access_refs[i] = InstructionRef{this, index, true, true};
    cut[i].store(0, std::memory_order_relaxed);
  }
}

uint64_t BlockRecord::executions(size_t i) const {
  uint64_t left = 0;
  for (size_t k = 0; k <= i; ++k) left += cut[k].load(std::memory_order_relaxed);
  const uint64_t n = entries.load(std::memory_order_relaxed);
  return n > left ? n - left : 0;
}

BlockTiming slice_timing(const BlockTiming& whole, size_t first, size_t n) {
  BlockTiming slice;
  slice.pc = whole.instructions[first].pc;
  slice.instructions.assign(whole.instructions.begin() + first,
                            whole.instructions.begin() + first + n);
  const uint32_t base = slice.instructions.front().offset;
  uint64_t written = 0;
  for (InstructionTiming& t : slice.instructions) {
    t.offset -= base;
    slice.static_cycles += t.cost;
    slice.live_in |= t.reads & ~written;
    written |= t.writes;
  }
  // A multiply or divide keeps its flag only if it was the whole block's first.
  slice.multiplier_span = whole.multiplier_span;
  slice.divider_span = whole.divider_span;
  if (first + n == whole.instructions.size()) {
    slice.ends_in_transfer = whole.ends_in_transfer;
    slice.ends_in_conditional_branch = whole.ends_in_conditional_branch;
    slice.branch_target = whole.branch_target;
    // The jump-target prediction of its last instruction (a JSR pushes the
    // return stack, a RET pops it) belongs to the slice that ends there.
    slice.jump = whole.jump;
    slice.hint_target = whole.hint_target;
  }
  return slice;
}

const BlockRecord* BlockTable::enclosing(uint64_t pc, std::span<const uint32_t> words,
                                         size_t& first) const {
  constexpr uint64_t kLongestBlock = 512 * 4;  // QEMU's TCG_MAX_INSNS
  const BlockRecord* best = nullptr;
  const auto end = complete_.upper_bound(pc);
  for (auto it = complete_.lower_bound(pc > kLongestBlock ? pc - kLongestBlock : 0); it != end;
       ++it) {
    const BlockRecord* r = it->second;
    const size_t k = (pc - it->first) / 4;
    if (k + words.size() > r->words.size() ||
        !std::equal(words.begin(), words.end(), r->words.begin() + k))
      continue;
    if (!best || r->entries.load(std::memory_order_relaxed) >
                     best->entries.load(std::memory_order_relaxed)) {
      best = r;
      first = k;
    }
  }
  return best;
}

BlockRecord& BlockTable::find_or_add(uint64_t pc, std::span<const uint32_t> words) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a over the words
  for (uint32_t w : words) hash = (hash ^ w) * 0x100000001b3ull;
  const Key key{pc, words.size(), hash};
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<BlockRecord>& record = records_[key];
  if (record) return *record;
  BlockTiming timing = time_block(pc, words);
  size_t first = 0;
  const auto id = static_cast<uint32_t>(records_.size() - 1);  // this one is in already
  if (timing.ends_in_transfer) {
    record = std::make_unique<BlockRecord>(std::move(timing), words, id);
    complete_.emplace(pc, record.get());
  } else if (const BlockRecord* whole = enclosing(pc, words, first)) {
    record =
        std::make_unique<BlockRecord>(slice_timing(whole->timing, first, words.size()), words, id);
  } else {
    record = std::make_unique<BlockRecord>(std::move(timing), words, id);
  }
  return *record;
}
std::vector<const BlockRecord*> BlockTable::records() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const BlockRecord*> out;
  for (const auto& [key, record] : records_) out.push_back(record.get());
  return out;
}

}  // namespace dcpi::ev5
