#include "analysis/values/value_rows.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "symbols/procedure_match.h"

namespace dcpi {

using values::PcHotlist;

// One standard deviation of the top value's share, from the binomial with
// the retained sample (about p * vtot values; seed 001 §2.2).
double share_sigma(double fraction, const PcHotlist& list) {
  const double n = std::max(1.0, list.probability * static_cast<double>(list.seen));
  return std::sqrt(std::max(0.0, fraction * (1 - fraction)) / n);
}

std::vector<ValueRow> select_value_rows(const std::vector<MergedKind>& merged,
                                        ValueSymbols& symbols, const ValueSelection& selection) {
  std::optional<std::pair<uint64_t, uint64_t>> range;  // --procedure bounds
  if (const auto& name = selection.procedure) {
    std::vector<std::string> every_symbol;
    size_t with_symbols = 0;
    for (const MergedKind& kind : merged) {
      const ElfImage* elf = symbols.elf(kind.info.image);
      if (!elf) continue;
      ++with_symbols;
      const std::vector<std::string> names = elf->procedure_symbols();
      every_symbol.insert(every_symbol.end(), names.begin(), names.end());
      if (const auto p = find_procedure(*elf, *name, kind.info.image.path)) {
        range = {p->start, elf->procedure_end(*p)};
        break;
      }
    }
    if (!range) throw no_procedure_error(every_symbol, *name, with_symbols, "");
  }

  // Only registers the instruction really reads or writes (no "result" of a
  // trapb, no literal as "b"); without the ELF the row stays.
  auto register_value = [&](const MergedKind& kind, const PcHotlist& list) {
    const ElfImage* elf = symbols.elf(kind.info.image);
    const std::optional<uint32_t> word = elf ? elf->instruction_at(list.address) : std::nullopt;
    return !word || kind_is_register_value(kind.info.kind, *word,
                                           decode_mode_for_image(kind.info.image.path));
  };
  std::vector<ValueRow> rows;
  for (const MergedKind& kind : merged)
    for (const PcHotlist& list : kind.hotlists)
      if ((!range || (list.address >= range->first && list.address < range->second)) &&
          register_value(kind, list))
        rows.push_back(ValueRow{&kind, &list, values_by_count(list)});

  if (selection.invariant) {
    const double min_samples = selection.min_samples;
    const double threshold = selection.threshold;
    std::erase_if(rows, [&](const ValueRow& row) {
      return static_cast<double>(row.list->seen) < min_samples || row.hot.empty() ||
             value_share(row.hot.front(), *row.list) < threshold;
    });
    std::stable_sort(rows.begin(), rows.end(), [](const ValueRow& a, const ValueRow& b) {
      return a.list->seen > b.list->seen;
    });
    if (rows.size() > selection.limit) rows.resize(selection.limit);
  } else {
    std::stable_sort(rows.begin(), rows.end(), [](const ValueRow& a, const ValueRow& b) {
      return std::tie(a.kind->info.image.path, a.list->address) <
             std::tie(b.kind->info.image.path, b.list->address);
    });
  }

  return rows;
}

}  // namespace dcpi
