// The full register state at a trap (256 bytes, 16-byte aligned), as the
// kernel's entry stubs (kernel/entry.S) leave it on the kernel stack: r0-r15
// then r19-r28 saved by the stubs, then PS, PC, gp (r29), a0-a2 (r16-r18)
// pushed by PALcode (the OSF/1 frame, firmware/pal_abi.h). The interrupted
// sp (r30) is the frame's end + 256 for a kernel-mode trap, or the PAL usp
// register (rdusp) for a user-mode one. A contract between PALcode, the
// kernel, and the driver, whose value sampler reads and advances it (seed
// 001 §2.1.2). Guest only; the assembly stubs (kernel/entry.S,
// driver/fast_handler.S) include it for the size of their part.
#pragma once
#include "firmware/pal_abi.h"

// Bytes the kernel's stubs save below PALcode's frame: r0-r15, r19-r28.
#define TRAP_FRAME_SAVE_BYTES 208

#ifndef __ASSEMBLER__
#include <cstdint>

namespace dcpi {

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
// PALcode's part is the OSF/1 frame, at the end.
static_assert(__builtin_offsetof(TrapFrame, ps) == TRAP_FRAME_SAVE_BYTES + PAL_FRAME_PS &&
              __builtin_offsetof(TrapFrame, pc) == TRAP_FRAME_SAVE_BYTES + PAL_FRAME_PC &&
              __builtin_offsetof(TrapFrame, gp) == TRAP_FRAME_SAVE_BYTES + PAL_FRAME_GP &&
              __builtin_offsetof(TrapFrame, a0) == TRAP_FRAME_SAVE_BYTES + PAL_FRAME_A0 &&
              __builtin_offsetof(TrapFrame, a2) == TRAP_FRAME_SAVE_BYTES + PAL_FRAME_A2);
static_assert(sizeof(TrapFrame) == TRAP_FRAME_SAVE_BYTES + PAL_FRAME_SIZE);

}  // namespace dcpi
#endif
