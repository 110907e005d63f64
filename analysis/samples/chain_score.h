// dcpi score --contexts (issue 28 item 4): the sampled call chains (dcpi run
// -g) against the exact calling context tree of the same run (--contexts).
//
// Each user-mode sample's chain is cut to its innermost `depth` frames
// (leaf first), and at main or start_thread (the program's own frames);
// a complete chain shallower than that keeps all its frames but its
// outermost, the thread's entry code (the exact tree's root: code before
// the thread's first call, not a call). Every exact context with
// cycles gives the same key from its procedure path. A sample "matches"
// when its key is one of the exact tree's; a truncated chain shorter than
// `depth` cannot match (it could not be unwound far enough). Kernel-mode
// samples (leaf in the kernel or PALcode) and the exact tree's [kernel] time
// are left out on both sides: the exact tree does not follow the kernel's
// calls, it books kernel time to a [kernel] child of the user context.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/samples/chain_tree.h"
#include "analysis/samples/context_tree.h"

namespace dcpi {

struct ChainScore {
  uint32_t depth = 8;
  uint64_t user_samples = 0;    // sampled chains with a user-mode leaf
  uint64_t matched = 0;         // of those, whose key the exact tree has
  uint64_t not_unwound = 0;     // truncated short of `depth`
  uint64_t kernel_samples = 0;  // left out
  // Σ min(sampled share, exact share) over the keys: 1 when the sampled
  // chains split the time among calling contexts exactly as the machine did.
  double overlap = 0;
  // Per image of the frame where a chain stopped short: samples.
  std::map<std::string, uint64_t> not_unwound_in;
  // The keys with the largest exact share: exact share, sampled share.
  struct Row {
    std::vector<std::string> path;  // leaf first
    double exact = 0, sampled = 0;
  };
  std::vector<Row> top;
};

ChainScore score_chains(const ContextTree& exact, const ContextTree& sampled, uint32_t depth,
                        size_t top_rows = 15);

}  // namespace dcpi
