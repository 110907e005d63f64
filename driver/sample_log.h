// The walking skeleton's per-CPU sample buffer: (CPU, PC, PS) per counter
// interrupt. The real DCPI driver (hash table + overflow buffers, DCPI §4.2)
// replaces it behind the same kernel interface (driver/sampler.h).
// Layout shared by the guest (writer) and hostdump (reader over the GDB stub).
#pragma once
#include <cstdint>

namespace dcpi {

inline constexpr uint64_t kSampleLogMagic = 0x474f4c5349504344ull;  // "DCPISLOG"
inline constexpr uint32_t kMaxCpus = 4;
inline constexpr uint32_t kSampleLogCapacity = 16384;

struct SampleRecord {
  uint64_t pc;  // interrupted PC (bit 0 clear)
  uint64_t ps;  // interrupted processor status (mode, IPL)
};
static_assert(sizeof(SampleRecord) == 16);

// One per CPU, in the kernel symbol `dcpi_sample_logs` (an array of kMaxCpus).
struct alignas(64) SampleLog {
  uint64_t magic;     // kSampleLogMagic once initialised
  uint64_t cpu;       // CPU number of the writer
  uint64_t written;   // samples stored in records[0 .. written)
  uint64_t dropped;   // samples lost because the buffer was full
  uint64_t capacity;  // kSampleLogCapacity
  uint64_t reserved[3];
  SampleRecord records[kSampleLogCapacity];
};
static_assert(sizeof(SampleLog) % 64 == 0);
static_assert(__builtin_offsetof(SampleLog, records) == 64);

}  // namespace dcpi
