// System calls (callsys). ABI, shared with user programs: v0 = number,
// a0-a5 = arguments; on return v0 = result and a3 = 0, or a3 = 1 and v0 = a
// positive errno (Linux/Alpha). Numbers are Linux/Alpha's where Linux has
// the call, so the same static binaries run under qemu-alpha user mode.
#pragma once
#include <cstdint>

#include "kernel/traps.h"

namespace kernel::sys {

// Handles the system call in `frame` (entered from user mode).
void dispatch(TrapFrame* frame);

inline constexpr uint64_t kExit = 1;
inline constexpr uint64_t kRead = 3;
inline constexpr uint64_t kWrite = 4;
inline constexpr uint64_t kClose = 6;
inline constexpr uint64_t kBrk = 17;
inline constexpr uint64_t kLseek = 19;
inline constexpr uint64_t kGetxpid = 20;  // v0 = pid, a4 = parent pid
inline constexpr uint64_t kKill = 37;     // ENOSYS
inline constexpr uint64_t kOpen = 45;
inline constexpr uint64_t kFstat = 91;
inline constexpr uint64_t kTimes = 323;
inline constexpr uint64_t kGettimeofday = 359;
inline constexpr uint64_t kWait4 = 365;
inline constexpr uint64_t kExitGroup = 405;
// Ours (no Linux counterpart).
inline constexpr uint64_t kSpawn = 1000;        // (path, argv) -> pid
inline constexpr uint64_t kDcpiControl = 1001;  // (const dcpi::ControlBlock*)
inline constexpr uint64_t kKernelInfo = 1002;   // (what) -> value, for tests

// kKernelInfo selectors.
inline constexpr uint64_t kInfoFreePages = 0;
inline constexpr uint64_t kInfoCpu = 1;              // CPU the caller runs on
inline constexpr uint64_t kInfoCpusRunningUser = 2;  // CPUs running a user process now
inline constexpr uint64_t kInfoLoadMapCount = 3;
inline constexpr uint64_t kInfoPrintLoadMap = 4;  // console dump, returns the count
inline constexpr uint64_t kInfoCpuMask = 5;       // CPUs the caller has run on

// Clock ticks of times(): 1000 per second (newlib's CLOCKS_PER_SEC), from
// the 250 MHz cycle counter.
inline constexpr uint64_t kTicksPerSecond = 1000;

}  // namespace kernel::sys
