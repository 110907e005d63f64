// Memory system calls: brk, and mmap/munmap/mprotect as glibc's dynamic
// loader and malloc use them. File mappings are made eagerly (the file's
// bytes, of the initrd or a RAM file, are copied into fresh pages: the initrd
// is not page aligned); anonymous ones are demand-zero (a page at the first
// touch, as on Linux), shared anonymous ones eager (fork shares them); a
// PROT_NONE reservation maps nothing until mprotect opens it. Every executable file
// mapping is a loader notification in the load map (DCPI §4.3.2). Each call
// holds the mm's lock (threads share it) and flushes the TLB of every CPU
// running the mm (sched::flush_tlb).
#include "kernel/elf_format.h"
#include "kernel/elf_loader.h"
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/load_map_writer.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/ramfs.h"
#include "kernel/scheduler.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

constexpr uint64_t kPageMask = pages::kPageBytes - 1;

UserAccess access_of(uint64_t prot) {
  if (prot & LINUX_PROT_WRITE) return UserAccess::kReadWrite;
  if (prot & (LINUX_PROT_READ | LINUX_PROT_EXEC)) return UserAccess::kRead;
  return UserAccess::kNone;
}

bool range_ok(uint64_t start, uint64_t bytes) {
  return (start & kPageMask) == 0 && start >= kUserBottom && start + bytes > start &&
         start + bytes <= kUserTop;
}

bool range_unmapped(const AddressSpace& space, uint64_t start, uint64_t bytes) {
  for (uint64_t va = start; va < start + bytes; va += pages::kPageBytes)
    if (user_page_mapped(space, va)) return false;
  return true;
}

// Linux's heuristic overcommit (vm.overcommit_memory 0, mm/util.c's
// __vm_enough_memory): one commitment of more pages than RAM and swap (none
// here) is refused at once, though memory is given only when touched.
// Committed are private writable mappings and shared anonymous ones, not
// MAP_NORESERVE's (the heuristic skips them) nor read-only or shared file
// mappings, which the file backs.
bool commitment_refused(uint64_t prot, uint64_t flags, bool anonymous, uint64_t bytes) {
  const bool shared = flags & LINUX_MAP_SHARED;
  const bool committed = shared ? anonymous : (prot & LINUX_PROT_WRITE) != 0;
  return committed && !(flags & LINUX_MAP_NORESERVE) &&
         bytes / pages::kPageBytes > pages::total_count();
}

// Unmaps the pages of [start, end) (page-aligned) and flushes the TLB.
void unmap_range(Process* self, uint64_t start, uint64_t end) {
  for (uint64_t va = start; va < end; va += pages::kPageBytes) unmap_user_page(self->space(), va);
  sched::flush_tlb(self->mm);
}

// Where a mapping of `bytes` goes: MAP_FIXED's address, a free hint, or the
// next free range above the dynamic loader; 0 if none.
uint64_t place_mapping(Process* self, uint64_t hint, uint64_t bytes, uint64_t flags) {
  if (flags & LINUX_MAP_FIXED) return range_ok(hint, bytes) ? hint : 0;
  if (hint != 0 && range_ok(hint & ~kPageMask, bytes) &&
      range_unmapped(self->space(), hint & ~kPageMask, bytes))
    return hint & ~kPageMask;
  const uint64_t start = self->mm->mmap_next;
  if (!range_ok(start, bytes)) return 0;
  self->mm->mmap_next = start + bytes;
  return start;
}

// A file mapping's page at `offset`: the bytes of the initrd's file or the
// RAM file there (zero beyond its end) into the fresh page at `page`.
void copy_file_page(const OpenFile& f, uint64_t offset, uint64_t page) {
  auto* to = reinterpret_cast<void*>(page);
  if (f.kind == OpenFile::kRamFile) {
    ramfs::read(f.node, offset, to, pages::kPageBytes);
    return;
  }
  if (offset >= f.file.size) return;
  uint64_t n = f.file.size - offset;
  if (n > pages::kPageBytes) n = pages::kPageBytes;
  __builtin_memcpy(to, f.file.data + offset, n);
}

