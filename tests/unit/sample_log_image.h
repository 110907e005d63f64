// Builds guest memory images of dcpi_sample_logs for tests.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "driver/sample_log.h"

namespace dcpi::testing {

// `slots` SampleLog structures, all zero (magic unset) until filled.
inline std::vector<uint8_t> empty_sample_logs(uint32_t slots) {
  return std::vector<uint8_t>(slots * sizeof(SampleLog));
}

inline void store_le64(std::vector<uint8_t>& bytes, size_t offset, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[offset + static_cast<size_t>(i)] = static_cast<uint8_t>(value >> (8 * i));
}

// Fills slot `slot` as the guest would after recording `pcs` on CPU `cpu`.
inline void fill_sample_log(std::vector<uint8_t>& image, uint32_t slot, uint64_t cpu,
                            const std::vector<uint64_t>& pcs, uint64_t dropped) {
  const size_t base = slot * sizeof(SampleLog);
  store_le64(image, base + offsetof(SampleLog, magic), kSampleLogMagic);
  store_le64(image, base + offsetof(SampleLog, cpu), cpu);
  store_le64(image, base + offsetof(SampleLog, written), pcs.size());
  store_le64(image, base + offsetof(SampleLog, dropped), dropped);
  store_le64(image, base + offsetof(SampleLog, capacity), kSampleLogCapacity);
  for (size_t i = 0; i < pcs.size(); ++i) {
    const size_t record = base + offsetof(SampleLog, records) + i * sizeof(SampleRecord);
    store_le64(image, record + offsetof(SampleRecord, pc), pcs[i]);
    store_le64(image, record + offsetof(SampleRecord, ps), 0x0);  // kernel mode, IPL 0
  }
}

}  // namespace dcpi::testing
