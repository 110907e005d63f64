// GroundTruth::for_image (ground_truth.h): one image's truth out of a
// version-5 file's address spaces.
#include <algorithm>

#include "analysis/calc/truth/ground_truth.h"

namespace dcpi::calc {

namespace {

// The kernel's and PAL's addresses (KSEG) mean the same in every space.
bool is_user_address(uint64_t pc) { return pc < (uint64_t{1} << 43); }

bool names(const GroundTruth::Mapping& m, const std::string& build_id, const std::string& path) {
  return build_id.empty() ? m.path == path : m.build_id == build_id;
}

struct Translate {
  const GroundTruth::Mapping& m;
  bool inside(uint64_t pc) const { return pc - m.load < m.size; }
  uint64_t operator()(uint64_t pc) const { return pc - m.load + m.link; }
  // A PC that may lie outside: where the image's truth puts it.
  std::optional<uint64_t> other(uint64_t pc) const {
    if (inside(pc)) return (*this)(pc);
    if (!is_user_address(pc)) return pc;
    return std::nullopt;
  }
};

void add_space(const GroundTruth& space, const Translate& at, GroundTruth& out) {
  for (const auto& [pc, n] : space.instructions())
    if (at.inside(pc)) out.add_instruction(at(pc), n);
  for (const auto& [edge, n] : space.edges())
    if (at.inside(edge.first))
      out.add_edge(at(edge.first), at.other(edge.second).value_or(GroundTruth::kOutsideImage), n);
  for (const auto& [pc, stalls] : space.all_stalls()) {
    if (!at.inside(pc)) continue;
    for (TruthStall stall : stalls) {
      if (stall.culprit) stall.culprit = at.other(*stall.culprit);
      out.add_stall(at(pc), stall);
    }
  }
  for (const auto& [name, counts] : space.pc_events())
    for (const auto& [pc, n] : counts)
      if (at.inside(pc)) out.add_pc_event(name, at(pc), n);
  space.for_each_cycles([&](uint64_t pc, uint64_t cycles, uint64_t visible) {
    if (!at.inside(pc)) return;
    if (cycles) out.add_cycles(at(pc), cycles);
    if (visible) out.add_visible(at(pc), visible);
  });
}

}  // namespace

bool GroundTruth::maps_image(const std::string& build_id, const std::string& path) const {
  return std::any_of(maps.begin(), maps.end(),
                     [&](const Mapping& m) { return names(m, build_id, path); });
}

GroundTruth GroundTruth::for_image(const std::string& build_id, const std::string& path) const {
  if (!has_spaces()) return *this;
  GroundTruth out;
  out.version = version;
  out.images = images;
  out.machine = machine;
  out.vcpus = vcpus;
  for (const auto& [name, n] : events()) out.add_event(name, n);
  if (!maps_image(build_id, path)) {
    // The kernel, PALcode: the shared lines. A user address belongs to a
    // space, and no space had this image.
    constexpr uint64_t kUserEnd = uint64_t{1} << 43;
    const Mapping shared{.load = kUserEnd, .size = ~uint64_t{0} - kUserEnd, .link = kUserEnd};
    add_space(*this, Translate{shared}, out);
    return out;
  }
  for (const Mapping& m : maps) {
    if (!names(m, build_id, path)) continue;
    const auto space = spaces.find(m.space);
    if (space != spaces.end()) add_space(*space->second, Translate{m}, out);
  }
  return out;
}

}  // namespace dcpi::calc
