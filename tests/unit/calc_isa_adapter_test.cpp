// The isa/ → InstructionRecord adapter (issue 7) on real encodings: DCPI
// Figure 2's copy loop assembled with alpha-linux-gnu-as (fixtures/
// copy_fig2.S) decodes to the same records as the hand-made fixture and the
// EV5 model schedules it in the figure's 8 cycles for 13 instructions.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "analysis/calc/decode/isa_adapter.h"
#include "analysis/calc/estimate/cfg.h"
#include "analysis/calc/frontend/code_image.h"
#include "analysis/calc/model/ev5_model.h"
#include "calc/copy_loop_fixture.h"
#include "symbols/elf_image.h"
#include "test_support.h"

namespace dcpi {
namespace {

using namespace calc;

std::vector<InstructionRecord> figure2_from_elf(const std::string& path) {
  for (const CodeSection& section : ElfImage::open(path).code_sections())
    if (section.address == 0x9810)
      return decode_records(std::span<const uint32_t>(section.words).first(13), 0x9810);
  return {};
}

TEST(CalcIsaAdapter, Figure2EncodingsGiveTheHandMadeRecords) {
  const std::string elf = dcpi::testing::fixture_path("copy_fig2.elf");
  if (elf.empty()) GTEST_SKIP() << "alpha-linux-gnu binutils not installed";
  const std::vector<InstructionRecord> decoded = figure2_from_elf(elf);
  const std::vector<InstructionRecord> expected = calc::testing::copy_loop_block();
  ASSERT_EQ(decoded.size(), expected.size());
  for (size_t i = 0; i < decoded.size(); ++i) {
    SCOPED_TRACE(calc::disassemble(decoded[i]));
    EXPECT_EQ(decoded[i].address, expected[i].address);
    EXPECT_EQ(decoded[i].ev5_class, expected[i].ev5_class);
    EXPECT_EQ(decoded[i].kind == isa::Kind::kLoadAddress,
              expected[i].kind == isa::Kind::kLoadAddress);
    EXPECT_EQ(decoded[i].source_a.has_value(), expected[i].source_a.has_value());
    if (decoded[i].source_a && expected[i].source_a) {
      EXPECT_EQ(decoded[i].source_a->reg, expected[i].source_a->reg);
      EXPECT_EQ(decoded[i].source_a->field, OperandField::kRa);
    }
    EXPECT_EQ(decoded[i].source_b.has_value(), expected[i].source_b.has_value());
    if (decoded[i].source_b && expected[i].source_b) {
      EXPECT_EQ(decoded[i].source_b->reg, expected[i].source_b->reg);
      EXPECT_EQ(decoded[i].source_b->field, OperandField::kRb);
    }
    EXPECT_EQ(decoded[i].destination, expected[i].destination);
    EXPECT_EQ(decoded[i].control_flow, expected[i].control_flow);
    EXPECT_EQ(decoded[i].branch_target, expected[i].branch_target);
  }
  EXPECT_EQ(calc::disassemble(decoded[0]), "ldq\tt4,0(t1)");
  EXPECT_EQ(calc::disassemble(decoded[12]), "bne\tt4,9810");
}

TEST(CalcIsaAdapter, Ev5BestCaseOfFigure2Is8CyclesFor13Instructions) {
  const std::string elf = dcpi::testing::fixture_path("copy_fig2.elf");
  if (elf.empty()) GTEST_SKIP() << "alpha-linux-gnu binutils not installed";
  const std::vector<InstructionRecord> block = figure2_from_elf(elf);
  const BlockSchedule schedule = Ev5Model().schedule_block(block);
  EXPECT_EQ(schedule.best_case_cycles, 8u);
  EXPECT_NEAR(schedule.best_case_cpi(), 0.62, 0.005);
  std::vector<uint64_t> issue_points;
  for (size_t i = 0; i < block.size(); ++i)
    if (schedule.instructions[i].head_cycles > 0) issue_points.push_back(block[i].address);
  EXPECT_EQ(issue_points, (std::vector<uint64_t>{0x9810, 0x9818, 0x9820, 0x9828, 0x9830, 0x9834,
                                                 0x9838, 0x9840}));  // Figure 7's M_i
}

TEST(CalcIsaAdapter, OperandsAndControlFlowOfOtherFormats) {
  // stt $f2, 8($30): FP data in Ra, integer base in Rb.
  const InstructionRecord stt = decode_record(0x9c5e0008, 0x1000);
  EXPECT_EQ(stt.ev5_class, isa::Ev5Class::kFst);
  EXPECT_EQ(stt.source_a->reg, fp_register(2));
  EXPECT_EQ(stt.source_b->reg, int_register(30));
  // mult $f1, $f2, $f3
  const InstructionRecord mult = decode_record(0x58221443, 0x1004);
  EXPECT_EQ(mult.ev5_class, isa::Ev5Class::kFmul);
  EXPECT_EQ(mult.destination, fp_register(3));
  // bsr ra, +16 → a call with a direct target; call_pal halt never falls through.
  const InstructionRecord bsr = decode_record(0xd3400004, 0x2000);
  EXPECT_EQ(bsr.control_flow, ControlFlow::kCall);
  EXPECT_EQ(bsr.branch_target, 0x2014u);
  EXPECT_EQ(bsr.destination, int_register(26));
  EXPECT_EQ(decode_record(0x00000000, 0x3000).control_flow, ControlFlow::kHalt);
  // subq zero, t1, t0 (negq): an operate with r31 as Ra: r31 never becomes a source.
  const InstructionRecord neg = decode_record(0x43e20521, 0x4000);
  EXPECT_FALSE(neg.source_a.has_value());
  EXPECT_EQ(neg.source_b->reg, int_register(2));
}

TEST(CalcIsaAdapter, ConditionalMovesReadTheirDestination) {
  // cmoveq t0, t1, t2 and fcmoveq $f1, $f2, $f3 (encodings checked with objdump):
  // when the move does not happen Rc keeps its value, so Rc is a source.
  const InstructionRecord cmov = decode_record(0x44220483, 0x1000);
  ASSERT_TRUE(cmov.source_c.has_value());
  EXPECT_EQ(cmov.source_c->reg, int_register(3));
  EXPECT_EQ(cmov.source_c->field, OperandField::kRc);
  EXPECT_EQ(cmov.destination, int_register(3));
  const InstructionRecord fcmov = decode_record(0x5c220543, 0x1004);
  ASSERT_TRUE(fcmov.source_c.has_value());
  EXPECT_EQ(fcmov.source_c->reg, fp_register(3));
  EXPECT_FALSE(decode_record(0x4ca60003, 0x1008).source_c.has_value());  // mull: no
  // mull t4, t5, t2 then cmoveq t0, t1, t2: the cmov waits for the multiply
  // through Rc (EV5: 8 cycles for mull), and the stall names Rc.
  const std::vector<InstructionRecord> block = {decode_record(0x4ca60003, 0x2000),
                                                decode_record(0x44220483, 0x2004)};
  const BlockSchedule s = Ev5Model().schedule_block(block);
  EXPECT_EQ(s.instructions[1].issue_cycle, 8u);
  bool rc_stall = false;
  for (const StaticStall& stall : s.instructions[1].stalls)
    rc_stall |= stall.reason == StallCause::kDependency && stall.operand == OperandField::kRc;
  EXPECT_TRUE(rc_stall);
}

TEST(CalcIsaAdapter, JumpTablesAreMarkedTailCallsLeaveLdgpGivesASecondEntry) {
  const std::string elf = dcpi::testing::fixture_path("copy_fig2.elf");
  if (elf.empty()) GTEST_SKIP() << "alpha-linux-gnu binutils not installed";
  const CodeImage image = CodeImage::open(elf);
  const ProcedureRange* copy = image.find("copy_fig2");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->start, 0x9810u);
  EXPECT_EQ(copy->end, 0x9848u);
  const ProcedureRange* sw = image.find("switch_fig");
  ASSERT_NE(sw, nullptr);
  ProcedureCode code = image.code(*sw);
  ASSERT_EQ(code.indirect_jumps.size(), 2u);
  EXPECT_EQ(code.indirect_jumps[0].kind, IndirectJumpKind::kJumpTable);
  EXPECT_EQ(code.indirect_jumps[0].table_load, sw->start + 20);  // the ldl
  // The "table" is at gp itself, outside every section: it cannot be read.
  EXPECT_FALSE(code.indirect_jumps[0].table.has_value());
  EXPECT_NE(code.indirect_jumps[0].problem.find("not in the image's read-only data"),
            std::string::npos)
      << code.indirect_jumps[0].problem;
  EXPECT_EQ(code.indirect_jumps[1].kind, IndirectJumpKind::kTailCall);
  EXPECT_EQ(code.records.back().control_flow, ControlFlow::kReturn);
  EXPECT_EQ(code.extra_entries, (std::vector<uint64_t>{sw->start + 8}));