// A shared mapping of a RAM file: its own pages (ramfs::share_page), so
// stores reach the file and other processes' mappings; past the end of the
// file nothing is mapped (Linux: SIGBUS there; here SIGSEGV).
bool share_file(Process* self, uint64_t start, uint64_t bytes, UserAccess access,
                const OpenFile& file, uint64_t offset) {
  for (uint64_t done = 0; done < bytes; done += pages::kPageBytes) {
    uint64_t page;
    if (!ramfs::share_page(file.node, offset + done, &page)) return false;
    if (page == 0)
      unmap_user_page(self->space(), start + done);
    else if (!map_held_page(self->space(), start + done, page, access)) {
      pages::release(page);
      return false;
    }
  }
  return true;
}

// Fresh pages for [start, start + bytes) holding the file's bytes from
// `offset`, or demand-zero pages without a file (fresh shared pages for
// MAP_SHARED: a fork shares them, so they cannot wait for a first touch).
bool fill_mapping(Process* self, uint64_t start, uint64_t bytes, UserAccess access,
                  const OpenFile* file, uint64_t offset, bool shared = false) {
  for (uint64_t done = 0; done < bytes; done += pages::kPageBytes) {
    if (access == UserAccess::kNone && !shared) {
      unmap_user_page(self->space(), start + done);
      continue;
    }
    if (file == nullptr && shared) {
      if (map_shared_user_page(self->space(), start + done, access) == 0) return false;
      continue;
    }
    if (file == nullptr) {
      if (!map_demand_zero(self->space(), start + done, access)) return false;
      continue;
    }
    const uint64_t page = map_fresh_user_page(self->space(), start + done, access);
    if (page == 0) return false;
    copy_file_page(*file, offset + done, page);
  }
  return true;
}

void notify_executable_mapping(Process* self, const OpenFile& f, uint64_t start, uint64_t bytes,
                               uint64_t offset) {
  const auto* data = reinterpret_cast<const uint8_t*>(f.file.data);
  dcpi::LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(dcpi::LoadKind::kMap);
  record.pid = self->tgid;
  record.parent_pid = self->parent_pid;
  record.load_address = start;
  record.size = bytes;
  record.link_address = elf_link_address_of_offset(data, f.file.size, offset);
  record.build_id_bytes = elf::file_build_id(data, f.file.size, record.build_id, dcpi::kBuildIdMax);
  for (uint64_t i = 0; i < dcpi::kImagePathMax; ++i) record.path[i] = f.path[i];
  load_map_append(record);
}

}  // namespace

// brk: growth maps the new pages at once (newlib's malloc grows the heap
// this way and the bundled workloads' costs are measured so); it is
// committed memory, refused as Linux refuses it (commitment_refused), and a
// growth the guest's free pages cannot hold is undone, leaving the break.
// Shrinking unmaps the whole pages above the new break, as Linux's, so a
// later growth reads zeroes there.
int64_t sys_brk(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);  // threads of one mm on other CPUs
  const uint64_t wanted = args.a[0], old = self->mm->brk;
  if (wanted < self->mm->brk_start || wanted > kHeapLimit) return static_cast<int64_t>(old);
  const uint64_t first = (old + kPageMask) & ~kPageMask;
  if (wanted < old) {
    unmap_range(self, (wanted + kPageMask) & ~kPageMask, first);
    self->mm->brk = wanted;
    return static_cast<int64_t>(wanted);
  }
  if (wanted > first && commitment_refused(LINUX_PROT_WRITE, 0, true, wanted - first))
    return static_cast<int64_t>(old);
  for (uint64_t va = first; va < wanted; va += pages::kPageBytes) {
    if (map_user_page(self->space(), va, true) != 0) continue;
    unmap_range(self, first, va);
    return static_cast<int64_t>(old);
  }
  self->mm->brk = wanted;
  return static_cast<int64_t>(wanted);
}

