// Per-process address spaces: OSF/1-style three-level page tables that
// QEMU walks from ptbr itself (target/alpha/helper.c): 8 KB pages, 1024
// 8-byte PTEs a table, VA bits 42:33 / 32:23 / 22:13 index L1 / L2 / L3, the
// PFN in PTE bits 63:32. ptbr holds the *physical byte address* of the L1
// table (QEMU uses it as is). User mappings live below kUserTop; the kernel
// runs in KSEG, which user mode can never reach, so no kernel or profiler
// memory is ever in a user page table.
#pragma once
#include <cstdint>

namespace kernel {

// PTE bits (QEMU target/alpha/cpu.h, Alpha SRM).
inline constexpr uint64_t kPteValid = 0x0001;
inline constexpr uint64_t kPteKre = 0x0100;
inline constexpr uint64_t kPteUre = 0x0200;
inline constexpr uint64_t kPteKwe = 0x1000;
inline constexpr uint64_t kPteUwe = 0x2000;
// Software bit (PTE bits 31:16 are the OS's): with kPteValid clear, a
// demand-zero page: its access bits are kept, and the first touch gives it a
// zeroed page (populate_demand_zero), as Linux maps anonymous memory.
inline constexpr uint64_t kPteDemandZero = 0x10000;
// Software bit, with kPteValid: a MAP_SHARED page. fork maps the same page
// into the child (pages::add_reference) instead of copying it.
inline constexpr uint64_t kPteShared = 0x20000;

inline constexpr uint64_t kUserBottom = 0x10000;
inline constexpr uint64_t kUserTop = uint64_t{1} << 42;  // VA bit 42 clear: user half

struct AddressSpace {
  uint64_t l1_phys = 0;  // 0 = none
  // User pages with memory (not counting page tables or demand-zero pages
  // not touched yet). Mutable: a demand-zero page's first touch through a
  // const view (a system call's copy) gives it memory without changing
  // what is mapped.
  mutable uint64_t pages = 0;
};

// Allocates an empty L1 table; false if out of memory.
bool address_space_create(AddressSpace& space);
// Fills the empty space `to` with a copy of every page of `from`, with the
// same access (fork); demand-zero pages stay demand-zero. False when out of
// memory (`to` keeps what was copied; destroy it).
bool address_space_copy(const AddressSpace& from, AddressSpace& to);
// Frees every mapped page and page table.
void address_space_destroy(AddressSpace& space);
// Maps a fresh zeroed page at `va` (page aligned) for user read (and write
// if `writable`); if already mapped, upgrades to writable when asked.
// Returns the page's KSEG address or 0 (out of memory or bad address).
uint64_t map_user_page(AddressSpace& space, uint64_t va, bool writable);
// What user mode may do with a page (mmap/mprotect). Alpha PTEs have a
// fault-on-execute bit, but QEMU grants execute with read, so no separate
// execute right is kept (docs/qemu-deviations.md).
enum class UserAccess { kNone, kRead, kReadWrite };
// Maps a fresh zeroed page at `va` with `access`, replacing (and freeing)
// any page there. Returns its KSEG address or 0.
uint64_t map_fresh_user_page(AddressSpace& space, uint64_t va, UserAccess access);
// Maps a fresh zeroed MAP_SHARED page at `va` with `access`, replacing (and
// freeing) any page there: fork shares it with the child. Its KSEG address or 0.
uint64_t map_shared_user_page(AddressSpace& space, uint64_t va, UserAccess access);
// Maps the page at `page` (KSEG; a reference the caller took for this
// mapping, which unmapping drops) at `va` as MAP_SHARED with `access`,
// replacing any page there: a RAM file's page in a shared file mapping.
// False when out of memory for a page table or a bad address.
bool map_held_page(AddressSpace& space, uint64_t va, uint64_t page, UserAccess access);
// Moves the page (or demand-zero page) at `from` to `to`, whose page, if
// any, is unmapped first (mremap): no copy, a shared page stays shared.
// False when out of memory for `to`'s page table.
bool move_user_page(AddressSpace& space, uint64_t from, uint64_t to);
// Maps a demand-zero page at `va` with `access` (anonymous mmap, mprotect
// opening a reservation), replacing (and freeing) any page there: memory
// comes at the first touch. False when out of memory or a bad address.
bool map_demand_zero(AddressSpace& space, uint64_t va, UserAccess access);
// Gives the demand-zero page at `va` its zeroed page if user mode may read
// it (write it, when `write`). True when a page is there now (this call's,
// another CPU's, or one mapped before); false for no page, a forbidden
// access or no memory. Never sleeps; safe against another CPU doing the same.
bool populate_demand_zero(const AddressSpace& space, uint64_t va, bool write);
// Changes the access of the page at `va` (demand-zero or not); false if
// none is mapped there.
bool set_user_page_access(AddressSpace& space, uint64_t va, UserAccess access);
// Unmaps and frees the page at `va` (nothing if none is mapped).
void unmap_user_page(AddressSpace& space, uint64_t va);
// The KSEG address of the page mapped at `va` whatever its access, or 0
// (also for a demand-zero page not touched yet).
uint64_t user_page_kseg(const AddressSpace& space, uint64_t va);
// True when `va` is mapped: a page or a demand-zero page; `access` (if not
// null) is what user mode may do there.
bool user_page_mapped(const AddressSpace& space, uint64_t va, UserAccess* access = nullptr);
// Calls `visit(context, va, access, shared)` for every user page mapped
// (a page or a demand-zero one), in address order (/proc/self/maps).
using UserPageVisitor = void (*)(void* context, uint64_t va, UserAccess access, bool shared);
void walk_user_pages(const AddressSpace& space, UserPageVisitor visit, void* context);
// True when `va` holds a MAP_SHARED page (kPteShared).
bool user_page_shared(const AddressSpace& space, uint64_t va);
// Callers that change PTEs of the running process flush this CPU's TLB
// (pal::tbia): a single-threaded process has live TLB entries only on the
// CPU it runs on, since swpctx flushes on every address-space change.

// KSEG address that user `va` maps to, if user mode may access it (write
// access when `write`); 0 otherwise, demand-zero pages not touched yet
// included (the samplers read user memory at IPL 6 this way: no allocation).
uint64_t translate_user(const AddressSpace& space, uint64_t va, bool write);
// translate_user for a system call's access: a demand-zero page gets its
// page first, as user mode's touch would give it.
uint64_t touch_demand_zero(const AddressSpace& space, uint64_t va, bool write);
inline uint64_t touch_user(const AddressSpace& space, uint64_t va, bool write) {
  if (const uint64_t kseg = translate_user(space, va, write)) return kseg;
  return touch_demand_zero(space, va, write);
}

// Copies between kernel memory and user memory of `space`, checking every
// page as user mode would (touch_user); false (EFAULT) on any unmapped or
// forbidden byte. Within one page (nearly every system call's argument)
// inline: a copy of sizeof(x) bytes is then a load and a store, not a
// memcpy call (glibc's FP environment calls make two such system calls per
// sqrt on Alpha: those copies were a third of the kernel's instructions).
bool copy_from_user_pages(const AddressSpace& space, void* to, uint64_t from_va, uint64_t bytes);
bool copy_to_user_pages(const AddressSpace& space, uint64_t to_va, const void* from,
                        uint64_t bytes);
inline constexpr uint64_t kUserPageBytes = 8192;  // pages::kPageBytes (page_alloc.h)
inline bool within_one_page(uint64_t va, uint64_t bytes) {
  return bytes <= kUserPageBytes - (va & (kUserPageBytes - 1));
}
inline bool copy_from_user(const AddressSpace& space, void* to, uint64_t from_va, uint64_t bytes) {
  if (bytes == 0 || !within_one_page(from_va, bytes))
    return copy_from_user_pages(space, to, from_va, bytes);
  const uint64_t source = touch_user(space, from_va, false);
  if (source == 0) return false;
  __builtin_memcpy(to, reinterpret_cast<const void*>(source), bytes);
  return true;
}
inline bool copy_to_user(const AddressSpace& space, uint64_t to_va, const void* from,
                         uint64_t bytes) {
  if (bytes == 0 || !within_one_page(to_va, bytes))
    return copy_to_user_pages(space, to_va, from, bytes);
  const uint64_t target = touch_user(space, to_va, true);
  if (target == 0) return false;
  __builtin_memcpy(reinterpret_cast<void*>(target), from, bytes);
  return true;
}
// Copies a NUL-terminated string of at most `capacity` bytes including the
// NUL; returns its length, or -1 on a fault or if it does not fit.
int64_t string_from_user(const AddressSpace& space, char* to, uint64_t from_va, uint64_t capacity);

}  // namespace kernel
