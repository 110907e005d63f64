// The copy loop of DCPI Figures 2 and 7 (McCalpin copy, unrolled 4×),
// hand-encoded as instruction records: classes and registers filled in by
// hand as the ISA decoder will. t0–t7 = r1–r8, t1 = r2, t2 = r3, t4 = r5,
// t5 = r6, t6 = r7, a0 = r16, v0 = r0.
#pragma once
#include <vector>

#include "analysis/calc/estimate/cfg.h"
#include "analysis/calc/model/instruction_record.h"

namespace dcpi::calc::testing {

std::vector<InstructionRecord> copy_loop_block();
// Figure 7's S_i column, in the order of copy_loop_block().
std::vector<double> copy_loop_samples();
constexpr double kCopyLoopTrueFrequency = 1575.1;  // Figure 7
constexpr double kCopyLoopPaperEstimate = 1527;    // the paper's heuristic

// Hand-made records for CFG tests.
InstructionRecord op(uint64_t address, isa::Ev5Class c, std::optional<uint8_t> ra,
                     std::optional<uint8_t> rb, std::optional<uint8_t> dest);
InstructionRecord branch(uint64_t address, ControlFlow flow, std::optional<uint64_t> target,
                         uint8_t ra = 31);
// A block of `count` independent adds starting at `start`, ending in `last` if given.
BasicBlock simple_block(uint64_t start, size_t count);

}  // namespace dcpi::calc::testing
