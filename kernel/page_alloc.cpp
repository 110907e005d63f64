#include "kernel/page_alloc.h"

#include "kernel/console.h"
#include "kernel/irq_lock.h"

namespace kernel::pages {
namespace {

constexpr uint64_t kMaxPages = (uint64_t{4} << 30) >> kPageShift;  // 4 GB of RAM
uint64_t bitmap[kMaxPages / 64];                                   // 1 = in use
uint8_t extra_references[kMaxPages];  // holders beyond the first (add_reference)
uint64_t first_page = 0;
uint64_t end_page = 0;
uint64_t next_hint = 0;
uint64_t free_pages = 0;
uint64_t managed_pages = 0;
SpinLock lock;

bool used(uint64_t page) { return (bitmap[page >> 6] >> (page & 63)) & 1; }
void set_used(uint64_t page, bool value) {
  const uint64_t bit = uint64_t{1} << (page & 63);
  if (value)
    bitmap[page >> 6] |= bit;
  else
    bitmap[page >> 6] &= ~bit;
}

void zero(uint64_t kseg, uint64_t bytes) {
  auto* q = reinterpret_cast<volatile uint64_t*>(kseg);
  for (uint64_t i = 0; i < (bytes >> 3); i += 4) {
    q[i] = 0;
    q[i + 1] = 0;
    q[i + 2] = 0;
    q[i + 3] = 0;
  }
}

// First run of `count` free pages at or after `from`; end_page if none.
uint64_t find_run(uint64_t from, uint64_t count) {
  uint64_t run = 0;
  for (uint64_t page = from; page < end_page; ++page) {
    run = used(page) ? 0 : run + 1;
    if (run == count) return page + 1 - count;
  }
  return end_page;
}

}  // namespace

void init(uint64_t first_free_phys, uint64_t end_phys) {
  first_page = (first_free_phys + kPageBytes - 1) >> kPageShift;
  end_page = end_phys >> kPageShift;
  if (end_page > kMaxPages) end_page = kMaxPages;
  for (uint64_t& word : bitmap) word = ~uint64_t{0};
  for (uint64_t page = first_page; page < end_page; ++page) set_used(page, false);
  free_pages = managed_pages = end_page - first_page;
  next_hint = first_page;
}

uint64_t allocate(uint64_t count) {
  uint64_t page;
  {
    IrqLockGuard guard(lock);
    page = find_run(next_hint, count);
    if (page == end_page) page = find_run(first_page, count);
    if (page == end_page) return 0;
    for (uint64_t i = 0; i < count; ++i) set_used(page + i, true);
    free_pages -= count;
    next_hint = page + count;
  }
  const uint64_t kseg = phys_to_kseg(page << kPageShift);
  zero(kseg, count << kPageShift);
  return kseg;
}

void release(uint64_t kseg_address, uint64_t count) {
  const uint64_t page = kseg_to_phys(kseg_address) >> kPageShift;
  IrqLockGuard guard(lock);
  for (uint64_t i = 0; i < count; ++i) {
    if (page + i < first_page || page + i >= end_page || !used(page + i))
      panic("freeing page %lx that is not allocated", (page + i) << kPageShift);
    if (extra_references[page + i] != 0) {  // another holder keeps this page
      --extra_references[page + i];
      continue;
    }
    set_used(page + i, false);
    ++free_pages;
  }
}

bool add_reference(uint64_t kseg_address) {
  const uint64_t page = kseg_to_phys(kseg_address) >> kPageShift;
  IrqLockGuard guard(lock);
  if (page < first_page || page >= end_page || !used(page))
    panic("sharing page %lx that is not allocated", page << kPageShift);
  if (extra_references[page] == kMaxReferences - 1) return false;
  ++extra_references[page];
  return true;
}

uint64_t free_count() { return __atomic_load_n(&free_pages, __ATOMIC_RELAXED); }
uint64_t total_count() { return managed_pages; }

}  // namespace kernel::pages
