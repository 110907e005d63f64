// The profiler's control path (start, stop, flush, epoch, period, events).
// The same block is written by the host through the GDB stub (kernel symbol
// `dcpi_control`) and by user programs through the dcpi_control system call;
// the daemon acts on it. Written once for guest and host.
#pragma once
#include <cstdint>

namespace dcpi {

inline constexpr uint64_t kControlMagic = 0x4c52544349504344ull;  // "DCPICTRL"

enum class ControlCommand : uint32_t {
  kNone = 0,
  kStart = 1,      // enable sampling on every CPU
  kStop = 2,       // disable sampling, then flush
  kFlush = 3,      // IPI-synchronized flush of every CPU's table (DCPI §4.2.3)
  kNewEpoch = 4,   // flush, then start a new epoch (args[0] = epoch number, 0 = next)
  kSetPeriod = 5,  // args[0] = period base, args[1] = range (cycles)
  kSetEvents = 6,  // args[0] = EventSet, args[1] = 1 to time-multiplex
  kSetValues = 7,  // value sampling (seed 001): args[0] = N instructions (0 = off), args[1] = every
                   // k-th interrupt
};

enum ControlStatus : int64_t {
  kControlOk = 0,
  kControlUnknownCommand = -1,
  kControlUncountableEvent = -2,  // the machine cannot count it (QEMU: cycles only)
  kControlBadArgument = -3,
};

// The requester fills command and args, then increments request_sequence;
// the daemon performs it and sets done_sequence = request_sequence.
struct alignas(64) ControlBlock {
  uint64_t magic;  // kControlMagic once the driver is ready
  uint64_t request_sequence;
  uint32_t command;  // ControlCommand
  uint32_t reserved;
  uint64_t args[3];
  uint64_t done_sequence;
  int64_t status;  // ControlStatus of the last command done
};
static_assert(sizeof(ControlBlock) == 64);

}  // namespace dcpi
