// `dcpi profileme`'s text and JSON (issue 27 item 4, docs/profileme.md).
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "analysis/samples/profileme_table.h"

namespace dcpi {

// One instruction's records in a few characters, for a listing's column
// (the HTML report): the estimated executions, then each event bit's rate
// per retired record with dcpicalc's letters (i I d D p w, Figure 2), e.g.
// "~12345 d 0.31 p 0.02"; `title` gets every count and the mean latencies.
struct ProfileMeCell {
  std::string text;
  std::string title;
};
ProfileMeCell profileme_cell(const ProfileMeRow& row, double interval);

void print_profileme_text(const ProfileMeReport& report, std::optional<uint64_t> limit,
                          std::ostream& out);
void print_profileme_json(const ProfileMeReport& report, std::optional<uint64_t> limit,
                          std::ostream& out);

}  // namespace dcpi
