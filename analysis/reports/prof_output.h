// `dcpi prof`, rendered: samples per image, procedure, PID or CPU with
// percent and cumulative percent, one column pair per event (DCPI §3.1,
// Figure 1), or the same rows as JSON; at most `limit` rows (totals still
// cover everything). The table is computed by analysis/samples/profile_table.h.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>

#include "analysis/samples/profile_table.h"

namespace dcpi {

void print_prof_text(const ProfileReport& report, std::optional<uint64_t> limit, std::ostream& out);
void print_prof_json(const ProfileReport& report, std::optional<uint64_t> limit, std::ostream& out);

}  // namespace dcpi
