// Local propagation (DCPI §6.1.4): the frequency of a block equals the sum
// over its incoming edges and the sum over its outgoing edges, except on a
// side where the block is a boundary (no edges there, or a virtual edge of
// the exit augmentation). Iterating these constraints fills in classes that
// had no estimate of their own; (1) every new estimate is given at once to
// the whole equivalence class, and (2) no estimate is ever negative.
#pragma once
#include <optional>
#include <vector>

#include "analysis/calc/estimate/confidence.h"
#include "analysis/calc/estimate/cycle_equivalence.h"

namespace dcpi::calc {

struct ClassFrequencies {
  std::vector<std::optional<double>> frequency;  // per ClassId
  std::vector<Confidence> confidence;            // per ClassId
  std::vector<bool> propagated;                  // set by propagation, not from samples
};

// Fills unknown classes in place; returns how many it filled.
size_t propagate_frequencies(const ControlFlowGraph& cfg, const FrequencyClasses& classes,
                             const ExitAugmentation& augmentation, ClassFrequencies& values);

}  // namespace dcpi::calc
