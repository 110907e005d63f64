// Issue rules and latencies of the Alpha 21164 (EV5) per issue class, from
// GCC's gcc/config/alpha/ev5.md and the numbers in DESIGN §8: two integer
// pipes E0/E1 and two FP pipes FA/FM; stores only on E0 and never in the
// same cycle as a load; branches only on E1; shifts and multiplies only on
// E0; loads 2 cycles (D-cache hit), mull 8, mulq 12, umulh 14, FP add and
// multiply 4, divs 15, divt 22; the multiplier and the FP divider are not
// pipelined.
#pragma once
#include <cstdint>

#include "analysis/calc/instruction_record.h"

namespace dcpi::calc {

enum Ev5Pipe : uint8_t { kPipeE0 = 1, kPipeE1 = 2, kPipeFA = 4, kPipeFM = 8 };

struct Ev5ClassTiming {
  uint8_t pipes = kPipeE0 | kPipeE1;  // any one of these
  uint32_t latency = 1;               // cycles until a dependent instruction may issue
  uint32_t multiplier_busy = 0;       // cycles the integer multiplier stays busy
  uint32_t divider_busy = 0;          // cycles the FP divider stays busy
  bool is_load = false;
  bool is_store = false;  // also MB: issues like a store
};

Ev5ClassTiming ev5_timing(IssueClass issue_class);

// Cycles after `producer` issues until `consumer` may issue when it reads
// the producer's result, with ev5.md's bypasses: a compare or logical result
// feeds a branch or cmov in the same cycle; the multiplier cannot use the
// Ebox bypass (3 cycles from integer producers, one more from a multiply).
uint32_t ev5_operand_latency(IssueClass producer, IssueClass consumer);

bool ev5_is_multiply(IssueClass issue_class);

// ev5.md: "no insn can be issued to E0 exactly two cycles before an integer
// multiply completes": E0 is taken at issue + latency − 3 for its write-back.
inline uint32_t ev5_multiply_writeback_offset(IssueClass multiply) {
  return ev5_timing(multiply).latency - 3;
}

}  // namespace dcpi::calc