// mmap(addr, length, prot, flags, fd, offset)
int64_t sys_mmap(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);  // threads of one mm on other CPUs
  const uint64_t length = args.a[1], prot = args.a[2], flags = args.a[3], offset = args.a[5];
  if (length == 0 || (offset & kPageMask) || length > kUserTop) return error(EINVAL);
  bool anonymous = (flags & LINUX_MAP_ANONYMOUS) != 0;
  const OpenFile* f = nullptr;
  if (!anonymous) {
    f = file_at(self->fds, args.a[4]);
    if (f == nullptr) return error(EBADF);
    // /dev/zero: the old way to ask for anonymous memory.
    anonymous = f->kind == OpenFile::kNull && f->device == kDevZero;
    if (anonymous) f = nullptr;
  }
  if (!anonymous) {
    if (f->kind != OpenFile::kInitrd && f->kind != OpenFile::kRamFile)
      return error(19 /* ENODEV */);
    // Shared and writable needs a file opened for writing (Linux's EACCES):
    // the initrd's are read-only. A RAM file's shared mapping is its pages;
    // any other file mapping is a copy of its bytes made now.
    const bool writable_fd = (f->flags & LINUX_O_ACCMODE) != 0 && f->kind == OpenFile::kRamFile;
    if ((flags & LINUX_MAP_SHARED) && (prot & LINUX_PROT_WRITE) && !writable_fd)
      return error(EACCES);
  }
  const uint64_t bytes = (length + kPageMask) & ~kPageMask;
  if (commitment_refused(prot, flags, anonymous, bytes)) return error(ENOMEM);
  const uint64_t start = place_mapping(self, args.a[0], bytes, flags);
  if (start == 0) return error(ENOMEM);
  const bool shared_anonymous = anonymous && (flags & LINUX_MAP_SHARED);
  const bool shared_file =
      f != nullptr && f->kind == OpenFile::kRamFile && (flags & LINUX_MAP_SHARED);
  const bool filled =
      shared_file ? share_file(self, start, bytes, access_of(prot), *f, offset)
                  : fill_mapping(self, start, bytes, access_of(prot), f, offset, shared_anonymous);
  if (!filled) {  // out of pages part way: none of it stays
    unmap_range(self, start, start + bytes);
    return error(ENOMEM);
  }
  sched::flush_tlb(self->mm);
  if (f != nullptr && f->kind == OpenFile::kInitrd && (prot & LINUX_PROT_EXEC))
    notify_executable_mapping(self, *f, start, bytes, offset);
  return static_cast<int64_t>(start);
}

int64_t sys_munmap(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);  // threads of one mm on other CPUs
  const uint64_t start = args.a[0], bytes = (args.a[1] + kPageMask) & ~kPageMask;
  if (bytes == 0 || !range_ok(start, bytes)) return error(EINVAL);
  unmap_range(self, start, start + bytes);
  return 0;
}

// mprotect: an unmapped page inside the range (part of a PROT_NONE
// reservation: glibc's thread stacks) becomes demand-zero when opened.
int64_t sys_mprotect(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);  // threads of one mm on other CPUs
  const uint64_t start = args.a[0], bytes = (args.a[1] + kPageMask) & ~kPageMask;
  if (!range_ok(start, bytes == 0 ? pages::kPageBytes : bytes)) return error(EINVAL);
  const UserAccess access = access_of(args.a[2]);
  bool ok = true;
  for (uint64_t va = start; va < start + bytes && ok; va += pages::kPageBytes)
    if (!set_user_page_access(self->space(), va, access) && access != UserAccess::kNone)
      ok = map_demand_zero(self->space(), va, access);
  sched::flush_tlb(self->mm);
  return ok ? 0 : error(ENOMEM);
}

