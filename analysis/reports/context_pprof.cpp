#include "analysis/reports/context_pprof.h"

#include <map>
#include <stdexcept>
#include <unordered_map>

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
  for (const char* type : {"instructions", "cycles", "calls"}) {
    pb::ValueType* value = profile.add_sample_type();
    value->set_type(frames.string(type));
    value->set_unit(frames.string("count"));
  }
  for (uint32_t i = 1; i < tree.nodes.size(); ++i) {
    const ContextTreeNode& node = tree.nodes[i];
    if (node.self.instructions == 0 && node.self.cycles == 0 && node.self.calls == 0) continue;
    pb::Sample* sample = profile.add_sample();
    for (uint32_t n = i; n != 0; n = tree.nodes[n].parent)  // leaf first
      sample->add_location_id(frames.location(tree.nodes[n]));
    for (uint64_t value : {node.self.instructions, node.self.cycles, node.self.calls})
      sample->add_value(static_cast<int64_t>(value));
  }
  profile.add_comment(frames.string(
      "dcpi export --contexts: the exact calling context tree (dcpi run --contexts); values "
      "are exclusive per context"));
  std::string bytes;
  if (!profile.SerializeToString(&bytes)) throw std::runtime_error("cannot serialize the profile");
  return bytes;
}

}  // namespace dcpi
