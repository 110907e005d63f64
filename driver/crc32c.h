// CRC-32C (Castagnoli), table driven: the checksum of every transfer record
// (driver/transfer_ring.h). Written once for the guest daemon and the host
// reader. Polynomial 0x82F63B78 (reflected); crc32c("123456789") = 0xE3069283.
#pragma once
#include <cstddef>
#include <cstdint>

namespace dcpi {

namespace crc32c_detail {
struct Table {
  uint32_t entry[256];
};
constexpr Table make_table() {
  Table table{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    table.entry[byte] = crc;
  }
  return table;
}
inline constexpr Table kTable = make_table();
}  // namespace crc32c_detail

// Continues a running CRC; start with crc = 0.
inline uint32_t crc32c_update(uint32_t crc, const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < bytes; ++i)
    crc = crc32c_detail::kTable.entry[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

inline uint32_t crc32c(const void* data, size_t bytes) { return crc32c_update(0, data, bytes); }

}  // namespace dcpi
