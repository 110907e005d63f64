#include "tests/guest/selftest/bench_mix.h"

#include "kernel/smp.h"

extern "C" void spread_loop(uint64_t iterations);

namespace kernel::bench_mix {
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

}  // namespace

uint64_t iteration(uint32_t cpu, uint64_t sink) {
  uint64_t* a = buffers[cpu][0];
  uint64_t* b = buffers[cpu][1];
  for (int r = 0; r < 8; ++r) copy_words(a, b, kBufferWords);
  for (int r = 0; r < 4; ++r) sink += checksum_words(a, kBufferWords);
  sink = multiply_chain(sink, 10000);
  spread_loop(10000);
  b[sink % kBufferWords] = sink;
  return sink;
}

}  // namespace kernel::bench_mix
