// `dcpi procs`: the process table of each epoch (analysis/samples/
// process_listing.h) as text tables or JSON.
#pragma once
#include <ostream>
#include <vector>

#include "analysis/samples/process_listing.h"

namespace dcpi {

void print_procs_text(const std::vector<EpochProcesses>& epochs, std::ostream& out);
void print_procs_json(const std::vector<EpochProcesses>& epochs, std::ostream& out);

}  // namespace dcpi
