#include "analysis/calc/truth/ground_truth.h"

#include <algorithm>
#include <stdexcept>

#include "firmware/truth_format.h"

namespace dcpi::calc {

std::optional<StallCause> parse_truth_cause(std::string_view word) {
  for (const isa::StallCauseInfo& c : isa::kStallCauses)
    if (c.booked_as == c.cause && word == c.truth_name) return c.cause;
  return std::nullopt;
}

void GroundTruth::add_edge(uint64_t from, uint64_t to, uint64_t count) {
  edges_[{from, to}] += count;
  recorded_out_[from] += count;
}

void GroundTruth::add_stall(uint64_t pc, const TruthStall& stall) {
  std::vector<TruthStall>& at = stalls_[pc];
  for (TruthStall& s : at)
    if (s.cause == stall.cause && s.culprit == stall.culprit) {
      s.cycles += stall.cycles;
      return;
    }
  at.push_back(stall);
}

namespace {

template <typename Map>
void add_counts(Map& into, const Map& from) {
  for (const auto& [key, count] : from) into[key] += count;
}

template <typename T>
void append_new(std::vector<T>& into, const std::vector<T>& from,
                bool (*same)(const T&, const T&)) {
  for (const T& x : from)
    if (std::none_of(into.begin(), into.end(), [&](const T& y) { return same(x, y); }))
      into.push_back(x);
}

bool same_image(const GroundTruth::Image& a, const GroundTruth::Image& b) {
  return a.build_id == b.build_id && a.path == b.path;
}

bool same_mapping(const GroundTruth::Mapping& a, const GroundTruth::Mapping& b) {
  return a.space == b.space && a.load == b.load && a.size == b.size && a.link == b.link &&
         a.build_id == b.build_id && a.path == b.path;
}

}  // namespace

void GroundTruth::add(const GroundTruth& other) {
  if (other.machine != machine || other.version != version)
    throw std::invalid_argument("a truth of machine " + other.machine + " (version " +
                                std::to_string(other.version) + ") cannot be added to one of " +
                                machine + " (version " + std::to_string(version) + ")");
  add_counts(instructions_, other.instructions_);
  for (const auto& [edge, count] : other.edges_) add_edge(edge.first, edge.second, count);
  add_counts(cycles_, other.cycles_);
  add_counts(visible_, other.visible_);
  for (const auto& [pc, stalls] : other.stalls_)
    for (const TruthStall& stall : stalls) add_stall(pc, stall);
  add_counts(events_, other.events_);
  for (const auto& [name, counts] : other.pc_events_) add_counts(pc_events_[name], counts);
  append_new(images, other.images, &same_image);
  for (const auto& [id, space] : other.spaces) {
    std::shared_ptr<GroundTruth>& mine = spaces[id];
    if (!mine)
      mine = std::make_shared<GroundTruth>(*space);
    else  // a space object may be shared with a copy of this truth: add to our own
      (mine = std::make_shared<GroundTruth>(*mine))->add(*space);
  }
  append_new(maps, other.maps, &same_mapping);
  vcpus = std::max(vcpus, other.vcpus);
}

uint64_t GroundTruth::executions(uint64_t pc) const {
  const auto found = instructions_.find(pc);
  return found == instructions_.end() ? 0 : found->second;
}

uint64_t GroundTruth::cycles(uint64_t pc) const {
  if (!timed()) return executions(pc);
  const auto found = cycles_.find(pc);
  return found == cycles_.end() ? 0 : found->second;
}

bool GroundTruth::knows_visibility() const {
  return events_.contains(DCPI_TRUTH_VISIBLE_CYCLES_EVENT);
}

uint64_t GroundTruth::visible_cycles(uint64_t pc) const {
  if (!knows_visibility()) return cycles(pc);
  const auto found = visible_.find(pc);
  return found == visible_.end() ? 0 : found->second;
}

const std::vector<TruthStall>& GroundTruth::stalls(uint64_t pc) const {
  static const std::vector<TruthStall> kNone;
  const auto found = stalls_.find(pc);
  return found == stalls_.end() ? kNone : found->second;
}

uint64_t GroundTruth::transfers(uint64_t from, uint64_t to) const {
  const auto found = edges_.find({from, to});
  uint64_t count = found == edges_.end() ? 0 : found->second;
  if (to == from + 4) {
    const auto out = recorded_out_.find(from);
    const uint64_t recorded = out == recorded_out_.end() ? 0 : out->second;
    const uint64_t executed = executions(from);
    // The last instruction a CPU ran has no successor: at most one per CPU.
    if (executed > recorded) count += executed - recorded;
  }
  return count;
}

}  // namespace dcpi::calc
