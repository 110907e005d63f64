// `dcpi values`, rendered (rows selected by analysis/values/value_rows.h):
// per PC vtot, thld, nv and the hot values with estimated counts and shares
// (seed 001 §2, Figure 1), procedure banners between images' procedures; or
// the same rows as JSON.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/values/value_rows.h"

namespace dcpi {

// How a value prints: its module's format when loaded (--values-module),
// else the kind's stored format (profiledb/value_format.h).
using ValueFormatter = std::function<std::string(const values::ValueFileInfo&, uint64_t)>;

// The top `top` values of each row.
void print_value_rows(const std::vector<ValueRow>& rows, ValueSymbols& symbols,
                      const ValueFormatter& format, size_t top, std::ostream& out);
void print_value_rows_json(const std::vector<ValueRow>& rows, bool invariant, ValueSymbols& symbols,
                           const ValueFormatter& format, std::ostream& out);

}  // namespace dcpi
