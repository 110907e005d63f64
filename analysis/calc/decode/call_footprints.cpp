#include "analysis/calc/decode/call_footprints.h"

#include <unordered_set>

#include "isa/isa.h"

namespace dcpi::calc {

namespace {

// gentrap, bpt and bugchk: a program's error traps (Alpha Architecture
// Handbook, unprivileged PALcode), whose default action ends the process.
bool is_error_trap(const InstructionRecord& r) {
  const isa::Instruction word = isa::decode(r.encoding, isa::DecodeMode::kUser);
  return word.pal_function == 0xaa || word.pal_function == 0x80 || word.pal_function == 0x81;
}

// Where one procedure's own code goes beyond itself.
bool leaves_for_unknown(const InstructionRecord& r) {
  switch (r.control_flow) {
    case ControlFlow::kCall:
      return !r.branch_target;  // jsr through a register
    case ControlFlow::kIndirectJump:
      return r.jump_targets.empty();  // not a resolved switch table
    default:
      return is_tail_call(r) || (r.ev5_class == isa::Ev5Class::kCallPal && !is_error_trap(r));
  }
}

}  // namespace

CallFootprints::CallFootprints(std::span<const ProcedureCalls> procedures) {
  for (const ProcedureCalls& p : procedures) {
    const uint64_t end = p.records.empty() ? p.start : p.records.back().address + 4;
    Reach reach{.code = {p.start, end}};
    for (const InstructionRecord& r : p.records) {
      reach.unknown |= leaves_for_unknown(r);
      const bool call = r.control_flow == ControlFlow::kCall;
      if (r.branch_target && (call || *r.branch_target < p.start || *r.branch_target >= end))
        reach.targets.push_back(*r.branch_target);
    }
    by_entry_.emplace(p.start, procedures_.size());
    procedures_.push_back(std::move(reach));
  }
  for (size_t i = 0; i < procedures_.size(); ++i)
    by_entry_.emplace(procedures_[i].code.start + 8, i);  // unless another starts there
}

std::optional<size_t> CallFootprints::procedure_at(uint64_t address) const {
  if (const auto found = by_entry_.find(address); found != by_entry_.end()) return found->second;
  // A branch into the middle of a procedure (a shared exit): its procedure.
  for (size_t i = 0; i < procedures_.size(); ++i)
    if (address >= procedures_[i].code.start && address < procedures_[i].code.end) return i;
  return std::nullopt;
}

std::optional<std::vector<CodeRange>> CallFootprints::of(uint64_t target,
                                                         uint64_t max_bytes) const {
  std::vector<CodeRange> code;
  std::unordered_set<size_t> seen;
  std::vector<uint64_t> work = {target};
  uint64_t bytes = 0;
  while (!work.empty()) {
    const std::optional<size_t> at = procedure_at(work.back());
    work.pop_back();
    if (!at) return std::nullopt;
    if (!seen.insert(*at).second) continue;
    const Reach& reach = procedures_[*at];
    bytes += reach.code.end - reach.code.start;
    if (reach.unknown || bytes > max_bytes) return std::nullopt;
    code.push_back(reach.code);
    work.insert(work.end(), reach.targets.begin(), reach.targets.end());
  }
  return code;
}

}  // namespace dcpi::calc
