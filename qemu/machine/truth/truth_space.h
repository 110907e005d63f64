// Address spaces in the truth (firmware/truth_format.h, version 5), for
// both plugins: every program is linked at the same addresses, so a plugin
// books a user-mode PC with the address space it ran in, packed above the
// 44-bit user address like the ev5 model's ASN tag: one 64-bit key, so the
// counters stay single maps. Kernel and PALcode PCs (KSEG, bit 63 set) are
// shared by all and keep their address; so does a user PC before the first
// swpctx.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace dcpi::truth {

inline constexpr int kTruthSpaceShift = 44;
// Space numbers stay below bit 63, which only KSEG keys have.
inline constexpr uint32_t kTruthSpaceLimit = 1u << 19;

constexpr bool is_user_pc(uint64_t pc) { return pc < (uint64_t{1} << 43); }

// The key of `pc` run in truth space `space` (0: none known).
constexpr uint64_t truth_key(uint64_t pc, uint32_t space) {
  return is_user_pc(pc) && space ? pc | uint64_t{space} << kTruthSpaceShift : pc;
}
constexpr uint32_t truth_space_of(uint64_t key) {
  return key >> 63 ? 0 : static_cast<uint32_t>(key >> kTruthSpaceShift);
}
constexpr uint64_t truth_pc_of(uint64_t key) {
  return truth_space_of(key) ? key & ((uint64_t{1} << kTruthSpaceShift) - 1) : key;
}

static_assert(truth_space_of(truth_key(0x120000000, 7)) == 7);
static_assert(truth_pc_of(truth_key(0x120000000, 7)) == 0x120000000);
static_assert(truth_key(0xfffffc0000310000, 7) == 0xfffffc0000310000);
static_assert(truth_space_of(0xfffffc0000310000) == 0);
static_assert(truth_space_of(truth_key(0x3ffffffffff, kTruthSpaceLimit - 1)) ==
              kTruthSpaceLimit - 1);

// The truth spaces of a run, numbered from 1 in the order they appear: one
// per (process, generation) (firmware/truth_format.h).
class TruthSpaces {
 public:
  // The space process `pid` runs in on `page_table_base` (swpctx): a new
  // base is the process's next generation (a fork's copy, an exec). 0 for
  // the kernel's threads: pid 0 (the idle threads), and any thread on the
  // page table the idle threads use (a kernel thread such as dcpid has a
  // pid but no user space). Not thread-safe: callers hold a lock.
  uint32_t switch_to(uint32_t pid, uint64_t page_table_base) {
    if (pid == 0) kernel_page_table_ = page_table_base;
    if (pid == 0 || page_table_base == kernel_page_table_) return 0;
    auto [it, first] = processes_.try_emplace(pid);
    Process& p = it->second;
    if (first || p.page_table_base != page_table_base) {
      if (!first) ++p.generation;
      p.page_table_base = page_table_base;
      p.space = number(pid, p.generation);
    }
    return p.space;
  }
  uint32_t number(uint32_t pid, uint32_t generation) {
    auto [it, added] = numbers_.try_emplace({pid, generation}, 0);
    if (added && spaces_.size() + 1 < kTruthSpaceLimit) {
      spaces_.push_back(it->first);
      it->second = static_cast<uint32_t>(spaces_.size());
    }
    return it->second;  // 0 past the limit: booked as if no space were known
  }
  // (pid, generation) of space `number` (1-based).
  std::pair<uint32_t, uint32_t> process(uint32_t number) const { return spaces_.at(number - 1); }

 private:
  struct Process {
    uint64_t page_table_base = 0;
    uint32_t generation = 0;
    uint32_t space = 0;
  };
  uint64_t kernel_page_table_ = ~uint64_t{0};
  std::map<uint32_t, Process> processes_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> numbers_;
  std::vector<std::pair<uint32_t, uint32_t>> spaces_;
};

}  // namespace dcpi::truth
