// `dcpi profileme`'s text and JSON (issue 27 item 4, docs/profileme.md).
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>

#include "analysis/samples/profileme_table.h"

namespace dcpi {

void print_profileme_text(const ProfileMeReport& report, std::optional<uint64_t> limit,
                          std::ostream& out);
void print_profileme_json(const ProfileMeReport& report, std::optional<uint64_t> limit,
                          std::ostream& out);

}  // namespace dcpi
