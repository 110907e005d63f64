#include "kernel/kernel_workload.h"

#include "driver/sample_log.h"
#include "driver/sampler.h"
#include "kernel/console.h"
#include "kernel/palcalls.h"
#include "kernel/smp.h"

extern "C" {
extern dcpi::SampleLog dcpi_sample_logs[];
void spread_loop(uint64_t iterations);
}

namespace kernel::workload {
namespace {

constexpr uint64_t kBufferWords = 4096;
uint64_t buffers[smp::kMaxCpus][2][kBufferWords];

// McCalpin-style copy (DCPI Figure 2's kernel), noinline so it has a name.
__attribute__((noinline)) void copy_words(uint64_t* to, const uint64_t* from, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) to[i] = from[i];
}

__attribute__((noinline)) uint64_t checksum_words(const uint64_t* words, uint64_t n) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < n; ++i) sum = (sum << 7 | sum >> 57) ^ words[i];
  return sum;
}

__attribute__((noinline)) uint64_t multiply_chain(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

uint64_t finished[smp::kMaxCpus];
uint64_t samples_wanted;

// Weights: copy 2, checksum 1, multiply 1, spread_loop 1 (by instructions).
void run_mix() {
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  dcpi::driver::SamplerConfig config;
  config.variant = dcpi::driver::Variant::kTrace;  // also the raw log `dcpi samples` reads
  dcpi::driver::sampler_init_cpu(cpu, 4242 + cpu, config);
  dcpi::driver::sampler_start();
  uint64_t sink = cpu;
  while (__atomic_load_n(&dcpi_sample_logs[cpu].written, __ATOMIC_RELAXED) < samples_wanted)
    sink = mix_iteration(cpu, sink);
  dcpi::driver::sampler_stop();
  __atomic_store_n(&finished[cpu], 1, __ATOMIC_RELEASE);
}

}  // namespace

uint64_t mix_iteration(uint32_t cpu, uint64_t sink) {
  uint64_t* a = buffers[cpu][0];
  uint64_t* b = buffers[cpu][1];
  for (int r = 0; r < 8; ++r) copy_words(a, b, kBufferWords);
  for (int r = 0; r < 4; ++r) sink += checksum_words(a, kBufferWords);
  sink = multiply_chain(sink, 10000);
  spread_loop(10000);
  b[sink % kBufferWords] = sink;
  return sink;
}

void profile_all_cpus(uint64_t samples) {
  samples_wanted = samples;
  smp::run_on_secondaries(run_mix);
  run_mix();
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    if (!smp::cpus[cpu].online) continue;
    while (!__atomic_load_n(&finished[cpu], __ATOMIC_ACQUIRE)) {
    }
    const dcpi::SampleLog& log = dcpi_sample_logs[cpu];
    kprintf("dcpi-kernel: cpu %u took %lu samples (%lu dropped)\n", cpu, log.written, log.dropped);
  }
}

}  // namespace kernel::workload
