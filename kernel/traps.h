// What the trap entry stubs (kernel/entry.S) leave on the kernel stack.
#pragma once
#include <cstdint>

#include "firmware/pal_abi.h"

namespace kernel {

// The full register state at a trap (256 bytes, 16-byte aligned). Saved by
// the entry stubs (kernel/entry.S): r0-r15 then r19-r28; pushed by PALcode:
// PS, PC, gp (r29), a0-a2 (r16-r18). The interrupted sp (r30) is the frame's
// end + 256 for a kernel-mode trap, or the PAL usp register (rdusp) for a
// user-mode one. Layout shared with the driver (value sampling reads it).
struct TrapFrame {
  uint64_t r0_to_r15[16];   // v0, t0-t7, s0-s5, fp
  uint64_t r19_to_r28[10];  // a3-a5, t8-t11, ra, pv, at
  // Pushed by PALcode (OSF/1 layout, firmware/pal_abi.h).
  uint64_t ps, pc, gp, a0, a1, a2;

  // Integer register n (0-31) as the trapped code saw it; sp is not here.
  uint64_t& reg(unsigned n) {
    if (n < 16) return r0_to_r15[n];
    if (n < 19) return (&a0)[n - 16];
    if (n == 29) return gp;
    return r19_to_r28[n - 19];
  }
};
static_assert(__builtin_offsetof(TrapFrame, ps) == 208);
static_assert(sizeof(TrapFrame) == 208 + PAL_FRAME_SIZE);

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
