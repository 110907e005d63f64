// Frequency-equivalence classes (DCPI §6.1.2): sets of blocks and edges that
// are guaranteed to execute the same number of times. Computed with the
// cycle-equivalence algorithm of Johnson, Pearson and Pingali (PLDI 1994,
// bracket lists, linear time) on the CFG augmented so that every block lies
// on an entry-to-exit path (exit_augmentation.h: infinite loops). A CFG
// that is missing edges gives every block and every edge its own class.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "analysis/calc/estimate/cfg.h"
#include "analysis/calc/estimate/exit_augmentation.h"

namespace dcpi::calc {

using ClassId = size_t;

// Each class's blocks, ascending, in one array (compressed rows: a vector
// per class was an allocation per class: issue 31).
class ClassBlocks {
 public:
  ClassBlocks(std::span<const ClassId> block_class, size_t class_count);
  std::span<const BlockId> operator[](ClassId c) const {
    return std::span<const BlockId>(blocks_).subspan(first_[c], first_[c + 1] - first_[c]);
  }
  size_t size() const { return first_.size() - 1; }

 private:
  std::vector<size_t> first_;  // per class, and one past the last
  std::vector<BlockId> blocks_;
};

struct FrequencyClasses {
  std::vector<ClassId> block_class;  // indexed by BlockId
  std::vector<ClassId> edge_class;   // indexed by EdgeId
  size_t class_count = 0;            // ids are dense: 0 … class_count − 1

  std::vector<BlockId> blocks_in(ClassId id) const;
  std::vector<EdgeId> edges_in(ClassId id) const;
  // blocks_in for every class at once, in one pass (a loop over blocks_in
  // is quadratic in the blocks: issue 31).
  ClassBlocks blocks_by_class() const;
};

FrequencyClasses frequency_classes(const ControlFlowGraph& cfg,
                                   const ExitAugmentation& augmentation);
inline FrequencyClasses frequency_classes(const ControlFlowGraph& cfg) {
  return frequency_classes(cfg, augment_for_exit(cfg));
}

}  // namespace dcpi::calc