// mremap(old, old_size, new_size, flags): what glibc's realloc of a large
// (mmapped) block asks. Shrinking unmaps the tail; growing maps fresh pages
// after the old ones if that range is free, else (MREMAP_MAYMOVE) moves the
// pages to a new range, as Linux moves page table entries (no copy; shared
// pages stay shared). MREMAP_FIXED is refused.
int64_t sys_mremap(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);  // threads of one mm on other CPUs
  const uint64_t old = args.a[0], flags = args.a[3];
  const uint64_t old_bytes = (args.a[1] + kPageMask) & ~kPageMask;
  const uint64_t new_bytes = (args.a[2] + kPageMask) & ~kPageMask;
  if ((flags & ~uint64_t{LINUX_MREMAP_MAYMOVE}) || old_bytes == 0 || new_bytes == 0 ||
      !range_ok(old, old_bytes) || args.a[2] > kUserTop)
    return error(EINVAL);
  UserAccess access = UserAccess::kNone;
  if (!user_page_mapped(self->space(), old, &access) || access == UserAccess::kNone)
    return error(EFAULT);
  if (new_bytes <= old_bytes) {
    unmap_range(self, old + new_bytes, old + old_bytes);
    return static_cast<int64_t>(old);
  }
  const uint64_t grow = new_bytes - old_bytes;
  const bool shared = user_page_shared(self->space(), old);
  if (commitment_refused(access == UserAccess::kReadWrite ? LINUX_PROT_WRITE : 0,
                         shared ? LINUX_MAP_SHARED : 0, true, grow))
    return error(ENOMEM);
  if (range_ok(old + old_bytes, grow) && range_unmapped(self->space(), old + old_bytes, grow)) {
    const bool ok = fill_mapping(self, old + old_bytes, grow, access, nullptr, 0, shared);
    sched::flush_tlb(self->mm);
    return ok ? static_cast<int64_t>(old) : error(ENOMEM);
  }
  if (!(flags & LINUX_MREMAP_MAYMOVE)) return error(ENOMEM);
  const uint64_t moved = place_mapping(self, 0, new_bytes, 0);
  bool ok = moved != 0;
  // The old pages move as they are (touched or not, shared or not), the
  // rest of the new range is as a fresh mapping's.
  for (uint64_t done = 0; ok && done < old_bytes; done += pages::kPageBytes)
    ok = move_user_page(self->space(), old + done, moved + done);
  ok = ok && fill_mapping(self, moved + old_bytes, grow, access, nullptr, 0,
                          user_page_shared(self->space(), moved));
  sched::flush_tlb(self->mm);
  return ok ? static_cast<int64_t>(moved) : error(ENOMEM);
}

// madvise: advice is taken as given (nothing is paged here), except
// MADV_DONTNEED (6 on Alpha; and MADV_DONTNEED_LOCKED), which Linux
// honours at once: a private page is dropped, so its next touch reads
// zeros (glibc's malloc relies on it: a thread arena's heap shrunk with
// DONTNEED and grown again is taken to be zeroed by calloc). Shared pages
// keep their contents, as Linux's refault finds them. A private file
// mapping is a copy here, so its dropped page reads zeros, not the file.
// EINVAL for an unaligned start or an unknown advice; ENOMEM if the range
// has an unmapped page (the mapped ones are still advised, as Linux).
int64_t sys_madvise(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kDontNeed = 6, kDontNeedLocked = 24, kLast = 25;
  const uint64_t start = args.a[0], advice = args.a[2];
  const uint64_t bytes = (args.a[1] + kPageMask) & ~kPageMask;
  if ((start & kPageMask) || advice > kLast || advice == 4 || advice == 5 || advice == 7 ||
      start + bytes < start)
    return error(EINVAL);
  LockGuard guard(self->mm->lock);  // threads of one mm on other CPUs
  bool hole = false;
  for (uint64_t va = start; va < start + bytes; va += pages::kPageBytes) {
    UserAccess access;
    if (!user_page_mapped(self->space(), va, &access)) {
      hole = true;
      continue;
    }
    if ((advice == kDontNeed || advice == kDontNeedLocked) &&
        !user_page_shared(self->space(), va) && access != UserAccess::kNone) {
      unmap_user_page(self->space(), va);
      map_demand_zero(self->space(), va, access);
    }
  }
  sched::flush_tlb(self->mm);
  return hole ? error(ENOMEM) : 0;
}

