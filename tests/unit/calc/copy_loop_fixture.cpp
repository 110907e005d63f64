#include "copy_loop_fixture.h"

namespace dcpi::calc::testing {

namespace {
constexpr uint8_t v0 = 0, t0 = 1, t1 = 2, t2 = 3, t4 = 5, t5 = 6, t6 = 7, a0 = 16;

InstructionRecord load(uint64_t address, const char* /*objdump text, for the reader*/, uint8_t dest,
                       uint8_t base) {
  InstructionRecord r = op(address, isa::Ev5Class::kIld, std::nullopt, base, dest);
  r.kind = isa::Kind::kLoad;
  return r;
}
InstructionRecord store(uint64_t address, const char* /*objdump text, for the reader*/,
                        uint8_t data, uint8_t base) {
  InstructionRecord r = op(address, isa::Ev5Class::kIst, data, base, std::nullopt);
  r.kind = isa::Kind::kStore;
  return r;
}
InstructionRecord lda(uint64_t address, const char* /*objdump text, for the reader*/, uint8_t dest,
                      uint8_t base) {
  InstructionRecord r = op(address, isa::Ev5Class::kIadd, std::nullopt, base, dest);
  r.kind = isa::Kind::kLoadAddress;
  return r;
}
}  // namespace

InstructionRecord op(uint64_t address, isa::Ev5Class c, std::optional<uint8_t> ra,
                     std::optional<uint8_t> rb, std::optional<uint8_t> dest) {
  InstructionRecord r;
  r.address = address;
  r.ev5_class = c;
  if (ra) r.source_a = SourceOperand{int_register(*ra), OperandField::kRa};
  if (rb) r.source_b = SourceOperand{int_register(*rb), OperandField::kRb};
  if (dest) r.destination = int_register(*dest);
  return r;
}

InstructionRecord branch(uint64_t address, ControlFlow flow, std::optional<uint64_t> target,
                         uint8_t ra) {
  InstructionRecord r = op(address, isa::Ev5Class::kIbr, ra, std::nullopt, std::nullopt);
  r.control_flow = flow;
  r.branch_target = target;
  if (flow == ControlFlow::kReturn || flow == ControlFlow::kIndirectJump) {
    r.ev5_class = isa::Ev5Class::kJsr;
    r.source_a.reset();
    r.source_b = SourceOperand{int_register(26), OperandField::kRb};
  }
  return r;
}

std::vector<InstructionRecord> copy_loop_block() {
  std::vector<InstructionRecord> block = {
      load(0x9810, "ldq t4, 0(t1)", t4, t1),
      op(0x9814, isa::Ev5Class::kIadd, t0, std::nullopt, t0),  // addq t0, 0x4, t0
      load(0x9818, "ldq t5, 8(t1)", t5, t1),
      load(0x981c, "ldq t6, 16(t1)", t6, t1),
      load(0x9820, "ldq a0, 24(t1)", a0, t1),
      lda(0x9824, "lda t1, 32(t1)", t1, t1),
      store(0x9828, "stq t4, 0(t2)", t4, t2),
      op(0x982c, isa::Ev5Class::kIcmp, t0, v0, t4),  // cmpult t0, v0, t4
      store(0x9830, "stq t5, 8(t2)", t5, t2),
      store(0x9834, "stq t6, 16(t2)", t6, t2),
      store(0x9838, "stq a0, 24(t2)", a0, t2),
      lda(0x983c, "lda t2, 32(t2)", t2, t2),
      branch(0x9840, ControlFlow::kConditionalBranch, 0x9810, t4),  // bne t4, 0x009810
  };
  return block;
}

std::vector<double> copy_loop_samples() {
  return {3126, 0, 1636, 390, 1482, 0, 27766, 0, 1493, 174727, 1548, 0, 1586};
}

BasicBlock simple_block(uint64_t start, size_t count) {
  BasicBlock block{.start = start, .end = start + 4 * count};
  for (size_t i = 0; i < count; ++i)
    block.instructions.push_back(op(start + 4 * i, isa::Ev5Class::kIadd, 1, 2, 3));
  return block;
}

}  // namespace dcpi::calc::testing
