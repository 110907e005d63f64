// The truth of ProfileMe's "wasted issue slots" (seed 004 §5.2.3, issue 27
// item 2) on the in-order 21164 model: per instruction, summed over its
// executions, C x the cycles it was in progress less the instructions
// issued meanwhile, itself included (C = 4, PROFILEME_ISSUE_WIDTH).
//
// In progress, on this model: the cycles of its own charge (its I-cache
// wait, its wait at the head of the issue queue, its issue), at least its
// issue cycle. Instructions issue in groups: a group's leader is charged
// its cycles and the instructions issued with it none, so the instructions
// issued while any member is in progress are exactly its group's g members:
// the leader wastes C x cycles - g slots, each other member C - g. A group
// may straddle a block boundary (a cut block's slice starts mid-group), so
// the open group carries over to the next block.
//
// Watches the truth's bookings (TruthObserver) once a paired ProfileMe run
// arms the unit; the sums become `pcevent PC wasted_slots N` lines.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "qemu/machine/plugins/ev5/vcpu_truth.h"

namespace dcpi::ev5 {

class IssueSlots : public TruthObserver {
 public:
  void set_space(uint32_t space) { space_ = space; }
  void entered(const BlockRecord& block) override;
  void cut(const BlockRecord& block, uint32_t index) override;
  void cycles(uint64_t, int64_t) override {}
  void event(uint64_t, ModelEvent) override {}
  void stalled(uint64_t pc, StallCause cause, uint64_t cycles) override;
  // Wasted slots per truth key (truth_space.h), complete up to the block
  // in progress.
  const std::unordered_map<uint64_t, uint64_t>& wasted() const { return wasted_; }

 private:
  struct Member {
    uint64_t key;
    uint64_t cycles;
  };
  void finish_block();
  void close_group();

  const BlockRecord* block_ = nullptr;
  uint32_t ran_ = 0;            // instructions of block_ that ran (a cut stops it)
  std::vector<uint64_t> cost_;  // this execution's cycles per instruction of block_
  std::vector<Member> group_;   // the open issue group, leader first
  std::unordered_map<uint64_t, uint64_t> wasted_;
  uint32_t space_ = 0;
};

}  // namespace dcpi::ev5
