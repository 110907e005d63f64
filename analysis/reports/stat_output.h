// `dcpi stat` (issue 26 item 4): counting mode's figures
// (analysis/samples/process_counts.h) printed as perf stat and perfex print
// them, or as JSON.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/samples/process_counts.h"

namespace dcpi {

struct StatReport {
  std::string machine;  // "qemu" or "ev5": whose events and cycles these are
  uint32_t cpus = 1;
  std::vector<StatRow> rows;
};

void print_stat_text(const StatReport& report, std::ostream& out);
void print_stat_json(const StatReport& report, std::ostream& out);

}  // namespace dcpi
