// The DCPI driver's interface to the kernel, and the only driver header the
// kernel includes (issue 13): per-CPU sampler setup and start/stop, the
// context-switch and IPI hooks, boot-time setup, the daemon, the control
// path, accounting. The driver reaches the kernel only through
// driver/kernel_services.h. Design and synchronization argument:
// driver/README.md.
#pragma once
#include <cstdint>

#include "firmware/control_block.h"
#include "firmware/events.h"
#include "firmware/load_map.h"
#include "firmware/memory_map.h"
#include "firmware/transfer_ring.h"
#include "firmware/value_tuples.h"

// Kernel symbols the host reads (and writes: ring tail, control block).
extern "C" {
extern dcpi::TransferRing dcpi_transfer_ring;
extern dcpi::ControlBlock dcpi_control;
}

namespace dcpi::driver {

// Handler variants (DCPI §4.2: "we switch dynamically among specialized
// versions of the interrupt handler"), selected by a pointer in the per-CPU
// line (driver/percpu.h), never by testing flags on every interrupt.
enum class Variant : uint32_t {
  kCycles = 0,  // one event (cycles): hash table only
  kMux = 1,     // time-multiplexed events: rotates counter 0's event (DCPI §4.1)
  kValue = 2,   // cycles path + the value-sampling interpreter (seed 001, driver/value_sampler.h)
  kTrace = 3,   // cycles path + drawn/observed period trace (guest self-tests only)
  kChain = 4,   // cycles path + a call-chain capture on every interrupt (driver/chain_sampler.h)
  kCount = 5,
};

struct SamplerConfig {
  uint32_t period_base = kDefaultPeriodBase;  // firmware/control_block.h
  uint32_t period_range = kDefaultPeriodRange;
  Variant variant = Variant::kCycles;
  // The cycles variant's samples recorded by PALcode itself (wrperfmon
  // PERFMON_PAL_RECORDS); false: by the handler's assembly fast path
  // (bench_driver measures both).
  bool pal_records = true;
};

// Called once per CPU, on that CPU, before start.
void sampler_init_cpu(uint32_t cpu, uint32_t seed, const SamplerConfig& config);
// Program counter 0 with a fresh random period and enable it (this CPU).
void sampler_start();
void sampler_stop();
// The counter-overflow interrupt (IPL 6) does not come through here: the
// kernel's interrupt entry jumps to the handler entry named in this CPU's
// line (driver/fast_handler.S; the C++ variants via kernel/entry.S
// entry_counter_full and dcpi_counter_interrupt in driver/handler.cpp).

// Counters 1 and 2's overflow on the ev5 machine (issue 26): PALcode's
// classic delivery, INT_PERFCTR with a1 = the overflow bits
// (firmware/ev5_counters.h), from the kernel's interrupt entry at IPL 6.
void event_counter_interrupt(uint64_t overflowed, uint64_t pc);

// Counting mode (issue 26 item 4, `dcpi stat`; the ev5 machine's counters 1
// and 2): each event of `events` (up to kCountEvents, in Event order: slot
// i is the i-th) counted in user mode on its counter (loads and stores on
// counter 1, the misses and mispredicts on counter 2; both count at once),
// time-multiplexed by the scheduler tick when a counter has several;
// Event::kIssues: instructions, on counter 0 (ev5). 0 turns counting off.
// Returns a ControlStatus (kControlUncountableEvent on the `qemu` machine or
// for an event neither counter can count). Boot CPU, before processes run.
int64_t counting_configure(EventSet events);
bool counting_active();

// ProfileMe (issue 27, the ev5 machine; firmware/profileme.h): each CPU
// samples one fetched instruction per `interval_mean` fetched (exponential
// intervals) once sampling starts; 0 turns it off. Returns a ControlStatus
// (kControlUncountableEvent on the `qemu` machine). Boot CPU, before
// sampling starts (driver/profileme_sampler.cpp).
int64_t profileme_configure(uint32_t interval_mean, uint32_t pair_window = 0);
bool counting_instructions();                // counter 0 counts issues (instructions)
uint32_t counting_events(uint16_t* events);  // the slots' events; returns how many
// What this CPU counted since its last take.
struct CountDelta {
  uint64_t count[kCountEvents];
  uint64_t counted_cycles[kCountEvents];  // time each slot's event was selected
  uint64_t cycles;                        // all the time between the takes
  uint64_t instructions;                  // user mode, counter 0's issues (ev5)
};
// Adds this CPU's counts since its last take to *into (nullptr: drops them)
// and restarts them: the kernel calls it at every context switch for the
// thread leaving the CPU (and at a thread's exit), at IPL >= 5.
void counting_take(CountDelta* into);
// Every scheduler tick on every CPU: rotates counter 1's and 2's events
// when a counter has several.
void counting_tick();
// From event_counter_interrupt: true when counting mode took the overflow.
bool counting_overflow(uint64_t overflowed);

// The scheduler tells the driver which process now runs on this CPU (called
// with interrupts at IPL >= 5 on every context switch; pid 0 = kernel/idle).
// DCPI §4.2: the handler reads the PID from its per-CPU line, not from shared
// scheduler state.
void sampler_context_switch(uint32_t pid);

// For the guest self-tests (tests/guest/selftest): with Variant::kTrace, the
// periods drawn and observed (PALcode's count at delivery) on `cpu`, which
// check DCPI §4.1.1's period distribution and the constant delivery latency.
struct PeriodObservation {
  uint32_t drawn;
  uint32_t observed;
};
uint64_t sampler_period_trace(uint32_t cpu, const PeriodObservation** trace);

// DCPI §4.3.1: the daemon drains the driver periodically (every five minutes
// there); here the host pulls often, so the default is one second of guest
// time (250M cycles at the emulated 250 MHz). Configurable.
inline constexpr uint64_t kDefaultFlushIntervalCycles = 250'000'000;
// Shortest period accepted: the handler path is ~100-200 instructions.
inline constexpr uint32_t kMinPeriod = 512;
// Counter 0 is 16 bits (DCPI §4.1.1): at most 64K cycles a period.
inline constexpr uint32_t kMaxPeriod = 1u << 16;

// Once, on the boot CPU, before any CPU samples: the ring header, the
// control block, every CPU's memory; `daemon_cpu` receives the wake-ups.
void driver_init(uint32_t cpu_count, uint32_t daemon_cpu);

// The kernel's interprocessor-interrupt handler calls this (IPL 5) on every
// IPI; it performs any driver request addressed to this CPU.
void sampler_ipi();
// On the daemon CPU's interprocessor interrupt: whether a handler asked for
// the daemon (full overflow buffer, value buffer half full) since the last
// call. Other IPIs (scheduler wake-ups, flush replies) need no daemon.
bool take_daemon_signal();

// One daemon pass: the control block, new load-map records, full overflow
// buffers, and the periodic flush when it is due. Run it from the daemon's
// loop (today the boot CPU's idle loop; later a kernel thread). Never call
// it at IPL >= 5: it waits for IPIs.
void daemon_step();
void set_flush_interval(uint64_t cycles);  // 0 = no periodic flush
// IPI-synchronized flush of every initialised CPU (DCPI §4.2.3) into the
// transfer ring, followed by one kStats record per CPU.
void flush_all();
// Start or stop sampling on every initialised CPU (by IPI).
void start_all();
void stop_all();

// The control path (firmware/control_block.h) for system call 1001.
int64_t control_from_user(uint32_t command, const uint64_t args[3]);

// Statistics of `cpu`: the handler's counters plus the daemon's.
DriverCpuStats read_stats(uint32_t cpu);

// Samples still inside the driver for `cpu` (hash table + overflow
// buffers). Exact only while that CPU does not sample (tests).
struct Census {
  uint64_t table_samples;
  uint64_t table_entries;
  uint64_t buffer_samples;
  uint64_t buffer_entries;
  uint64_t gapped_buckets;  // a free way before a used one: must stay 0 (the probes stop there)
};
Census census(uint32_t cpu);

// Transfer-ring totals as the daemon wrote them (tests).
struct RingTotals {
  uint64_t records_written;
  uint64_t samples_written;
  uint64_t records_dropped;
  uint64_t samples_dropped;
};
RingTotals ring_totals();
// Tests only: discard the ring's contents as if the host had read them.
void ring_consume_all();

// transport=serial: also send every committed record (pads excepted) on COM2
// and consume it from the ring at once (docs/transfer-format.md).
void set_serial_transport(bool on);

// The handler variant `cpu` runs now.
Variant variant_of(uint32_t cpu);

// Value sampling (seed 001): what the interpreter records (§2.4), set before
// kSetValues turns it on; and `cpu`'s value-sampling statistics.
void value_set_capture(const ValueCapture& capture);
const ValueStats& value_stats(uint32_t cpu);

}  // namespace dcpi::driver
