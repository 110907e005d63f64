/* The profiler's control path (start, stop, flush, epoch, period, events,
 * values, chains). The same block is written by the host through the GDB stub
 * (kernel symbol `dcpi_control`) and by user programs through the
 * dcpi_control system call (firmware/syscalls.h); the daemon acts on it.
 * Written once, in C, for the driver, the host tools and user programs
 * (workloads/runtime/dcpi_user.h); the C++ names below are the same things. */
#ifndef DCPI_FIRMWARE_CONTROL_BLOCK_H
#define DCPI_FIRMWARE_CONTROL_BLOCK_H

#include <stdint.h>

#define DCPI_CONTROL_MAGIC 0x4c52544349504344ull /* "DCPICTRL" */

/* DCPI §4.1: the period is uniform in [60K, 64K) cycles, K = 1024, so that
 * 64K = 2^16 is the 21164's 16-bit counter and the reset value
 * 2^16 - period lies in [0, 4K). The driver's default; the host assumes it
 * when a database recorded no period. */
#define DCPI_DEFAULT_PERIOD_BASE (60 * 1024)
#define DCPI_DEFAULT_PERIOD_RANGE (4 * 1024)

/* Commands (dcpi_control_block.command). */
enum {
  DCPI_CONTROL_NONE = 0,
  DCPI_CONTROL_START = 1,      /* enable sampling on every CPU */
  DCPI_CONTROL_STOP = 2,       /* disable sampling, then flush */
  DCPI_CONTROL_FLUSH = 3,      /* IPI-synchronized flush of every CPU's table (DCPI §4.2.3) */
  DCPI_CONTROL_NEW_EPOCH = 4,  /* flush, then start a new epoch (args[0] = epoch, 0 = next) */
  DCPI_CONTROL_SET_PERIOD = 5, /* args[0] = period base, args[1] = range (cycles) */
  DCPI_CONTROL_SET_EVENTS = 6, /* args[0] = event set (firmware/events.h), args[1] = 1: mux,
                                  args[2] = counters 1 and 2's kill bits (EV5_KILL_*,
                                  firmware/ev5_counters.h; 0 = every mode) */
  DCPI_CONTROL_SET_VALUES = 7, /* value sampling (seed 001): args[0] = N instructions
                                  (0 = off), args[1] = every k-th interrupt */
  DCPI_CONTROL_SET_CHAINS = 8, /* sampled call chains (issue 28): args[0] = stack bytes
                                  copied per sample (0 = off; firmware/call_chains.h) */
  DCPI_CONTROL_SET_SEED = 9    /* args[0] = the seed of every CPU's random periods and
                                  intervals (0 = the built-in one): a deterministic run
                                  repeated with another seed samples other instructions */
};

/* Results (dcpi_control_block.status). */
#define DCPI_CONTROL_OK 0
#define DCPI_CONTROL_UNKNOWN_COMMAND (-1)
#define DCPI_CONTROL_UNCOUNTABLE_EVENT (-2) /* the machine cannot count it (QEMU: cycles only) */
#define DCPI_CONTROL_BAD_ARGUMENT (-3)

/* The requester fills command and args, then increments request_sequence;
 * the daemon performs it and sets done_sequence = request_sequence. */
struct __attribute__((aligned(64))) dcpi_control_block {
  uint64_t magic; /* DCPI_CONTROL_MAGIC once the driver is ready */
  uint64_t request_sequence;
  uint32_t command; /* DCPI_CONTROL_START, ... */
  uint32_t reserved;
  uint64_t args[3];
  uint64_t done_sequence;
  int64_t status; /* DCPI_CONTROL_OK, ... of the last command done */
};
#ifdef __cplusplus
static_assert(sizeof(struct dcpi_control_block) == 64, "one cache line");
#else
_Static_assert(sizeof(struct dcpi_control_block) == 64, "one cache line");
#endif

#ifdef __cplusplus
namespace dcpi {

inline constexpr uint64_t kControlMagic = DCPI_CONTROL_MAGIC;
inline constexpr uint32_t kDefaultPeriodBase = DCPI_DEFAULT_PERIOD_BASE;
inline constexpr uint32_t kDefaultPeriodRange = DCPI_DEFAULT_PERIOD_RANGE;

enum class ControlCommand : uint32_t {
  kNone = DCPI_CONTROL_NONE,
  kStart = DCPI_CONTROL_START,
  kStop = DCPI_CONTROL_STOP,
  kFlush = DCPI_CONTROL_FLUSH,
  kNewEpoch = DCPI_CONTROL_NEW_EPOCH,
  kSetPeriod = DCPI_CONTROL_SET_PERIOD,
  kSetEvents = DCPI_CONTROL_SET_EVENTS,
  kSetValues = DCPI_CONTROL_SET_VALUES,
  kSetChains = DCPI_CONTROL_SET_CHAINS,
  kSetSeed = DCPI_CONTROL_SET_SEED,
};

enum ControlStatus : int64_t {
  kControlOk = DCPI_CONTROL_OK,
  kControlUnknownCommand = DCPI_CONTROL_UNKNOWN_COMMAND,
  kControlUncountableEvent = DCPI_CONTROL_UNCOUNTABLE_EVENT,
  kControlBadArgument = DCPI_CONTROL_BAD_ARGUMENT,
};

using ControlBlock = dcpi_control_block;

}  // namespace dcpi
#endif

#endif