  const ControlFlowGraph cfg = build_cfg(code.records, code.extra_entries);
  EXPECT_TRUE(cfg.missing_edges());  // the jump table's targets are unknown
  ASSERT_EQ(cfg.extra_entries().size(), 1u);
  EXPECT_EQ(cfg.block(cfg.extra_entries()[0]).start, sw->start + 8);
  EXPECT_EQ(image.containing(sw->start + 12), sw);
  EXPECT_EQ(image.containing(0x100), nullptr);
}

// A stripped library's static functions are procedures too, one per FDE
// binutils' readelf lists where no symbol's procedure is (libc's .dynsym
// names only exported functions), named 0x<start> as the reports name them.
TEST(CalcIsaAdapter, StrippedLibrarysStaticFunctionsAreProceduresByTheirFde) {
  const std::string libc = "/usr/alpha-linux-gnu/lib/libc.so.6.1";
  if (!std::filesystem::exists(libc)) GTEST_SKIP() << "no Alpha sysroot";
  const CodeImage image = CodeImage::open(libc);
  size_t by_fde = 0;
  for (const auto& [begin, end] : dcpi::testing::readelf_fdes(libc)) {
    const ProcedureRange* procedure = image.containing(begin);
    if (procedure == nullptr) {  // an FDE a symbol's procedure overlaps: that one has the code
      EXPECT_NE(image.containing(end - 4), nullptr) << std::hex << begin;
      continue;
    }
    if (!procedure->name.starts_with("0x")) continue;  // a symbol's
    char name[32];
    std::snprintf(name, sizeof name, "0x%llx", static_cast<unsigned long long>(begin));
    EXPECT_EQ(procedure->name, name);
    EXPECT_EQ(procedure->start, begin);
    EXPECT_EQ(procedure->end, end);
    ++by_fde;
  }
  EXPECT_GT(by_fde, 100u);
}

}  // namespace
}  // namespace dcpi
