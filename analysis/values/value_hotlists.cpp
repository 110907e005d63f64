#include "analysis/values/value_hotlists.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "isa/isa.h"
#include "symbols/image_resolver.h"

namespace dcpi {

bool kind_is_register_value(const std::string& kind, uint32_t word, isa::DecodeMode mode) {
  const isa::Instruction in = isa::decode(word, mode);
  const isa::Operands o = isa::operands(in);
  const uint8_t fields = isa::fields_read(in.operation);
  auto has = [](const isa::RegisterSet& set, bool fp, uint8_t r) {
    return r != isa::kZeroRegister && ((fp ? set.fp : set.integer) >> r & 1u) != 0;
  };
  const bool b_is_register = (fields & isa::kReadsB) && !in.has_literal;
  if (kind == "result") return o.written.integer != 0;
  if (kind == "fp_result") return o.written.fp != 0;
  if (kind == "a") return (fields & isa::kReadsA) && has(o.read, false, in.ra);
  if (kind == "fp_a") return (fields & isa::kReadsA) && has(o.read, true, in.ra);
  if (kind == "b") return b_is_register && has(o.read, false, in.rb);
  if (kind == "fp_b") return b_is_register && has(o.read, true, in.rb);
  return true;
}
namespace {

bool image_matches(const ImageIdentity& image, const std::optional<std::string>& name) {
  return !name || image_display_name(image) == *name || image.path == *name;
}

}  // namespace

std::vector<MergedKind> load_value_hotlists(const ProfileDatabase& db,
                                            const std::optional<std::string>& image,
                                            const std::vector<std::string>& kinds,
                                            const std::optional<std::vector<uint64_t>>& epochs) {
  std::map<std::tuple<std::string, std::string, std::string>, MergedKind> merged;
  for (uint64_t epoch : db.select_epochs(epochs))
    for (const values::ValueFileInfo& info : values::list_value_files(db, epoch)) {
      if (!image_matches(info.image, image)) continue;
      if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), info.kind) == kinds.end())
        continue;
      values::ValueFile file = values::read_value_file(info.file);
      file.info.epoch = epoch;
      auto [it, added] = merged.try_emplace({info.image.path, info.image.build_id, info.kind});
      if (added) {
        it->second = MergedKind{file.info, std::move(file.hotlists)};
      } else {
        it->second.hotlists =
            values::merge_hotlists(it->second.info, it->second.hotlists, file.hotlists);
      }
    }
  std::vector<MergedKind> out;
  for (auto& [key, kind] : merged) out.push_back(std::move(kind));
  return out;
}

std::vector<values::HotValue> values_by_count(const values::PcHotlist& list) {
  std::vector<values::HotValue> hot = list.values;
  std::sort(hot.begin(), hot.end(), [](const values::HotValue& a, const values::HotValue& b) {
    return a.count != b.count ? a.count > b.count : a.value < b.value;
  });
  return hot;
}

double value_share(const values::HotValue& value, const values::PcHotlist& list) {
  return value.estimate / static_cast<double>(list.seen);
}

BestHotlist best_hotlist_at(const std::vector<MergedKind>& kinds, const std::string& image_path,
                            uint64_t address) {
  BestHotlist best;
  for (const MergedKind& kind : kinds) {
    if (kind.info.image.path != image_path) continue;
    const auto it = std::lower_bound(
        kind.hotlists.begin(), kind.hotlists.end(), address,
        [](const values::PcHotlist& list, uint64_t a) { return list.address < a; });
    if (it == kind.hotlists.end() || it->address != address) continue;
    if (!best.list || it->seen > best.list->seen) best = {&kind, &*it};
  }
  return best;
}

}  // namespace dcpi
