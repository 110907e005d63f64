// Physical page allocator: 8 KB pages handed out as KSEG addresses, one bit
// per page, contiguous runs on request (kernel stacks), zeroed on allocation.
#pragma once
#include <cstdint>

#include "firmware/memory_map.h"

namespace kernel::pages {

inline constexpr uint64_t kPageBytes = dcpi::kPageBytes;
inline constexpr uint64_t kPageShift = dcpi::kPageShift;

// Pages in [first_free_phys, end_phys) become allocatable.
void init(uint64_t first_free_phys, uint64_t end_phys);
// `count` contiguous zeroed pages; returns their KSEG address or 0.
uint64_t allocate(uint64_t count = 1);
// Frees the pages; a page with more than one reference (add_reference)
// loses one instead and stays (a RAM file's page a mapping still holds).
void release(uint64_t kseg_address, uint64_t count = 1);
// One more holder of the allocated page at `kseg` (a MAP_SHARED page a fork
// maps into the child too, a RAM file's page a shared mapping maps): release
// frees it when the last one lets go, also a page inside a longer run.
// False when the page already has kMaxReferences.
inline constexpr uint32_t kMaxReferences = 256;
bool add_reference(uint64_t kseg_address);
uint64_t free_count();
uint64_t total_count();

inline uint64_t kseg_to_phys(uint64_t kseg) { return dcpi::kseg_to_physical(kseg); }
inline uint64_t phys_to_kseg(uint64_t phys) { return dcpi::physical_to_kseg(phys); }

}  // namespace kernel::pages
