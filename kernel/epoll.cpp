#include "kernel/epoll.h"

#include "kernel/files.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/readiness.h"
#include "kernel/spinlock.h"

namespace kernel::epoll {
namespace {

constexpr uint32_t kSets = 32;
constexpr uint64_t kCtlAdd = 1, kCtlDel = 2, kCtlMod = 3;
// Reported whether asked or not; the flags that are not events.
constexpr uint32_t kAlways = readiness::kErr | readiness::kHup;
constexpr uint32_t kEdge = 1u << 31, kOneShot = 1u << 30,
                   kFlags = kEdge | kOneShot | (1u << 29) | (1u << 28);

constexpr Entry kFree{-1, nullptr, 0, 0, false, false};

Set sets[kSets];
uint32_t live_sets;  // forget has nothing to do while no set is in use
SpinLock lock;       // the pool, every set's entries and live_sets

Entry* find(Set* set, int32_t fd, const OpenFile* file) {
  for (Entry& e : set->entries)
    if (e.fd == fd && e.file == file) return &e;
  return nullptr;
}

}  // namespace

Set* create() {
  IrqLockGuard guard(lock);
  for (Set& set : sets) {
    if (set.users != 0) continue;
    set.users = 1;
    ++live_sets;
    for (Entry& e : set.entries) e = kFree;
    return &set;
  }
  return nullptr;
}

void release(Set* set) {
  IrqLockGuard guard(lock);
  if (--set->users == 0) --live_sets;
}

void forget(const OpenFile* file) {
  IrqLockGuard guard(lock);
  if (live_sets == 0) return;
  for (Set& set : sets) {
    if (set.users == 0) continue;
    for (Entry& e : set.entries)
      if (e.file == file) e = kFree;
  }
}

int control(Set* set, uint64_t op, int32_t fd, const OpenFile* file, uint32_t events,
            uint64_t data) {
  IrqLockGuard guard(lock);
  Entry* entry = find(set, fd, file);
  if (op == kCtlDel) {
    if (entry == nullptr) return ENOENT;
    *entry = kFree;
    return 0;
  }
  if (op != kCtlAdd && op != kCtlMod) return EINVAL;
  if ((op == kCtlAdd) != (entry == nullptr)) return op == kCtlAdd ? EEXIST : ENOENT;
  if (entry == nullptr) entry = find(set, -1, nullptr);
  if (entry == nullptr) return ENOSPC;
  *entry = Entry{fd, file, events, data, false, false};
  return 0;
}

uint64_t collect(Process* self, Set* set, Ready* out, uint64_t max) {
  Entry entries[kEntries];
  {
    IrqLockGuard guard(lock);
    for (uint32_t i = 0; i < kEntries; ++i) entries[i] = set->entries[i];
  }
  uint64_t count = 0;
  for (uint32_t i = 0; i < kEntries && count < max; ++i) {
    Entry& e = entries[i];
    if (e.fd < 0 || e.disarmed) continue;
    if (file_at(self->fds, static_cast<uint64_t>(e.fd)) != e.file) continue;  // closed: gone
    const uint32_t now =
        readiness::descriptor_events(self, e.fd) & ((e.events & ~kFlags) | kAlways);
    const bool reported = e.reported;
    e.reported = now != 0;
    if (now == 0 || ((e.events & kEdge) && reported)) continue;
    if (e.events & kOneShot) e.disarmed = true;
    out[count++] = Ready{now, e.data};
  }
  IrqLockGuard guard(lock);
  for (uint32_t i = 0; i < kEntries; ++i) {  // an entry changed meanwhile keeps its change
    Entry& live = set->entries[i];
    if (live.fd == entries[i].fd && live.file == entries[i].file &&
        live.events == entries[i].events && live.data == entries[i].data) {
      live.reported = entries[i].reported;
      live.disarmed = entries[i].disarmed;
    }
  }
  return count;
}

}  // namespace kernel::epoll
