// Shared between the driver's translation units (handler, sync, daemon).
// Not part of the kernel's interface.
#pragma once
#include <cstdint>

#include "driver/driver.h"
#include "driver/percpu.h"
#include "firmware/ev5_counters.h"

namespace dcpi::driver {

// Written only by the owning CPU (its handler or its IPI handler); read by
// the daemon after an IPI round trip (the IPI handler's mb orders them).
struct alignas(64) CpuMailbox {
  uint32_t filled[2];     // entries in overflow buffer b when handed off
  uint32_t full_mask;     // bit b: buffer b belongs to the daemon
  uint32_t swapped;       // last kOpSwap handed off a buffer (1) or not (0)
  uint64_t ack_sequence;  // last request sequence performed
  uint64_t reserved[5];
};
static_assert(sizeof(CpuMailbox) == 64);

// Written only by the requester (the daemon, under the daemon lock).
enum RequestOp : uint32_t {
  kOpRelease = 1u << 0,     // buffers in release_mask are drained: reuse them
  kOpFlushEnd = 1u << 1,    // table copied: clear the flushing flag
  kOpSwap = 1u << 2,        // hand the partial active buffer to the daemon
  kOpFlushBegin = 1u << 3,  // set the flushing flag (the table is the daemon's)
  kOpConfigure = 1u << 4,   // copy the global configuration into the hot line
  kOpStart = 1u << 5,       // counter on
  kOpStop = 1u << 6,        // counter off
  kOpReseed = 1u << 7,      // restart this CPU's random draws from g_config.seed
};
struct alignas(64) CpuRequest {
  uint64_t sequence;
  uint32_t ops;
  uint32_t release_mask;
  uint64_t reply_to;  // CPU to wake with an IPI once the request is done
  uint64_t reserved[5];
};
static_assert(sizeof(CpuRequest) == 64);

// The 21164's counters 1 and 2 as the driver samples them (issue 26,
// driver/event_counters.cpp): its events (dcpi::Event), how many (0: off),
// the one it counts now (rotated by the mux variant), DCPI §4.1.1's
// randomized periods from its own seed, and each event's counter value
// while another has the counter (mux), so no event's count finishes
// another's.
inline constexpr uint32_t kEventCounters = 2;  // index 0: counter 1, 1: counter 2
// Each one's width, its field in wrperfmon 5's read and 9's write, and its
// CTL field (firmware/ev5_counters.h), by that index: sampling
// (event_counters.cpp) and counting (event_counting.cpp) program the same
// two counters.
inline constexpr uint32_t kEventCounterWidth[kEventCounters] = {EV5_CTR1_WIDTH, EV5_CTR2_WIDTH};
inline constexpr uint32_t kEventCounterShift[kEventCounters] = {EV5_CTR1_SHIFT, EV5_CTR2_SHIFT};
inline constexpr uint64_t kEventCounterControlShift[kEventCounters] = {EV5_CTL1_SHIFT,
                                                                       EV5_CTL2_SHIFT};
// Counter `k`'s value in a wrperfmon 5 read.
inline uint16_t event_counter_value(uint64_t read, uint32_t k) {
  return static_cast<uint16_t>((read >> kEventCounterShift[k]) &
                               ((uint64_t{1} << kEventCounterWidth[k]) - 1));
}
struct EventCounterState {
  uint8_t events[kMaxMuxEvents];
  uint8_t count;
  uint8_t index;
  uint8_t programmed;  // set up on this CPU
  uint8_t pad;
  uint32_t seed;
  uint32_t since;  // RPCC's low word at the last rotation
  uint16_t value[kMaxMuxEvents];
};
static_assert(sizeof(EventCounterState) == 24);

// Touched only by the non-default variants (trace, value) and init.
inline constexpr uint64_t kTraceCapacity = 8192;
struct alignas(64) CpuAux {
  uint32_t last_period;  // period drawn for the count now running (trace)
  uint32_t initialised;
  uint64_t traced;
  // Counters 1 and 2 on the ev5 machine (issue 26), [0] counter 1 (loads,
  // stores), [1] counter 2 (misses, mispredicts).
  EventCounterState counter[kEventCounters];
  // Each event's time on its counter while the counter rotates (issue 26:
  // the share of time reports scale its samples by): the cycles booked per
  // dcpi::Event (kStats).
  uint64_t counted_cycles[DCPI_EVENT_COUNT];
  PeriodObservation trace[kTraceCapacity];
};

// The global configuration; CpuHot holds read-only copies (DCPI §4.2.2).
struct GlobalConfig {
  uint32_t period_base;
  uint32_t period_range;
  EventSet events;
  uint32_t mux;          // 1: time-multiplex the events on counter 0
  Variant base_variant;  // cycles, trace or value when not multiplexing
  uint32_t pal_records;  // SamplerConfig::pal_records
  uint32_t mux_count;
  uint8_t mux_events[kMaxMuxEvents];
  // Counters 1 and 2's events (the ev5 machine's model counts them; issue
  // 26), as EventCounterState's index.
  uint32_t counter_count[kEventCounters];
  uint8_t counter_events[kEventCounters][kMaxMuxEvents];
  // Their kill bits (wrperfmon 3; one set for all counters on the 21164):
  // 0 = every mode, EV5_KILL_KERNEL | EV5_KILL_PAL = `imiss:u`.
  uint32_t event_kill;
  // The run's seed (kSetSeed; 0: the built-in one): each CPU's period,
  // event-period and ProfileMe-interval generators start from it.
  uint32_t seed;
};

extern GlobalConfig g_config;
extern CpuMailbox g_mailbox[kMaxCpus];
extern CpuRequest g_request[kMaxCpus];
extern CpuAux g_aux[kMaxCpus];
extern uint32_t g_daemon_cpu;
extern uint32_t g_daemon_signal;

// From a handler (IPL 6): asks the daemon CPU to wake the daemon thread,
// by IPI (to this CPU too if `ipi_self`: taken once the IPL drops).
void signal_daemon(uint32_t from_cpu, bool ipi_self);

inline SampleEntry* buffer_base(const CpuHot& hot, uint32_t buffer) {
  return hot.table + kTableEntries + buffer * kBufferEntries;
}

// Hands the active overflow buffer (with `entries` filled) to the daemon and
// makes the other one active. Caller: this CPU at IPL 6 (handler or IPI op),
// and only when !hot.other_pending.
void hand_off_active(CpuHot& hot, uint32_t entries);
// Counter 0's period generator on CPU c starts at kPeriodSeed + 977 c.
inline constexpr uint32_t kPeriodSeed = 0x5eed;
// Copies g_config into this CPU's hot line and selects the variant.
void apply_config(CpuHot& hot);
// A generator's first seed: its built-in one plus what the run's seed
// (g_config.seed) adds (nothing for seed 0), made valid for Park–Miller.
// Every generator starts from it, at boot, lazily and at kOpReseed.
uint32_t start_seed(uint32_t builtin);
// kOpReseed: this CPU's counter-0 periods, counters 1 and 2's periods and
// ProfileMe's intervals start again from their start_seed()s (DCPI §4.1.1's randomized periods;
// another seed, other draws).
void reseed(CpuHot& hot);
void event_counters_reseed(CpuHot& hot);
void profileme_reseed(CpuHot& hot);
// Cycles variant: the full-frame entry while flushing, else the fast path.
void select_entry(CpuHot& hot);
// Counter 0 on/off for this CPU.
void counter_start(CpuHot& hot);
// Sends `ops` to `cpu` by IPI (or performs them at IPL 6 when cpu is this
// CPU) and waits for the acknowledgement. Daemon side, IPL < 5.
bool request(uint32_t cpu, uint32_t ops, uint32_t release_mask);
// The mux select code for wrperfmon function 2 (palcode/README.md).
uint64_t mux_code(uint16_t event);
// The counter (EventCounterState index: 0 counter 1, 1 counter 2) that
// counts a dcpi event, -1 for one neither counts.
int event_counter_of(uint16_t event);
// The mux word's SEL1 or SEL2 field for a dcpi event, in place (shifted);
// 0 for one neither counter counts (event_counters.cpp; counting mode uses
// it too).
uint64_t mux_field_of(uint16_t event);
// Counters 1 and 2 on this CPU (the ev5 machine): programs g_config's first
// event of each, or turns them off (driver/event_counters.cpp).
void event_counters_apply(CpuHot& hot);
// The mux variant's rotation of each counter's events, on a counter-0
// interrupt.
void event_counters_rotate(CpuHot& hot);
// A fresh randomized period for counter `counter` (EventCounterState
// index) after its sample.
void event_counters_reload(CpuHot& hot, uint32_t counter);
// Adds `count` to the table's (pid, pc, event) entry, outside the
// interrupt statistics (ProfileMe's records, driver/profileme_sampler.cpp).
void record_sum(CpuHot& hot, uint64_t pc, uint16_t pid, uint16_t event, uint32_t count);
void append_profileme(CpuHot& hot, const SampleEntry& entry);
// ProfileMe (issue 27): arm this CPU's Fetched Instruction Counter when
// configured (at counter_start), and take a completed record.
void profileme_start(CpuHot& hot);
void profileme_interrupt(CpuHot& hot);
// The counter off on this CPU (kOpStop, at IPL 6), before the daemon's
// final flush: no record after it (the model drops one in flight), none
// re-armed by the record that may still be pending, so the flush gets
// every record the CPU took (docs/profileme.md "Every record taken").
void profileme_stop(CpuHot& hot);
// Every CPU's records through C++ until profileme_start (ProfileMe
// reconfigured, counting mode begun): the assembly record knows neither.
void profileme_slow_path();
// The mean interval configured (0: off), for the kStats records.
uint32_t profileme_interval();
uint32_t profileme_pair_window();  // W, 0: single records
// Each event's cycles on counters 1 and 2 while they rotated, on `cpu`,
// into a kStats payload.
void add_event_counted_cycles(uint32_t cpu, StatsPayload& into);
// Whether the machine has counters 1 and 2 (PALcode accepts wrperfmon 9).
bool machine_has_event_counters();

}  // namespace dcpi::driver
