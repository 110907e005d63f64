// Exact execution counts from QEMU (the role dcpix played in DCPI §6.2):
// the file written by the exec_counts TCG plugin (qemu/plugins/), format in
// docs/exec-counts-format.md. Instructions are counted by guest virtual
// address; an edge is recorded whenever the next executed PC is not the
// current PC + 4, so the sequential flow out of an instruction is implicit:
// executions(pc) − Σ recorded edges out of pc.
#pragma once
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

namespace dcpi::calc {

class GroundTruth {
 public:
  void add_instruction(uint64_t pc, uint64_t count) { instructions_[pc] += count; }
  void add_edge(uint64_t from, uint64_t to, uint64_t count);

  uint64_t executions(uint64_t pc) const;
  // Executions of the transfer from → to; to == from + 4 includes the
  // implicit sequential flow.
  uint64_t transfers(uint64_t from, uint64_t to) const;
  const std::unordered_map<uint64_t, uint64_t>& instructions() const { return instructions_; }
  const std::map<std::pair<uint64_t, uint64_t>, uint64_t>& edges() const { return edges_; }

 private:
  std::unordered_map<uint64_t, uint64_t> instructions_;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges_;
  std::unordered_map<uint64_t, uint64_t> recorded_out_;  // Σ recorded edges per source PC
};

// Parses the plugin's file; on a malformed line returns false and says which.
bool read_ground_truth(std::istream& in, GroundTruth& truth, std::string& error);

}  // namespace dcpi::calc
