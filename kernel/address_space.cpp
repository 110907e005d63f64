#include "kernel/address_space.h"

#include "driver/kernel_services.h"
#include "kernel/page_alloc.h"

static_assert(kernel::kUserPageBytes == kernel::pages::kPageBytes);

namespace kernel {
namespace {

constexpr uint64_t kEntries = 1024;
constexpr uint64_t kTableBits = kPteValid | kPteKre;  // L1/L2: valid, kernel-readable

uint64_t* table_at(uint64_t phys) { return reinterpret_cast<uint64_t*>(pages::phys_to_kseg(phys)); }
uint64_t pte_phys(uint64_t pte) { return (pte >> 32) << pages::kPageShift; }
uint64_t make_pte(uint64_t kseg, uint64_t bits) {
  return ((pages::kseg_to_phys(kseg) >> pages::kPageShift) << 32) | bits;
}
uint64_t index(uint64_t va, unsigned level) {  // level 1, 2, 3
  return (va >> (pages::kPageShift + 10 * (3 - level))) & (kEntries - 1);
}

// The L3 PTE slot for `va`, allocating L2/L3 tables when `create`.
uint64_t* l3_slot(const AddressSpace& space, uint64_t va, bool create) {
  uint64_t* table = table_at(space.l1_phys);
  for (unsigned level = 1; level < 3; ++level) {
    uint64_t& pte = table[index(va, level)];
    if (!(pte & kPteValid)) {
      if (!create) return nullptr;
      const uint64_t page = pages::allocate();
      if (page == 0) return nullptr;
      pte = make_pte(page, kTableBits);
    }
    table = table_at(pte_phys(pte));
  }
  return &table[index(va, 3)];
}

// The read-only walk (no allocation): what translate_user needs on every
// access the value sampler's interpreter makes at IPL 6 (seed 001 §2.1.2),
// so kept to three loads and no calls.
inline const uint64_t* find_l3_slot(const AddressSpace& space, uint64_t va) {
  const uint64_t* table = table_at(space.l1_phys);
  const uint64_t l1 = table[index(va, 1)];
  if (!(l1 & kPteValid)) return nullptr;
  table = table_at(pte_phys(l1));
  const uint64_t l2 = table[index(va, 2)];
  if (!(l2 & kPteValid)) return nullptr;
  return &table_at(pte_phys(l2))[index(va, 3)];
}

bool user_address(uint64_t va) { return va >= kUserBottom && va < kUserTop; }

bool is_demand_zero(uint64_t pte) { return !(pte & kPteValid) && (pte & kPteDemandZero); }

// A demand-zero slot changes without the mm's lock (its first touch may be
// another thread's fault or system call): every change from one is a CAS.
bool replace_pte(uint64_t* slot, uint64_t expected, uint64_t desired) {
  return __atomic_compare_exchange_n(slot, &expected, desired, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

uint64_t load_pte(const uint64_t* slot) { return __atomic_load_n(slot, __ATOMIC_ACQUIRE); }

}  // namespace

bool address_space_create(AddressSpace& space) {
  const uint64_t l1 = pages::allocate();
  if (l1 == 0) return false;
  space.l1_phys = pages::kseg_to_phys(l1);
  space.pages = 0;
  return true;
}

uint64_t page_tables_freed = 0;

void address_space_destroy(AddressSpace& space) {
  if (space.l1_phys == 0) return;
  // Before any table is released: a kept PTE slot is stale from now on.
  __atomic_add_fetch(&page_tables_freed, 1, __ATOMIC_ACQ_REL);
  uint64_t* l1 = table_at(space.l1_phys);
  for (uint64_t i = 0; i < kEntries; ++i) {
    if (!(l1[i] & kPteValid)) continue;
    uint64_t* l2 = table_at(pte_phys(l1[i]));
    for (uint64_t j = 0; j < kEntries; ++j) {
      if (!(l2[j] & kPteValid)) continue;
      uint64_t* l3 = table_at(pte_phys(l2[j]));
      for (uint64_t k = 0; k < kEntries; ++k)
        if (l3[k] & kPteValid) pages::release(pages::phys_to_kseg(pte_phys(l3[k])));
      pages::release(reinterpret_cast<uint64_t>(l3));
    }
    pages::release(reinterpret_cast<uint64_t>(l2));
  }
  pages::release(reinterpret_cast<uint64_t>(l1));
  space.l1_phys = 0;
  space.pages = 0;
}

namespace {

UserAccess access_of(uint64_t pte) {
  return (pte & kPteUwe)   ? UserAccess::kReadWrite
         : (pte & kPteUre) ? UserAccess::kRead
                           : UserAccess::kNone;
}

// Calls `visit(va, pte)` for every mapped PTE (a page or a demand-zero
// page) in address order, while it returns true; false if one said stop.
template <typename Visit>
bool for_each_mapped_pte(const AddressSpace& space, Visit visit) {
  const uint64_t* l1 = table_at(space.l1_phys);
  for (uint64_t i = 0; i < kEntries; ++i) {
    if (!(l1[i] & kPteValid)) continue;
    const uint64_t* l2 = table_at(pte_phys(l1[i]));
    for (uint64_t j = 0; j < kEntries; ++j) {
      if (!(l2[j] & kPteValid)) continue;
      const uint64_t* l3 = table_at(pte_phys(l2[j]));
      for (uint64_t k = 0; k < kEntries; ++k) {
        const uint64_t pte = load_pte(&l3[k]);
        if (!(pte & (kPteValid | kPteDemandZero))) continue;
        if (!visit((i << 33) | (j << 23) | (k << pages::kPageShift), pte)) return false;
      }
    }
  }
  return true;
}

// One page of fork's copy into `to`; false when out of memory.
bool copy_page(uint64_t va, uint64_t pte, AddressSpace& to) {
  uint64_t* slot = l3_slot(to, va, true);
  if (slot != nullptr && is_demand_zero(pte)) {  // still untouched: so in the child
    *slot = pte;
    return true;
  }
  if (slot != nullptr && (pte & kPteShared)) {  // MAP_SHARED: the same page
    if (!pages::add_reference(pages::phys_to_kseg(pte_phys(pte)))) return false;
    *slot = pte;
    ++to.pages;
    return true;
  }
  const uint64_t page = slot ? pages::allocate() : 0;
  if (page == 0) return false;
  __builtin_memcpy(reinterpret_cast<void*>(page),
                   reinterpret_cast<const void*>(pages::phys_to_kseg(pte_phys(pte))),
                   pages::kPageBytes);
  *slot = make_pte(page, pte & 0xffff);
  ++to.pages;
  return true;
}

}  // namespace

void walk_user_pages(const AddressSpace& space, UserPageVisitor visit, void* context) {
  for_each_mapped_pte(space, [&](uint64_t va, uint64_t pte) {
    if (user_address(va)) visit(context, va, access_of(pte), pte & kPteShared);
    return true;
  });
}

bool address_space_copy(const AddressSpace& from, AddressSpace& to) {
  return for_each_mapped_pte(from,
                             [&](uint64_t va, uint64_t pte) { return copy_page(va, pte, to); });
}

uint64_t map_user_page(AddressSpace& space, uint64_t va, bool writable) {
  if (!user_address(va) || (va & (pages::kPageBytes - 1))) return 0;
  uint64_t* slot = l3_slot(space, va, true);
  if (slot == nullptr) return 0;
  const uint64_t bits = kPteValid | kPteKre | kPteUre | (writable ? kPteKwe | kPteUwe : 0);
  if (*slot & kPteValid) {
    *slot |= bits;
    return pages::phys_to_kseg(pte_phys(*slot));
  }
  const uint64_t page = pages::allocate();
  if (page == 0) return 0;
  *slot = make_pte(page, bits);
  ++space.pages;
  return page;
}

namespace {
uint64_t access_bits(UserAccess access) {
  switch (access) {
    case UserAccess::kNone:
      return kPteValid | kPteKre | kPteKwe;  // kernel-only: user access faults
    case UserAccess::kRead:
      return kPteValid | kPteKre | kPteKwe | kPteUre;
    case UserAccess::kReadWrite:
      break;
  }
  return kPteValid | kPteKre | kPteKwe | kPteUre | kPteUwe;
}

// What a demand-zero page keeps until its first touch: the access, not valid.
uint64_t demand_zero_pte(UserAccess access) {
  return kPteDemandZero | (access_bits(access) & ~kPteValid);
}
}  // namespace

uint64_t map_fresh_user_page(AddressSpace& space, uint64_t va, UserAccess access) {
  unmap_user_page(space, va);
  if (!user_address(va) || (va & (pages::kPageBytes - 1))) return 0;
  uint64_t* slot = l3_slot(space, va, true);
  if (slot == nullptr) return 0;
  const uint64_t page = pages::allocate();
  if (page == 0) return 0;
  *slot = make_pte(page, access_bits(access));
  ++space.pages;
  return page;
}

bool map_held_page(AddressSpace& space, uint64_t va, uint64_t page, UserAccess access) {
  unmap_user_page(space, va);
  if (!user_address(va) || (va & (pages::kPageBytes - 1))) return false;
  uint64_t* slot = l3_slot(space, va, true);
  if (slot == nullptr) return false;
  *slot = make_pte(page, access_bits(access) | kPteShared);
  ++space.pages;
  return true;
}

uint64_t map_shared_user_page(AddressSpace& space, uint64_t va, UserAccess access) {
  const uint64_t page = map_fresh_user_page(space, va, access);
  if (page != 0) *l3_slot(space, va, false) |= kPteShared;
  return page;
}

bool move_user_page(AddressSpace& space, uint64_t from, uint64_t to) {
  unmap_user_page(space, to);
  uint64_t* target = l3_slot(space, to, true);
  uint64_t* source = l3_slot(space, from, false);
  if (target == nullptr) return false;
  if (source == nullptr) return true;
  uint64_t pte = load_pte(source);
  // A demand-zero slot may be touched meanwhile (another thread's fault):
  // take it by CAS, so that the page it gets is the one moved.
  while (is_demand_zero(pte) && !replace_pte(source, pte, 0)) pte = load_pte(source);
  if (!is_demand_zero(pte)) *source = 0;
  __atomic_store_n(target, (pte & (kPteValid | kPteDemandZero)) ? pte : 0, __ATOMIC_RELEASE);
  return true;
}

// A thread's 8 MB stack (glibc maps it PROT_NONE and opens it with
// mprotect) costs the pages it touches, as on Linux: made eagerly, forty
// threads' stacks did not fit in 256 MB, and zeroing them was a third of
// such a program's samples.
bool map_demand_zero(AddressSpace& space, uint64_t va, UserAccess access) {
  unmap_user_page(space, va);
  if (!user_address(va) || (va & (pages::kPageBytes - 1))) return false;
  uint64_t* slot = l3_slot(space, va, true);
  if (slot == nullptr) return false;
  __atomic_store_n(slot, demand_zero_pte(access), __ATOMIC_RELEASE);
  return true;
}

bool populate_demand_zero(const AddressSpace& space, uint64_t va, bool write) {
  if (!user_address(va) || space.l1_phys == 0) return false;
  // The tables are memory of their own, not the AddressSpace's: filling a
  // slot maps nothing new (the page was there, zero, for user mode).
  auto* slot = const_cast<uint64_t*>(find_l3_slot(space, va & ~(pages::kPageBytes - 1)));
  if (slot == nullptr) return false;
  const uint64_t pte = load_pte(slot);
  if (!is_demand_zero(pte)) return (pte & kPteValid) != 0;
  if (!(pte & (write ? kPteUwe : kPteUre))) return false;
  const uint64_t page = pages::allocate();
  if (page == 0) return false;
  if (replace_pte(slot, pte, make_pte(page, (pte & 0xffff) | kPteValid))) {
    __atomic_add_fetch(&space.pages, 1, __ATOMIC_RELAXED);
    return true;
  }
  pages::release(page);  // another CPU's touch was first, or the page went
  return (load_pte(slot) & kPteValid) != 0;
}

bool set_user_page_access(AddressSpace& space, uint64_t va, UserAccess access) {
  if (!user_address(va) || space.l1_phys == 0) return false;
  uint64_t* slot = l3_slot(space, va, false);
  if (slot == nullptr) return false;
  for (;;) {
    const uint64_t pte = load_pte(slot);
    if (is_demand_zero(pte)) {
      if (replace_pte(slot, pte, demand_zero_pte(access))) return true;
      continue;  // touched meanwhile: a page now
    }
    if (!(pte & kPteValid)) return false;
    *slot = (pte & ~uint64_t{0xffff}) | access_bits(access);
    return true;
  }
}

void unmap_user_page(AddressSpace& space, uint64_t va) {
  if (!user_address(va) || space.l1_phys == 0) return;
  uint64_t* slot = l3_slot(space, va, false);
  if (slot == nullptr) return;
  uint64_t pte = load_pte(slot);
  while (is_demand_zero(pte)) {
    if (replace_pte(slot, pte, 0)) return;
    pte = load_pte(slot);  // touched meanwhile: a page to free
  }
  if (!(pte & kPteValid)) return;
  pages::release(pages::phys_to_kseg(pte_phys(pte)));
  *slot = 0;
  --space.pages;
}

uint64_t user_page_kseg(const AddressSpace& space, uint64_t va) {
  if (!user_address(va) || space.l1_phys == 0) return 0;
  const uint64_t* slot = find_l3_slot(space, va & ~(pages::kPageBytes - 1));
  if (slot == nullptr || !(*slot & kPteValid)) return 0;
  return pages::phys_to_kseg(pte_phys(*slot));
}

bool user_page_mapped(const AddressSpace& space, uint64_t va, UserAccess* access) {
  if (!user_address(va) || space.l1_phys == 0) return false;
  const uint64_t* slot = find_l3_slot(space, va & ~(pages::kPageBytes - 1));
  const uint64_t pte = slot ? load_pte(slot) : 0;
  if (!(pte & (kPteValid | kPteDemandZero))) return false;
  if (access)
    *access = (pte & kPteUwe)   ? UserAccess::kReadWrite
              : (pte & kPteUre) ? UserAccess::kRead
                                : UserAccess::kNone;
  return true;
}

bool user_page_shared(const AddressSpace& space, uint64_t va) {
  if (!user_address(va) || space.l1_phys == 0) return false;
  const uint64_t* slot = find_l3_slot(space, va & ~(pages::kPageBytes - 1));
  const uint64_t pte = slot ? load_pte(slot) : 0;
  return (pte & kPteValid) && (pte & kPteShared);
}

UserPte user_read_pte(const AddressSpace& space, uint64_t va) {
  if (!user_address(va) || space.l1_phys == 0) return {nullptr, 0, 0};
  const uint64_t* slot = find_l3_slot(space, va);
  if (slot == nullptr || !(*slot & kPteValid) || !(*slot & kPteUre)) return {nullptr, 0, 0};
  return {slot, *slot, pages::phys_to_kseg(pte_phys(*slot))};
}

uint64_t translate_user(const AddressSpace& space, uint64_t va, bool write) {
  if (!user_address(va) || space.l1_phys == 0) return 0;
  const uint64_t* slot = find_l3_slot(space, va);
  if (slot == nullptr || !(*slot & kPteValid)) return 0;
  if (!(*slot & (write ? kPteUwe : kPteUre))) return 0;
  return pages::phys_to_kseg(pte_phys(*slot)) + (va & (pages::kPageBytes - 1));
}

uint64_t touch_demand_zero(const AddressSpace& space, uint64_t va, bool write) {
  return populate_demand_zero(space, va, write) ? translate_user(space, va, write) : 0;
}

bool copy_from_user_pages(const AddressSpace& space, void* to, uint64_t from_va, uint64_t bytes) {
  auto* out = static_cast<char*>(to);
  while (bytes > 0) {
    const uint64_t source = touch_user(space, from_va, false);
    if (source == 0) return false;
    uint64_t chunk = pages::kPageBytes - (from_va & (pages::kPageBytes - 1));
    if (chunk > bytes) chunk = bytes;
    __builtin_memcpy(out, reinterpret_cast<const void*>(source), chunk);
    out += chunk, from_va += chunk, bytes -= chunk;
  }
  return true;
}

bool copy_to_user_pages(const AddressSpace& space, uint64_t to_va, const void* from,
                        uint64_t bytes) {
  auto* in = static_cast<const char*>(from);
  while (bytes > 0) {
    const uint64_t target = touch_user(space, to_va, true);
    if (target == 0) return false;
    uint64_t chunk = pages::kPageBytes - (to_va & (pages::kPageBytes - 1));
    if (chunk > bytes) chunk = bytes;
    __builtin_memcpy(reinterpret_cast<void*>(target), in, chunk);
    in += chunk, to_va += chunk, bytes -= chunk;
  }
  return true;
}

int64_t string_from_user(const AddressSpace& space, char* to, uint64_t from_va, uint64_t capacity) {
  for (uint64_t n = 0; n < capacity; ++n) {
    const uint64_t source = touch_user(space, from_va + n, false);
    if (source == 0) return -1;
    to[n] = *reinterpret_cast<const char*>(source);
    if (to[n] == 0) return static_cast<int64_t>(n);
  }
  return -1;
}

}  // namespace kernel
