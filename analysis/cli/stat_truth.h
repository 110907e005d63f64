// `dcpi stat --truth FILE` on the ev5 machine (issue 26 item 4): beside
// perfex's estimate (count x a typical cost, which ignores overlap), the
// model's real stall cycles of each event's cause in the row's processes,
// from the truth's `stall` lines of their address spaces.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/samples/process_counts.h"
#include "isa/stall_causes.h"

namespace dcpi {

// The truth's stall cause an event's misses stall on (imiss: I-cache
// miss, ...); none for an event without one.
std::optional<isa::StallCause> stall_cause_of_event(const std::string& event);

// Reads the truth file and sets each event's truth_stall_cycles in every
// row (the sum over the row's pids' spaces). Throws std::runtime_error
// naming the file when it cannot be read or has no address spaces.
void add_truth_stalls(const std::string& truth_path, std::vector<StatRow>& rows);

}  // namespace dcpi
