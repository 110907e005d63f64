#include "analysis/calc/estimate/superpage_addresses.h"

#include <array>
#include <deque>

#include "isa/decode.h"
#include "isa/ev5.h"

namespace dcpi::calc {
namespace {

using isa::Operation;

constexpr uint8_t kRa = 26, kPv = 27, kGp = 29, kSp = 30, kZero = 31;
// An offset this small keeps a pointer inside its object's superpage
// mapping: the 21164's physical addresses are 40 bits, the superpage 2^41.
constexpr uint64_t kSmallOffset = uint64_t{1} << 32;

struct Value {
  enum class Kind : uint8_t { kUnknown, kConstant, kSuperpage };
  Kind kind = Kind::kUnknown;
  uint64_t constant = 0;
  bool operator==(const Value&) const = default;
};

Value unknown() { return {}; }
Value constant(uint64_t v) { return {Value::Kind::kConstant, v}; }
Value superpage() { return {Value::Kind::kSuperpage, 0}; }

using Registers = std::array<Value, 32>;

struct State {
  bool reached = false;
  Registers regs{};
};

class Dataflow {
 public:
  Dataflow(const ControlFlowGraph& cfg, SuperpageRange range)
      : cfg_(cfg), range_(range), in_(cfg.blocks().size()) {}

  std::vector<std::vector<bool>> run() {
    seed();
    while (!work_.empty()) {
      const BlockId b = work_.front();
      work_.pop_front();
      queued_[b] = false;
      Registers regs = in_[b].regs;
      for (const InstructionRecord& in : cfg_.block(b).instructions) step(in, regs);
      for (EdgeId e : cfg_.block(b).outgoing) flow_into(cfg_.edge(e).to, regs);
    }
    return accesses();
  }

 private:
  bool in_superpage(const Value& v) const {
    return v.kind == Value::Kind::kSuperpage ||
           (v.kind == Value::Kind::kConstant && range_.contains(v.constant));
  }

  Value meet(const Value& a, const Value& b) const {
    if (a == b) return a;
    return in_superpage(a) && in_superpage(b) ? superpage() : unknown();
  }

  // At every way in: the kernel's stack and globals (and, with a missing
  // edge, any block may be such a way in).
  Registers entry_registers(bool procedure_entry) const {
    Registers regs{};
    regs[kSp] = regs[kGp] = superpage();
    if (procedure_entry) regs[kPv] = constant(cfg_.block(cfg_.entry()).start);
    return regs;
  }

  void seed() {
    queued_.assign(cfg_.blocks().size(), false);
    flow_into(cfg_.entry(), entry_registers(true));
    for (BlockId b : cfg_.extra_entries()) flow_into(b, entry_registers(false));
    if (cfg_.missing_edges())
      for (BlockId b = 0; b < cfg_.blocks().size(); ++b) flow_into(b, entry_registers(false));
  }

  void flow_into(BlockId b, const Registers& regs) {
    State& state = in_[b];
    bool changed = !state.reached;
    if (!state.reached) {
      state.reached = true;
      state.regs = regs;
    } else {
      for (size_t r = 0; r < regs.size(); ++r) {
        const Value m = meet(state.regs[r], regs[r]);
        if (m != state.regs[r]) state.regs[r] = m, changed = true;
      }
    }
    if (changed && !queued_[b]) queued_[b] = true, work_.push_back(b);
  }

  static Value read(const Registers& regs, uint8_t r) { return r == kZero ? constant(0) : regs[r]; }
  static Value operand_b(const Registers& regs, const isa::Instruction& w) {
    return w.has_literal ? constant(w.literal) : read(regs, w.rb);
  }

  // A value plus an offset: constants fold; a superpage pointer plus a
  // small constant, or plus an index (unknown), stays in its object.
  Value add(const Value& a, const Value& b) const {
    using K = Value::Kind;
    if (a.kind == K::kConstant && b.kind == K::kConstant) return constant(a.constant + b.constant);
    auto pointer_plus = [&](const Value& p, const Value& offset) {
      if (!in_superpage(p) || in_superpage(offset)) return unknown();
      if (offset.kind == K::kConstant && offset.constant + kSmallOffset > 2 * kSmallOffset)
        return unknown();  // e.g. minus the superpage's base: a physical address
      return superpage();
    };
    const Value r = pointer_plus(a, b);
    return r.kind != K::kUnknown ? r : pointer_plus(b, a);
  }

  Value subtract(const Value& a, const Value& b) const {
    if (a.kind == Value::Kind::kConstant && b.kind == Value::Kind::kConstant)
      return constant(a.constant - b.constant);
    if (b.kind == Value::Kind::kConstant) return add(a, constant(0 - b.constant));
    return unknown();  // a pointer minus a register: a difference or an index
  }

