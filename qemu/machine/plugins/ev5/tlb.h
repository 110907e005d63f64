// A fully associative translation buffer (the 21164's 48-entry ITB and
// 64-entry DTB, 8 KB pages) with round-robin replacement, an approximation
// of the hardware's not-last-used policy. The caller tags each address with
// its address space (VcpuModel::tagged), as the hardware's entries carry
// the ASN.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dcpi::ev5 {

class Tlb {
 public:
  Tlb(uint32_t entries, uint32_t page_bytes);
  // True on a hit; a miss installs the page (the PALcode refill). The
  // last two pages' hits inline (issue 31: a DTB lookup at every access,
  // and a copy loop alternates between its two streams' pages).
  bool access(uint64_t address) {
    const uint64_t page = address >> page_shift_;
    if (page == recent_[0]) return true;
    if (page == recent_[1]) {
      recent_[1] = recent_[0];
      recent_[0] = page;
      return true;
    }
    return access_other(page);
  }

 private:
  // Neither of the last two pages.
  bool access_other(uint64_t page);
  uint32_t page_shift_;
  uint32_t next_victim_ = 0;
  uint64_t recent_[2] = {~0ull, ~0ull};  // the common case: one of the last two pages
  std::vector<uint64_t> pages_;          // ~0: empty
};

// Addresses the 21164 translates without its TBs: KSEG (the superpage,
// VA<42:41> = 2 sign-extended: 0xfffffc0000000000-0xfffffdffffffffff).
constexpr bool bypasses_tlb(uint64_t address) { return (address >> 41) == 0x7ffffe; }

}  // namespace dcpi::ev5
