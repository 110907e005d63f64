#include "kernel/process_parts.h"

#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/page_alloc.h"
#include "kernel/text.h"

namespace kernel::parts {
namespace {

// What this kernel has: an 8 MB stack at most, 64 descriptors; no other
// bound. Cores as Debian sets them: none unless a process raises the limit.
void default_limits(uint64_t (&limits)[kResourceLimits][2]) {
  for (auto& limit : limits) limit[0] = limit[1] = kRlimInfinity;
  limits[kRlimitCore][0] = 0;
  limits[kRlimitStack][0] = limits[kRlimitStack][1] = kUserStackLimit;
  limits[kRlimitNofile][0] = limits[kRlimitNofile][1] = kMaxFiles;
}

// Processes (not threads: a process's threads share these), fewer than the
// thread slots of kernel/process.cpp.
constexpr uint32_t kSlots = 128;

Mm mms[kSlots];
FdTable fd_tables[kSlots];
ThreadGroup groups[kSlots];
SpinLock lock;  // the pools and every `users` count

// A free slot of `pool` with users = 1 and everything else zeroed.
template <typename T>
T* take(T (&pool)[kSlots]) {
  IrqLockGuard guard(lock);
  for (T& slot : pool) {
    if (slot.users != 0) continue;
    slot = T{};
    slot.users = 1;
    return &slot;
  }
  return nullptr;
}

void hold(uint32_t& users) {
  IrqLockGuard guard(lock);
  ++users;
}

// True for the last user.
bool drop(uint32_t& users) {
  IrqLockGuard guard(lock);
  return --users == 0;
}

}  // namespace

Mm* mm_create() {
  Mm* mm = take(mms);
  if (mm != nullptr && !address_space_create(mm->space)) {
    mm->users = 0;
    return nullptr;
  }
  return mm;
}

Mm* mm_copy(Mm* from) {
  Mm* mm = mm_create();
  if (mm == nullptr) return nullptr;
  LockGuard guard(from->lock);
  mm->brk_start = from->brk_start;
  mm->brk = from->brk;
  mm->mmap_next = from->mmap_next;
  if (!address_space_copy(from->space, mm->space)) {
    mm_release(mm);
    return nullptr;
  }
  return mm;
}

void mm_hold(Mm* mm) { hold(mm->users); }

void mm_release(Mm* mm) {
  if (mm == nullptr) return;
  // The space is destroyed outside the pool lock; the slot is free (users
  // 0) only afterwards, so nobody takes it half destroyed.
  bool last;
  {
    IrqLockGuard guard(lock);
    last = mm->users == 1;
    if (!last) --mm->users;
  }
  if (!last) return;
  address_space_destroy(mm->space);
  IrqLockGuard guard(lock);
  mm->users = 0;
}

// fds 0-2: the console, 0 and 1 one description (stdout's stream), 2 its
// own (stderr's), as a program's under `dcpi run > out 2> err` has them:
// dcpi run echoes the two streams apart (firmware/console_marks.h).
FdTable* fds_create() {
  FdTable* fds = take(fd_tables);
  if (fds == nullptr) return nullptr;
  OpenFile console{};
  console.kind = OpenFile::kConsole;
  console.flags = 2;  // O_RDWR
  console.console_stream = ConsoleStream::kOutput;
  OpenFile* output = new_description(console);
  console.console_stream = ConsoleStream::kError;
  OpenFile* error = output ? new_description(console) : nullptr;
  if (error == nullptr) {
    if (output) release_description(output);
    fds->users = 0;
    return nullptr;
  }
  fds->files[0] = fds->files[1] = output;
  hold_description(output);
  fds->files[2] = error;
  return fds;
}

FdTable* fds_copy(FdTable* from) {
  FdTable* fds = take(fd_tables);
  if (fds == nullptr) return nullptr;
  LockGuard guard(from->lock);
  for (uint32_t fd = 0; fd < kMaxFiles; ++fd) {
    fds->files[fd] = from->files[fd];
    if (fds->files[fd] != nullptr) hold_description(fds->files[fd]);
  }
  fds->cloexec = from->cloexec;
  return fds;
}

void fds_hold(FdTable* fds) { hold(fds->users); }
void fds_release(FdTable* fds) {
  if (fds == nullptr) return;
  {
    IrqLockGuard guard(lock);
    if (fds->users > 1) {
      --fds->users;
      return;
    }
  }
  close_all(fds);  // the slot is still ours (users 1) until here
  IrqLockGuard guard(lock);
  fds->users = 0;
}

ThreadGroup* group_create() {
  ThreadGroup* group = take(groups);
  if (group != nullptr) {
    group->threads = 1;
    group->umask = 022;  // Linux's init starts with 0022
    group->dumpable = 1;
    default_limits(group->limits);
  }
  return group;
}

ThreadGroup* group_copy(const ThreadGroup* from) {
  ThreadGroup* group = group_create();
  if (group == nullptr) return nullptr;
  for (uint32_t i = 0; i < kSignals; ++i) group->actions[i] = from->actions[i];
  copy_name(group->cwd, sizeof group->cwd, from->cwd);
  group->umask = from->umask;
  group->pgid = from->pgid;
  group->sid = from->sid;
  for (uint32_t i = 0; i < kResourceLimits; ++i)
    for (uint32_t j = 0; j < 2; ++j) group->limits[i][j] = from->limits[i][j];
  return group;
}

void group_hold(ThreadGroup* group) { hold(group->users); }
void group_release(ThreadGroup* group) {
  if (group != nullptr) drop(group->users);
}

}  // namespace kernel::parts
