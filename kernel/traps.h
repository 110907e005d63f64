// What the trap entry stubs (kernel/entry.S) leave on the kernel stack.
#pragma once
#include <cstdint>

#include "firmware/trap_frame.h"

namespace kernel {

// The full register state at a trap: firmware/trap_frame.h (shared with
// PALcode's frame and the driver's value sampler).
using TrapFrame = dcpi::TrapFrame;

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
