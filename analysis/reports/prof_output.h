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

// Procedure names longer than this are cut in the middle in the text table
// (the image column stays on an 80- to 120-column screen); --wide and --json
// show them whole.
inline constexpr size_t kProcedureColumnWidth = 50;

struct ProfTextOptions {
  bool wide = false;  // full procedure names, however long
};

void print_prof_text(const ProfileReport& report, std::optional<uint64_t> limit, std::ostream& out,
                     ProfTextOptions options = {});
void print_prof_json(const ProfileReport& report, std::optional<uint64_t> limit, std::ostream& out);

}  // namespace dcpi
