// Value hotlists of a database, merged over its epochs (seed 001 §2.2; the
// merge rule: docs/profile-db.md, "Value files"). Shared by `dcpi values`
// and `dcpi list --values`.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "hostdump/profiledb/profile_db.h"
#include "hostdump/profiledb/value_file.h"

namespace dcpi {

// One (image, value kind): its hotlists, one per PC.
struct MergedKind {
  values::ValueFileInfo info;
  std::vector<values::PcHotlist> hotlists;
};

// Every (image, kind) of the database, merged over `epochs` (nullopt: all;
// an epoch the database lacks is an error); `image` (a display name or guest
// path) and `kinds` (empty: all) filter.
std::vector<MergedKind> load_value_hotlists(const ProfileDatabase& db,
                                            const std::optional<std::string>& image,
                                            const std::vector<std::string>& kinds,
                                            const std::optional<std::vector<uint64_t>>& epochs);

// A hotlist's values by decreasing count.
std::vector<values::HotValue> values_by_count(const values::PcHotlist& list);
// A value's estimated share of the values seen at its PC (C[v] / p / vtot).
double value_share(const values::HotValue& value, const values::PcHotlist& list);

}  // namespace dcpi
