// Walking-skeleton sampler: every counter overflow appends (PC, PS) to this
// CPU's SampleLog (driver/sample_log.h), which hostdump reads over the GDB
// stub, and reloads counter 0 with a fresh pseudo-random period.
#include "driver/park_miller.h"
#include "driver/sample_log.h"
#include "driver/sampler.h"
#include "firmware/pal_abi.h"
#include "kernel/palcalls.h"

// The host finds the logs by this symbol in the kernel ELF.
extern "C" {
alignas(64) dcpi::SampleLog dcpi_sample_logs[dcpi::kMaxCpus];
}

namespace dcpi::driver {
namespace {

constexpr uint64_t kTraceCapacity = 8192;

struct alignas(64) CpuSampler {
  uint32_t seed;
  uint32_t period_base;
  uint32_t period_range;
  uint32_t last_period;
  uint64_t traced;
  PeriodObservation trace[kTraceCapacity];
};

CpuSampler samplers[kMaxCpus];

CpuSampler& this_cpu() { return samplers[kernel::pal::whami()]; }

// DCPI §4.1: a new pseudo-random reset value on every interrupt.
uint32_t draw_period(CpuSampler& s) {
  s.seed = park_miller_next(s.seed);
  return s.period_base + scale_to_range(s.seed, s.period_range);
}

void load_counter(uint32_t period) {
  const uint64_t reset_value = (uint64_t{1} << PERFMON_CTR0_WIDTH) - period;
  kernel::pal::wrperfmon(PERFMON_WRITE, reset_value << PERFMON_CTR0_SHIFT);
}

}  // namespace

void sampler_init_cpu(uint32_t cpu, uint32_t seed, const SamplerConfig& config) {
  CpuSampler& s = samplers[cpu];
  s.seed = sanitize_seed(seed);
  s.period_base = config.period_base;
  s.period_range = config.period_range;
  s.traced = 0;
  SampleLog& log = dcpi_sample_logs[cpu];
  log.cpu = cpu;
  log.written = 0;
  log.dropped = 0;
  log.capacity = kSampleLogCapacity;
  log.magic = kSampleLogMagic;
}

void sampler_start() {
  CpuSampler& s = this_cpu();
  s.last_period = draw_period(s);
  kernel::pal::wrperfmon(PERFMON_DISABLE, 1);
  load_counter(s.last_period);
  kernel::pal::wrperfmon(PERFMON_ENABLE, 1);
}

void sampler_context_switch(uint32_t) {}

void sampler_stop() { kernel::pal::wrperfmon(PERFMON_DISABLE, 1); }

void sampler_overflow(uint64_t pc, uint64_t ps, uint64_t observed_cycles) {
  const uint32_t cpu = static_cast<uint32_t>(kernel::pal::whami());
  CpuSampler& s = samplers[cpu];
  SampleLog& log = dcpi_sample_logs[cpu];
  if (log.written < kSampleLogCapacity) {
    log.records[log.written] = SampleRecord{pc, ps};
    ++log.written;
  } else {
    ++log.dropped;
  }
  if (s.traced < kTraceCapacity) {
    s.trace[s.traced++] = PeriodObservation{s.last_period, static_cast<uint32_t>(observed_cycles)};
  }
  s.last_period = draw_period(s);
  load_counter(s.last_period);
}

uint64_t sampler_period_trace(uint32_t cpu, const PeriodObservation** trace) {
  *trace = samplers[cpu].trace;
  return samplers[cpu].traced;
}

}  // namespace dcpi::driver
