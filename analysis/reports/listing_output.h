// `dcpi list`, rendered (the listing is computed by
// analysis/samples/procedure_listing.h): one procedure's instructions with
// their samples, source lines interleaved where DWARF has them (DCPI §3), and,
// given value hotlists (`--values`), each instruction's most frequent values;
// or the same as JSON.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "analysis/samples/procedure_listing.h"
#include "analysis/values/value_hotlists.h"

namespace dcpi {

// `value_kinds` empty: no value column.
void print_listing(const ProcedureListing& listing, bool show_source,
                   const std::vector<MergedKind>& value_kinds, std::ostream& out);
void print_listings_json(const std::vector<ProcedureListing>& listings,
                         const std::vector<std::string>& warnings,
                         const std::vector<MergedKind>& value_kinds, std::ostream& out);

}  // namespace dcpi
