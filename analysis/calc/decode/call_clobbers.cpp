#include "analysis/calc/decode/call_clobbers.h"

#include <array>

#include "isa/isa.h"

namespace dcpi::calc {

namespace {

constexpr uint8_t kGp = 29;
constexpr RegisterMask bit(unsigned r) { return RegisterMask{1} << r; }

// What one procedure does by itself: the registers it writes, the
// procedures it bsr's to, and whether it escapes the analysis.
struct OwnEffects {
  RegisterMask writes = 0;
  std::vector<uint64_t> callees;
  bool unknown = false;
};

OwnEffects own_effects(const ProcedureCalls& p) {
  OwnEffects e;
  const uint64_t end = p.records.empty() ? p.start : p.records.back().address + 4;
  for (const InstructionRecord& r : p.records) {
    if (r.destination && !r.destination->floating) e.writes |= bit(r.destination->number);
    const bool leaves = r.branch_target && (*r.branch_target < p.start || *r.branch_target >= end);
    switch (r.control_flow) {
      case ControlFlow::kCall:
        if (r.branch_target)
          e.callees.push_back(*r.branch_target);
        else
          e.unknown = true;  // jsr through a register
        break;
      case ControlFlow::kIndirectJump:
        e.unknown = true;
        break;
      case ControlFlow::kConditionalBranch:
      case ControlFlow::kUnconditionalBranch:
        e.unknown |= leaves;
        break;
      default:
        e.unknown |= is_tail_call(r);
    }
    if (r.ev5_class == isa::Ev5Class::kCallPal) {
      const isa::Instruction in = isa::decode(r.encoding, isa::DecodeMode::kUser);
      if (const auto lost = pal_call_clobbers(in.pal_function))
        e.writes |= *lost;
      else
        e.unknown = true;
    }
  }
  return e;
}

}  // namespace

bool is_tail_call(const InstructionRecord& r) {
  return r.control_flow == ControlFlow::kReturn &&
         isa::decode(r.encoding, isa::DecodeMode::kUser).is(isa::Operation::kJmp);
}

RegisterMask caller_saved_registers() {
  RegisterMask m = 0;
  for (unsigned r = 0; r < 31; ++r)
    if (!(r >= 9 && r <= 15) && r != 30) m |= bit(r);
  return m;
}

std::optional<RegisterMask> pal_call_clobbers(uint32_t function) {
  switch (function) {
    case 0x9e:  // rduniq
      return bit(0);
    case 0x9f:  // wruniq
    case 0x86:  // imb
    case 0x80:  // bpt, bugchk, gentrap: a signal whose handler's return
    case 0x81:  // restores every register (or the process ends)
    case 0xaa:
      return RegisterMask{0};
    case 0x83: {  // callsys
      RegisterMask m = bit(0) | bit(27) | bit(28);
      for (unsigned r = 1; r <= 8; ++r) m |= bit(r);
      for (unsigned r = 16; r <= 25; ++r) m |= bit(r);
      return m;
    }
    default:
      return std::nullopt;
  }
}

std::optional<RegisterMask> division_helper_clobbers(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kHelpers = {
      "__divq", "__divqu", "__remq", "__remqu", "__divl", "__divlu", "__reml", "__remlu"};
  for (std::string_view helper : kHelpers)
    if (name == helper) return bit(23) | bit(27) | bit(28);  // t9, t12, AT
  return std::nullopt;
}

CallClobbers::CallClobbers(std::span<const ProcedureCalls> procedures) {
  std::vector<OwnEffects> own;
  std::unordered_map<uint64_t, size_t> index;  // entry address -> procedure
  for (size_t i = 0; i < procedures.size(); ++i) index.emplace(procedures[i].start, i);
  for (size_t i = 0; i < procedures.size(); ++i) {
    own.push_back(own_effects(procedures[i]));
    index.emplace(procedures[i].start + 8, i);  // the ldgp entry, unless another starts there
  }
  const RegisterMask all = caller_saved_registers();
  std::vector<RegisterMask> mask(procedures.size());
  std::vector<bool> fixed(procedures.size(), false);
  for (size_t i = 0; i < procedures.size(); ++i) {
    if (const auto helper = division_helper_clobbers(procedures[i].name)) {
      mask[i] = *helper, fixed[i] = true;
    } else {
      mask[i] = own[i].unknown ? all : own[i].writes & all;
      fixed[i] = own[i].unknown;
    }
  }
  // Masks only grow and are bounded by `all`: the iteration ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < procedures.size(); ++i) {
      if (fixed[i]) continue;
      RegisterMask m = mask[i];
      for (uint64_t callee : own[i].callees) {
        const auto found = index.find(callee);
        // gp survives a bsr: the linker makes one only to a callee sharing it.
        m |= found == index.end() ? all : mask[found->second] & ~bit(kGp);
      }
      if (m != mask[i]) mask[i] = m, changed = true;
    }
  }
  for (const auto& [entry, i] : index) by_entry_[entry] = {procedures[i].name, mask[i]};
}

RegisterMask CallClobbers::of(std::optional<uint64_t> target) const {
  if (!target) return caller_saved_registers();
  const auto found = by_entry_.find(*target);
  return found == by_entry_.end() ? caller_saved_registers() : found->second.clobbers;
}

RegisterMask CallClobbers::of_call(const InstructionRecord& call,
                                   std::optional<uint64_t> target) const {
  constexpr uint8_t kT9 = 23;
  const bool returns_to_t9 =
      call.destination && !call.destination->floating && call.destination->number == kT9;
  const bool known = target && by_entry_.contains(*target);
  if (!known && returns_to_t9) return *division_helper_clobbers("__divq");
  return of(target);
}

std::string_view CallClobbers::name_of(uint64_t target) const {
  const auto found = by_entry_.find(target);
  return found == by_entry_.end() ? std::string_view{} : found->second.name;
}

}  // namespace dcpi::calc
