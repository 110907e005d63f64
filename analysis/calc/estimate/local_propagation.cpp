#include "analysis/calc/estimate/local_propagation.h"

#include <algorithm>
#include <map>
#include <span>

namespace dcpi::calc {

namespace {

class Propagator {
 public:
  Propagator(const ControlFlowGraph& cfg, const FrequencyClasses& classes,
             const ExitAugmentation& augmentation, ClassFrequencies& values)
      : cfg_(cfg), classes_(classes), augmentation_(augmentation), values_(values) {}

  size_t run() {
    size_t filled = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (BlockId b = 0; b < cfg_.blocks().size(); ++b) {
        if (!augmentation_.has_virtual_predecessor(b) && apply(b, cfg_.block(b).incoming)) {
          changed = true;
          ++filled;
        }
        if (!augmentation_.has_virtual_successor(b) && apply(b, cfg_.block(b).outgoing)) {
          changed = true;
          ++filled;
        }
      }
    }
    return filled;
  }

 private:
  // One flow constraint: block b = Σ edges on one side. Solves it for its
  // single unknown class, if it has exactly one; returns whether it did.
  bool apply(BlockId b, std::span<const EdgeId> side) {
    if (side.empty()) return false;  // boundary: no predecessors / successors
    const ClassId block_class = classes_.block_class[b];
    double known_sum = 0;
    Confidence weakest = Confidence::kHigh;
    std::map<ClassId, int> unknown;  // class → how many edges of this side are in it
    for (EdgeId e : side) {
      const ClassId c = classes_.edge_class[e];
      if (values_.frequency[c]) {
        known_sum += *values_.frequency[c];
        weakest = std::min(weakest, values_.confidence[c]);
      } else {
        ++unknown[c];
      }
    }
    const bool block_known = values_.frequency[block_class].has_value();
    if (!block_known && unknown.empty()) {
      set(block_class, known_sum, weakest);
      return true;
    }
    if (block_known && unknown.size() == 1) {
      const auto [c, count] = *unknown.begin();
      if (c == block_class) return false;  // cannot happen in a consistent CFG
      weakest = std::min(weakest, values_.confidence[block_class]);
      set(c, (*values_.frequency[block_class] - known_sum) / count, weakest);
      return true;
    }
    return false;
  }

  void set(ClassId c, double frequency, Confidence weakest) {
    values_.frequency[c] = std::max(0.0, frequency);  // §6.1.4: no negative estimates
    values_.confidence[c] = propagated_confidence(weakest);
    values_.propagated[c] = true;
  }

  const ControlFlowGraph& cfg_;
  const FrequencyClasses& classes_;
  const ExitAugmentation& augmentation_;
  ClassFrequencies& values_;
};

}  // namespace

size_t propagate_frequencies(const ControlFlowGraph& cfg, const FrequencyClasses& classes,
                             const ExitAugmentation& augmentation, ClassFrequencies& values) {
  values.frequency.resize(classes.class_count);
  values.confidence.resize(classes.class_count, Confidence::kLow);
  values.propagated.resize(classes.class_count, false);
  return Propagator(cfg, classes, augmentation, values).run();
}

}  // namespace dcpi::calc
