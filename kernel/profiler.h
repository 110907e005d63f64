// The profiler in the running system: boot-time configuration of the DCPI
// driver from the command line, the daemon as a kernel thread (DCPI §4.3:
// the daemon drains the driver; here it drains into the transfer ring the
// host reads), and the final flush when init exits.
#pragma once
#include <cstdint>

#include "firmware/value_tuples.h"

namespace kernel::profiler {

// The CPU the driver's handlers IPI when an overflow buffer fills; its IPI
// handler wakes the daemon thread (which may then run on any CPU).
inline constexpr uint32_t kDaemonCpu = 0;

struct Options {
  bool enabled = true;          // profile=0 turns sampling off (unprofiled baselines)
  uint32_t period_base = 0;     // period=N: 0 keeps the driver's default (60K)
  uint32_t period_range = 0;    // period_range=N
  uint32_t seed = 0;            // seed=N: the random periods' seed (0 = the driver's built-in)
  uint32_t events = 0;          // events=N: the event set (firmware/events.h); 0 = cycles
  bool events_mux = false;      // emux=1: time-multiplex them (DCPI §4.1 "mux")
  uint32_t event_kill = 0;      // ekill=N: counters 1 and 2's kill bits (imiss:u), 0 = all modes
  uint32_t count_events = 0;    // count=N: counting mode's events (dcpi stat; 0 = off)
  uint32_t profileme = 0;       // profileme=N: ProfileMe every ~N fetched instructions, 1 = default
  uint32_t profileme_pair = 0;  // profileme_pair=W: paired sampling, window W (issue 27 item 2)
  bool serial = false;          // transport=serial: records also go out on COM2
  uint32_t value_length = 0;    // values=N/k: interpret N instructions (seed 001 §2.1.2); 0 = off
  uint32_t value_every = 2;     // ... on every k-th interrupt
  uint32_t chain_stack_bytes =
      0;  // chains=BYTES: call chains, BYTES of stack per sample (issue 28)
  dcpi::ValueCapture value_capture = dcpi::default_value_capture();  // vcapture=SPEC
  bool value_capture_bad = false;                                    // vcapture= did not parse
};

// After the scheduler and secondary CPUs are up, before init exists: the
// period, events, counting mode, values and chains. Counting must be on
// before init is ready, or another CPU runs its first instructions
// uncounted (each CPU programs its counter at its first switch after this).
void configure(const Options& options);
// After init is spawned (it keeps pid 1): start the daemon thread and
// sampling on every CPU.
void start(const Options& options);
// Wakes the daemon (interrupt context is fine: IPL 5 handlers call it).
void wake();
// Every interprocessor interrupt: on kDaemonCpu it may be a full-buffer wake-up.
void ipi();
// Called on every scheduler tick on each CPU: wakes the daemon periodically.
void tick();
// Init exited: stop sampling, flush everything into the ring and print the
// per-CPU totals the host checks its database against.
void finish();

}  // namespace kernel::profiler