  // bis: a superpage's base (its low 41 bits clear) or a physical address
  // is the address that maps it.
  Value bitwise_or(const Value& a, const Value& b) const {
    if (a.kind == Value::Kind::kConstant && b.kind == Value::Kind::kConstant)
      return constant(a.constant | b.constant);
    if (a == constant(0)) return b;  // mov: bis zero, b, c
    if (b == constant(0)) return a;
    auto base_or = [&](const Value& base, const Value& other) {
      const bool is_base = base.kind == Value::Kind::kConstant && base.constant == range_.start;
      return is_base && !in_superpage(other) ? superpage() : unknown();
    };
    const Value r = base_or(a, b);
    return r.kind != Value::Kind::kUnknown ? r : base_or(b, a);
  }

  Value scaled(const Value& a, unsigned shift) const {
    return a.kind == Value::Kind::kConstant ? constant(a.constant << shift) : unknown();
  }

  // A memory-format word's Rb + displacement (<< 16 for ldah): an access's
  // address, or what lda/ldah computes.
  Value base_plus_displacement(const Registers& regs, const isa::Instruction& w,
                               unsigned shift = 0) const {
    const auto displacement = static_cast<uint64_t>(static_cast<int64_t>(w.displacement));
    return add(read(regs, w.rb), constant(displacement << shift));
  }

  Value result(const isa::Instruction& w, const Registers& regs) const {
    const Value a = read(regs, w.ra), b = operand_b(regs, w);
    switch (w.operation) {
      case Operation::kLda:
        return base_plus_displacement(regs, w);
      case Operation::kLdah:
        return base_plus_displacement(regs, w, 16);
      case Operation::kAddq:
        return add(a, b);
      case Operation::kS4addq:
        return add(scaled(a, 2), b);
      case Operation::kS8addq:
        return add(scaled(a, 3), b);
      case Operation::kSubq:
        return subtract(a, b);
      case Operation::kBis:
        return bitwise_or(a, b);
      case Operation::kSll:
        return b.kind == Value::Kind::kConstant ? scaled(a, b.constant & 63) : unknown();
      default:
        return unknown();
    }
  }

  // Registers a callee (or PALcode) may change: the Alpha calling
  // standard's caller-saved ones (v0, t0-t7, a0-a5, t8-t11, pv, at, gp).
  static void clobber_across_call(Registers& regs) {
    for (uint8_t r : {0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27, 28})
      regs[r] = unknown();
  }

  void step(const InstructionRecord& in, Registers& regs) const {
    if (in.kind == isa::Kind::kCallPal) {
      clobber_across_call(regs);
      return;
    }
    if (in.control_flow == ControlFlow::kCall) {
      clobber_across_call(regs);
      regs[kGp] = unknown();
      regs[kRa] = constant(in.address + 4);  // the block after it is the return
      return;
    }
    if (!in.destination || in.destination->floating) return;
    const uint8_t d = in.destination->number;
    if (d == kZero) return;
    const isa::Instruction w = isa::decode(in.encoding, in.mode);
    if (in.kind == isa::Kind::kIntegerConditionalMove) {
      regs[d] = meet(regs[d], operand_b(regs, w));
      return;
    }
    regs[d] = result(w, regs);
  }

  std::vector<std::vector<bool>> accesses() const {
    std::vector<std::vector<bool>> found(cfg_.blocks().size());
    for (BlockId b = 0; b < cfg_.blocks().size(); ++b) {
      const auto& instructions = cfg_.block(b).instructions;
      found[b].assign(instructions.size(), false);
      if (!in_[b].reached) continue;
      Registers regs = in_[b].regs;
      for (size_t i = 0; i < instructions.size(); ++i) {
        const InstructionRecord& in = instructions[i];
        if (isa::ev5_is_memory_access(in.ev5_class) && !in.no_op) {
          const isa::Instruction w = isa::decode(in.encoding, in.mode);
          found[b][i] = in_superpage(base_plus_displacement(regs, w));
        }
        step(in, regs);
      }
    }
    return found;
  }

  const ControlFlowGraph& cfg_;
  SuperpageRange range_;
  std::vector<State> in_;
  std::vector<bool> queued_;
  std::deque<BlockId> work_;
};

}  // namespace

bool runs_in_superpage(const ControlFlowGraph& cfg, SuperpageRange range) {
  if (cfg.blocks().empty() || cfg.block(cfg.entry()).instructions.empty()) return false;
  const InstructionRecord& first = cfg.block(cfg.entry()).instructions.front();
  // PALcode may run on the interrupted program's stack: not judged.
  return range.contains(first.address) && first.mode != isa::DecodeMode::kPalcode;
}

std::vector<std::vector<bool>> superpage_accesses(const ControlFlowGraph& cfg,
                                                  SuperpageRange range) {
  if (!runs_in_superpage(cfg, range)) {
    std::vector<std::vector<bool>> none(cfg.blocks().size());
    for (BlockId b = 0; b < none.size(); ++b)
      none[b].assign(cfg.block(b).instructions.size(), false);
    return none;
  }
  return Dataflow(cfg, range).run();
}

}  // namespace dcpi::calc
