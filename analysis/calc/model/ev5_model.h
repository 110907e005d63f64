// The Alpha 21164 (EV5) issue model (DCPI §6.1.3 "M_i is obtained by
// scheduling each basic block using a model of the processor"; §6.3 static
// stalls). In-order issue of up to two integer and two FP instructions per
// cycle from one naturally aligned block of four instructions (16 bytes):
// the next block is not started until every instruction of the current one
// has issued. Pipe and latency rules are isa/ev5.h's (the one EV5 description).
#pragma once
#include "analysis/calc/model/processor_model.h"

namespace dcpi::calc {

class Ev5Model final : public ProcessorModel {
 public:
  std::string_view name() const override { return "alpha-21164 (EV5)"; }
  BlockSchedule schedule_block(std::span<const InstructionRecord> block) const override;
  std::span<const StallCause> dynamic_stall_causes() const override;
  // DESIGN §8: cache latencies 2 (D-cache), 12 (S-cache), 38 (memory).
  uint32_t memory_fill_cycles() const override { return 38; }
  // The ev5 machine's costs (docs/ev5-machine.md, the parameter table): a
  // miss all the way to memory, 100 cycles load to use (DCPI §4.2's "on the
  // order of 100 cycles"), behind a write-back and another fill on the
  // memory bus (80 cycles each): 260; a TB refill 25; a mispredict 5.
  // Measured (ev5, mux): the culprit loads with >= 1000 misses cost at most
  // 143 cycles per miss on average (stream), 118 on copy, so 100 alone was
  // not pessimistic; I-cache misses at most 8 (mathcall), 36 (compress).
  uint32_t worst_event_cycles(StallCause cause) const override;
  uint32_t icache_line_bytes() const override { return 32; }
  uint32_t icache_direct_mapped_bytes() const override { return 8192; }  // 21164 HRM §2.8
  // KSEG, VA<42:41> = 2 sign-extended, which the ev5 machine's TBs bypass
  // (qemu/machine/plugins/ev5/tlb.h bypasses_tlb).
  SuperpageRange superpage() const override {
    return {0xfffffc0000000000ull, 0xfffffe0000000000ull};
  }
};

}  // namespace dcpi::calc
