#include "analysis/reports/context_pprof.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "analysis/reports/proto/profile.pb.h"

namespace dcpi {
namespace {

namespace pb = perftools::profiles;

// One function and one location per (procedure, image): the CCT keeps
// procedures, not addresses.
class Frames {
 public:
  explicit Frames(pb::Profile& profile) : profile_(profile) { string(""); }

  int64_t string(const std::string& text) {
    const auto [entry, added] = strings_.emplace(text, profile_.string_table_size());
    if (added) profile_.add_string_table(text);
    return entry->second;
  }

  uint64_t location(const ContextTreeNode& node) {
    const auto [entry, added] = locations_.emplace(std::pair{node.name, node.image}, 0);
    if (!added) return entry->second;
    pb::Function* function = profile_.add_function();
    function->set_id(static_cast<uint64_t>(profile_.function_size()));
    function->set_name(string(node.name));
    function->set_system_name(string(node.name));
    function->set_filename(string(node.image));
    pb::Location* location = profile_.add_location();
    location->set_id(static_cast<uint64_t>(profile_.location_size()));
    location->add_line()->set_function_id(function->id());
    entry->second = location->id();
    return entry->second;
  }

 private:
  pb::Profile& profile_;
  std::unordered_map<std::string, int64_t> strings_;
  std::map<std::pair<std::string, std::string>, uint64_t> locations_;
};

}  // namespace

std::string build_context_pprof(const ContextTree& tree) {
  pb::Profile profile;
  Frames frames(profile);
  // A sampled tree (chain_tree.h) has one value, samples; the exact one three.
  const std::vector<const char*> types =
      tree.sampled ? std::vector<const char*>{"samples"}
                   : std::vector<const char*>{"instructions", "cycles", "calls"};
  for (const char* type : types) {
    pb::ValueType* value = profile.add_sample_type();
    value->set_type(frames.string(type));
    value->set_unit(frames.string("count"));
  }
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const ContextTreeNode& node = tree.nodes[i];
    const std::vector<uint64_t> values =
        tree.sampled
            ? std::vector<uint64_t>{node.self.samples}
            : std::vector<uint64_t>{node.self.instructions, node.self.cycles, node.self.calls};
    if (std::all_of(values.begin(), values.end(), [](uint64_t v) { return v == 0; })) continue;
    pb::Sample* sample = profile.add_sample();
    for (uint32_t n = i; n != 0; n = tree.nodes[n].parent)  // leaf first: a location stack
      sample->add_location_id(frames.location(tree.nodes[n]));
    for (uint64_t value : values) sample->add_value(static_cast<int64_t>(value));
  }
  profile.add_comment(frames.string(
      tree.sampled ? "dcpi export --sampled: the sampled call chains (dcpi run -g), unwound with "
                     "DWARF CFI; values are samples whose chain ends there"
                   : "dcpi export --contexts: the exact calling context tree (dcpi run "
                     "--contexts); values are exclusive per context"));
  std::string bytes;
  if (!profile.SerializeToString(&bytes)) throw std::runtime_error("cannot serialize the profile");
  return bytes;
}

}  // namespace dcpi
