#include "analysis/values/value_hotlists.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/symbols/image_resolver.h"

namespace dcpi {
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

}  // namespace dcpi
