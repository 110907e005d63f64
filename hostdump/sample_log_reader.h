// Reads the walking skeleton's per-CPU sample logs (driver/sample_log.h) out
// of guest physical memory through the GDB stub.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "driver/sample_log.h"

namespace dcpi {

class GdbClient;

// KSEG: the kernel's direct map, virtual 0xfffffc0000000000 + physical.
inline constexpr uint64_t kKsegBase = 0xfffffc0000000000ull;
inline constexpr uint64_t kKsegSize = 1ull << 41;

bool is_kseg_address(uint64_t address);
// Throws std::invalid_argument for addresses outside KSEG.
uint64_t kseg_to_physical(uint64_t address);

struct SampleLogHeader {
  uint64_t magic = 0;
  uint64_t cpu = 0;
  uint64_t written = 0;
  uint64_t dropped = 0;
  uint64_t capacity = 0;

  bool initialised() const { return magic == kSampleLogMagic; }
  // Records that are really there: a corrupt `written` is not trusted blindly.
  uint64_t readable_records() const;
};

struct CpuSamples {
  uint32_t slot = 0;  // index into dcpi_sample_logs
  SampleLogHeader header;
  std::vector<SampleRecord> records;
};

struct SampleLogSnapshot {
  std::vector<CpuSamples> cpus;  // slots whose magic is set
  std::vector<uint32_t> uninitialised_slots;
};

// Decoders for the guest's little-endian layout (pure; used by tests).
SampleLogHeader decode_sample_log_header(std::span<const uint8_t> bytes);
std::vector<SampleRecord> decode_sample_records(std::span<const uint8_t> bytes);

// Reads `slots` consecutive SampleLog structures starting at `physical_base`.
// The client must be in physical memory mode and the VM stopped.
SampleLogSnapshot read_sample_logs(GdbClient& client, uint64_t physical_base, uint32_t slots);

}  // namespace dcpi
