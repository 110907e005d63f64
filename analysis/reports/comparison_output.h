// `dcpi stats` and `dcpi diff`, rendered (computed by
// analysis/samples/run_comparison.h): dcpistats' variation table (DCPI §3.3,
// Figure 3) and the two-profile difference, as text or JSON, at most `limit`
// rows.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>

#include "analysis/samples/run_comparison.h"

namespace dcpi {

void print_stats_text(const VariationReport& report, std::optional<uint64_t> limit,
                      std::ostream& out);
void print_stats_json(const VariationReport& report, std::optional<uint64_t> limit,
                      std::ostream& out);
void print_diff_text(const DiffReport& report, std::optional<uint64_t> limit, std::ostream& out);
void print_diff_json(const DiffReport& report, std::optional<uint64_t> limit, std::ostream& out);

}  // namespace dcpi
