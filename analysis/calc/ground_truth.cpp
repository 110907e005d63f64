#include "analysis/calc/ground_truth.h"

#include <sstream>

namespace dcpi::calc {

void GroundTruth::add_edge(uint64_t from, uint64_t to, uint64_t count) {
  edges_[{from, to}] += count;
  recorded_out_[from] += count;
}

uint64_t GroundTruth::executions(uint64_t pc) const {
  const auto found = instructions_.find(pc);
  return found == instructions_.end() ? 0 : found->second;
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

bool read_ground_truth(std::istream& in, GroundTruth& truth, std::string& error) {
  std::string line;
  size_t number = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string kind;
    fields >> kind;
    if (!header) {
      int version = 0;
      if (kind != "dcpi-exec-counts" || !(fields >> version) || version != 1) {
        error = "line " + std::to_string(number) + ": expected 'dcpi-exec-counts 1'";
        return false;
      }
      header = true;
      continue;
    }
    uint64_t a = 0, b = 0, count = 0;
    bool ok = false;
    if (kind == "insn") {
      ok = static_cast<bool>(fields >> std::hex >> a >> std::dec >> count);
      if (ok) truth.add_instruction(a, count);
    } else if (kind == "edge") {
      ok = static_cast<bool>(fields >> std::hex >> a >> b >> std::dec >> count);
      if (ok) truth.add_edge(a, b, count);
    } else if (kind == "cpus" || kind == "vcpus") {
      ok = true;  // informational
    }
    if (!ok) {
      error = "line " + std::to_string(number) + ": cannot parse '" + line + "'";
      return false;
    }
  }
  if (!header) {
    error = "empty file: expected 'dcpi-exec-counts 1'";
    return false;
  }
  return true;
}

}  // namespace dcpi::calc
