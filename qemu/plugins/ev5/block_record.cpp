#include "qemu/plugins/ev5/block_record.h"

namespace dcpi::ev5 {

BlockRecord::BlockRecord(BlockTiming t)
    : timing(std::move(t)), cut(new std::atomic<uint64_t>[timing.instructions.size()]) {
  const size_t n = timing.instructions.size();
  refs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    refs[i] = InstructionRef{this, static_cast<uint32_t>(i)};
    cut[i].store(0, std::memory_order_relaxed);
  }
}

uint64_t BlockRecord::executions(size_t i) const {
  uint64_t left = 0;
  for (size_t k = 0; k <= i; ++k) left += cut[k].load(std::memory_order_relaxed);
  const uint64_t n = entries.load(std::memory_order_relaxed);
  return n > left ? n - left : 0;
}

BlockRecord& BlockTable::find_or_add(uint64_t pc, std::span<const uint32_t> words) {
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a over the words
  for (uint32_t w : words) hash = (hash ^ w) * 0x100000001b3ull;
  const Key key{pc, words.size(), hash};
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<BlockRecord>& record = records_[key];
  if (!record) record = std::make_unique<BlockRecord>(time_block(pc, words));
  return *record;
}

std::vector<const BlockRecord*> BlockTable::records() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const BlockRecord*> out;
  for (const auto& [key, record] : records_) out.push_back(record.get());
  return out;
}

}  // namespace dcpi::ev5
