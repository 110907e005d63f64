// Alpha instruction words for the EV5 model tests (Alpha Architecture
// Handbook formats: memory, operate, branch) and blocks made of them.
#pragma once
#include <cstdint>
#include <vector>

#include "qemu/machine/plugins/ev5/block_record.h"

namespace dcpi::ev5::testing {

constexpr uint32_t memory(uint32_t opcode, uint32_t ra, uint32_t rb, int16_t disp) {
  return opcode << 26 | ra << 21 | rb << 16 | static_cast<uint16_t>(disp);
}
constexpr uint32_t ldq(uint32_t ra, uint32_t rb, int16_t disp = 0) {
  return memory(0x29, ra, rb, disp);
}
constexpr uint32_t stq(uint32_t ra, uint32_t rb, int16_t disp = 0) {
  return memory(0x2d, ra, rb, disp);
}
constexpr uint32_t addq(uint32_t ra, uint32_t rb, uint32_t rc) {
  return 0x10u << 26 | ra << 21 | rb << 16 | 0x20u << 5 | rc;
}
constexpr uint32_t mulq(uint32_t ra, uint32_t rb, uint32_t rc) {
  return 0x13u << 26 | ra << 21 | rb << 16 | 0x20u << 5 | rc;
}
// bne ra, displacement in instructions from the next one.
constexpr uint32_t bne(uint32_t ra, int32_t displacement) {
  return 0x3du << 26 | ra << 21 | (static_cast<uint32_t>(displacement) & 0x1fffff);
}

// Opcode 0x1a, disp<15:14> the jump's kind (0 JMP, 1 JSR, 2 RET, 3
// JSR_COROUTINE), disp<13:0> its hint (Alpha Architecture Handbook §4.3.3).
constexpr uint32_t jump(uint32_t kind, uint32_t ra, uint32_t rb, uint32_t hint = 0) {
  return 0x1au << 26 | ra << 21 | rb << 16 | kind << 14 | (hint & 0x3fff);
}
constexpr uint32_t jmp(uint32_t rb, uint32_t hint = 0) { return jump(0, 31, rb, hint); }
constexpr uint32_t jsr(uint32_t ra, uint32_t rb, uint32_t hint = 0) {
  return jump(1, ra, rb, hint);
}
constexpr uint32_t ret(uint32_t rb = 26) { return jump(2, 31, rb, 1); }
// bsr ra, displacement in instructions from the next one.
constexpr uint32_t bsr(uint32_t ra, int32_t displacement) {
  return 0x34u << 26 | ra << 21 | (static_cast<uint32_t>(displacement) & 0x1fffff);
}

// A block record of `words` at `pc`, timed as the plugin times it, with an
// id of its own as the plugin's block table gives (per-vCPU counters).
inline BlockRecord block_of(uint64_t pc, std::vector<uint32_t> words) {
  static uint32_t next_id = 0;
  return BlockRecord(time_block(pc, words), words, next_id++);
}

}  // namespace dcpi::ev5::testing
