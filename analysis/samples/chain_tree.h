// The sampled call chains `dcpi run -g` stored (profiledb/chain_file.h) as a
// ContextTree (context_tree.h) counting samples, so that `dcpi tree
// --sampled`, `prof --callers/--callees`, the folded and pprof exports and
// the flame graph show them with the code that shows the exact CCT.
//
// Node 0 is [all]. A complete chain hangs from it by its outermost frame; a
// truncated one below "[truncated: WHY]" (profiledb::ChainStop), so a
// caller that could not be unwound is shown as such, never guessed.
// Frames that are the same procedure (name and image) under the same
// parent become one node, as in the exact tree.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/samples/context_tree.h"
#include "profiledb/chain_file.h"
#include "symbols/image_resolver.h"

namespace dcpi {

// How the chains ended, and where the truncated ones stopped.
struct ChainTreeStats {
  uint64_t samples = 0;
  uint64_t dropped = 0;                   // lost in the guest (chain buffer full)
  std::map<std::string, uint64_t> stops;  // chain_stop_name -> samples
  // Image display name -> samples whose leaf is there, and samples whose
  // chain stopped (truncated) in a frame of that image.
  std::map<std::string, uint64_t> leaf_samples;
  std::map<std::string, uint64_t> truncated_in;
};

// Every selected epoch's chains.cct; throws std::runtime_error when none has
// any, ProfileFormatError on a malformed one.
ContextTree load_chain_tree(const std::string& database, const ContextTreeRequest& request,
                            ImageResolver& resolver, ChainTreeStats* stats = nullptr);
// The same from a profile already read (tests).
void add_chain_profile(ContextTree& tree, const profiledb::ChainProfile& profile,
                       ImageResolver& resolver, ChainTreeStats* stats = nullptr);

// Whether some epoch of `database` has chains.cct and none contexts.cct:
// then the caller/callee reports use the chains without being asked.
bool prefer_sampled_chains(const std::string& database);

// The procedure and image display name of a frame, or a hex address.
std::pair<std::string, std::string> chain_frame_name(const profiledb::ChainProfile& profile,
                                                     const profiledb::ChainNode& node,
                                                     ImageResolver& resolver);

}  // namespace dcpi
