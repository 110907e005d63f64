// CRC-32C (Castagnoli): the seal of the database's files (profiledb/
// container.h, epoch.meta), the plugins' raw files and recording
// identities. Polynomial 0x82F63B78 (reflected); crc32c("123456789") =
// 0xE3069283. Slicing-by-8 (eight 256-entry tables, 8 KB), 8 bytes a step.
// Host side only since transfer format 2: the guest's records carry the
// cheaper firmware/record_checksum.h.
#pragma once
#include <cstddef>
#include <cstdint>

namespace dcpi {

namespace crc32c_detail {
inline constexpr uint32_t kPolynomial = 0x82F63B78u;
struct Tables {
  uint32_t entry[8][256];
};
constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (kPolynomial & (0u - (crc & 1u)));
    t.entry[0][byte] = crc;
  }
  // entry[k][b]: the CRC of byte b followed by k zero bytes.
  for (int k = 1; k < 8; ++k)
    for (uint32_t byte = 0; byte < 256; ++byte) {
      const uint32_t previous = t.entry[k - 1][byte];
      t.entry[k][byte] = (previous >> 8) ^ t.entry[0][previous & 0xffu];
    }
  return t;
}
inline constexpr Tables kTables = make_tables();
}  // namespace crc32c_detail

// Continues a running CRC; start with crc = 0.
inline uint32_t crc32c_update(uint32_t crc, const void* data, size_t bytes) {
  const auto& t = crc32c_detail::kTables.entry;
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  // Byte by byte up to 8-byte alignment (an unaligned ldq would trap on Alpha).
  while (bytes > 0 && (reinterpret_cast<uintptr_t>(p) & 7u) != 0) {
    crc = t[0][(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    --bytes;
  }
  for (; bytes >= 8; bytes -= 8, p += 8) {
    uint64_t word;
    // p is 8-aligned here; saying so makes this one ldq instead of the
    // ldq_u/extql/extqh sequence of an unaligned copy (memcpy keeps aliasing rules).
    __builtin_memcpy(&word, __builtin_assume_aligned(p, 8), sizeof word);
    word ^= crc;  // little-endian: the first byte is the low one
    crc = t[7][word & 0xff] ^ t[6][(word >> 8) & 0xff] ^ t[5][(word >> 16) & 0xff] ^
          t[4][(word >> 24) & 0xff] ^ t[3][(word >> 32) & 0xff] ^ t[2][(word >> 40) & 0xff] ^
          t[1][(word >> 48) & 0xff] ^ t[0][word >> 56];
  }
  while (bytes-- > 0) crc = t[0][(crc ^ *p++) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

inline uint32_t crc32c(const void* data, size_t bytes) { return crc32c_update(0, data, bytes); }

}  // namespace dcpi