namespace {
// [start, start + length) rounded out to pages, every page mapped: 0, or
// EINVAL (unaligned start) / ENOMEM (a hole), as the calls below answer.
int64_t mapped_range(Process* self, uint64_t start, uint64_t length, uint64_t* bytes) {
  *bytes = (length + kPageMask) & ~kPageMask;
  if ((start & kPageMask) || start + *bytes < start) return error(EINVAL);
  for (uint64_t va = start; va < start + *bytes; va += pages::kPageBytes)
    if (!user_page_mapped(self->space(), va)) return error(ENOMEM);
  return 0;
}
}  // namespace

// mlock(addr, len): nothing is ever paged out here, so locking is giving
// the range its memory now (demand-zero pages made, as Linux faults them in).
int64_t sys_mlock(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);
  const uint64_t start = args.a[0] & ~kPageMask;
  uint64_t bytes;
  if (const int64_t e = mapped_range(self, start, args.a[1] + (args.a[0] & kPageMask), &bytes))
    return e;
  for (uint64_t va = start; va < start + bytes; va += pages::kPageBytes) {
    UserAccess access;
    user_page_mapped(self->space(), va, &access);
    if (access != UserAccess::kNone && !populate_demand_zero(self->space(), va, false))
      return error(ENOMEM);
  }
  return 0;
}

int64_t sys_munlock(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);
  uint64_t bytes;
  return mapped_range(self, args.a[0] & ~kPageMask, args.a[1] + (args.a[0] & kPageMask), &bytes);
}

// mlockall(MCL_CURRENT | MCL_FUTURE) and munlockall: memory stays resident
// anyway; pages not touched yet stay demand-zero.
int64_t sys_mlockall(Process*, TrapFrame*, const Args& args) {
  constexpr uint64_t kMclCurrent = 8192, kMclFuture = 16384, kMclOnfault = 32768;
  if (args.a[0] == 0 || (args.a[0] & ~(kMclCurrent | kMclFuture | kMclOnfault)))
    return error(EINVAL);
  return 0;
}

int64_t sys_munlockall(Process*, TrapFrame*, const Args&) { return 0; }

// msync(addr, len, flags): nothing to write back: a RAM file's shared
// mapping is the file's own pages, other mappings are copies or anonymous.
int64_t sys_msync(Process* self, TrapFrame*, const Args& args) {
  constexpr uint64_t kMsAsync = 1, kMsSync = 2, kMsInvalidate = 4;
  const uint64_t flags = args.a[2];
  if ((flags & ~(kMsAsync | kMsSync | kMsInvalidate)) || ((flags & kMsAsync) && (flags & kMsSync)))
    return error(EINVAL);
  LockGuard guard(self->mm->lock);
  uint64_t bytes;
  return mapped_range(self, args.a[0], args.a[1], &bytes);
}

// mincore(addr, len, vec): 1 for a page with memory, 0 for a demand-zero
// page not touched yet.
int64_t sys_mincore(Process* self, TrapFrame*, const Args& args) {
  LockGuard guard(self->mm->lock);
  uint64_t bytes;
  if (const int64_t e = mapped_range(self, args.a[0], args.a[1], &bytes)) return e;
  for (uint64_t done = 0; done < bytes; done += pages::kPageBytes) {
    const uint8_t resident = user_page_kseg(self->space(), args.a[0] + done) != 0;
    if (!copy_to_user(self->space(), args.a[2] + (done >> pages::kPageShift), &resident, 1))
      return error(EFAULT);
  }
  return 0;
}

}  // namespace kernel::sys
