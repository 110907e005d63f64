// The kernel's interface to the profiling driver. The walking skeleton
// (driver/skeleton_sampler.cpp) logs raw (CPU, PC, PS) samples; the DCPI
// driver of §4.2 (hash table, overflow buffers) replaces it behind this API.
#pragma once
#include <cstdint>

namespace kernel {
struct TrapFrame;
}

namespace dcpi::driver {

// DCPI §4.1: the period is uniform in [60K, 64K) cycles, K = 1024, so that
// 64K = 2^16 is the 21164's 16-bit counter and the reset value
// 2^16 - period lies in [0, 4K).
inline constexpr uint32_t kDefaultPeriodBase = 60 * 1024;
inline constexpr uint32_t kDefaultPeriodRange = 4 * 1024;

// Handler variants (DCPI §4.2: "we switch dynamically among specialized
// versions of the interrupt handler"), selected by a pointer in the per-CPU
// line (driver/percpu.h), never by testing flags on every interrupt.
enum class Variant : uint32_t {
  kCycles = 0,  // one event (cycles): hash table only
  kMux = 1,     // time-multiplexed events: rotates counter 0's event (DCPI §4.1)
  kValue = 2,   // cycles path + the value-sampling interpreter (seed 001, driver/value_sampler.h)
  kTrace = 3,   // cycles path + raw (PC, PS) sample log + period trace (skeleton tools, tests)
  kCount = 4,
};

struct SamplerConfig {
  uint32_t period_base = kDefaultPeriodBase;
  uint32_t period_range = kDefaultPeriodRange;
  Variant variant = Variant::kCycles;
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

// The scheduler tells the driver which process now runs on this CPU (called
// with interrupts at IPL >= 5 on every context switch; pid 0 = kernel/idle).
// DCPI §4.2: the handler reads the PID from its per-CPU line, not from shared
// scheduler state.
void sampler_context_switch(uint32_t pid);

// For the guest self-tests: the periods drawn and observed on this CPU.
struct PeriodObservation {
  uint32_t drawn;
  uint32_t observed;
};
uint64_t sampler_period_trace(uint32_t cpu, const PeriodObservation** trace);

}  // namespace dcpi::driver
