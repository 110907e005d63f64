// What the trap entry stubs (kernel/entry.S) leave on the kernel stack.
#pragma once
#include <cstdint>

#include "firmware/pal_abi.h"

namespace kernel {

struct TrapFrame {
  uint64_t r0_to_r8[9];     // v0, t0-t7
  uint64_t r19_to_r28[10];  // a3-a5, t8-t11, ra, pv, at
  uint64_t padding;
  // Pushed by PALcode (OSF/1 layout, firmware/pal_abi.h).
  uint64_t ps, pc, gp, a0, a1, a2;
};
static_assert(__builtin_offsetof(TrapFrame, ps) == 160);
static_assert(sizeof(TrapFrame) == 160 + PAL_FRAME_SIZE);

void install_trap_entries();

// Self-test support: while armed, a trap in the kernel is recorded (its
// entry, a0, and the PC in the frame) and the kernel resumes after the
// trapping instruction instead of panicking.
struct TrapRecord {
  uint64_t entry;  // ENT_* class
  uint64_t a0;
  uint64_t pc;
};
void arm_trap_recorder(TrapRecord* records, uint64_t capacity);
uint64_t disarm_trap_recorder();

}  // namespace kernel
