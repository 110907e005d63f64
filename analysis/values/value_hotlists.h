// Value hotlists of a database, merged over its epochs (seed 001 §2.2; the
// merge rule: docs/profile-db.md, "Value files"). Shared by `dcpi values`
// and `dcpi list --values`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/decode.h"
#include "profiledb/profile_db.h"
#include "profiledb/value_file.h"

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

// The kind with the most values seen at (image, address), and its hotlist
// there: what a listing shows beside an instruction (dcpi list --values, the
// HTML report). Both null if no kind has a hotlist at that PC.
struct BestHotlist {
  const MergedKind* kind = nullptr;
  const values::PcHotlist* list = nullptr;
};
BestHotlist best_hotlist_at(const std::vector<MergedKind>& kinds, const std::string& image_path,
                            uint64_t address);

// A hotlist's values by decreasing count.
std::vector<values::HotValue> values_by_count(const values::PcHotlist& list);
// A value's estimated share of the values seen at its PC (C[v] / p / vtot).
double value_share(const values::HotValue& value, const values::PcHotlist& list);

// Whether a kind of the built-in operand module (result, a, b, fp_result,
// fp_a, fp_b) names a register the instruction `word` really writes or
// reads: not trapb's "result" (it writes no register), not zapnot's literal
// 0x7 as "b", not R31. The guest records the fields whatever the encoding
// (issue 17); the reports show only real registers. Other kinds (from
// customization modules) are always kept.
bool kind_is_register_value(const std::string& kind, uint32_t word, isa::DecodeMode mode);

}  // namespace dcpi
