// QEMU's Alpha under `-icount shift=2` (DESIGN §3): one instruction per
// cycle, no caches, no pipelines, no stalls. Every instruction is an issue
// point with M_i = 1, best-case CPI is 1.0, and there are no dynamic stalls
// for the culprit analysis to explain.
#pragma once
#include "analysis/calc/model/processor_model.h"

namespace dcpi::calc {

class QemuIcountModel final : public ProcessorModel {
 public:
  std::string_view name() const override { return "qemu-icount (1 instruction per cycle)"; }
  BlockSchedule schedule_block(std::span<const InstructionRecord> block) const override;
  std::span<const StallCause> dynamic_stall_causes() const override { return {}; }
  uint32_t memory_fill_cycles() const override { return 0; }
  uint32_t icache_line_bytes() const override { return 0; }
};

}  // namespace dcpi::calc
