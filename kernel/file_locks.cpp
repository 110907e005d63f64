#include "kernel/file_locks.h"

#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"

namespace kernel::flocks {
namespace {

struct Slot {
  const void* file;    // nullptr: free
  const void* holder;  // the open file description
  uint64_t type;
};

constexpr uint32_t kSlots = 64;
Slot slots[kSlots];
SpinLock lock;

}  // namespace

int take(const void* file, const void* holder, uint64_t type) {
  IrqLockGuard guard(lock);
  Slot* own = nullptr;
  for (Slot& s : slots) {
    if (s.file != file) continue;
    if (s.holder == holder) {
      own = &s;
      continue;
    }
    if (type == kExclusive || s.type == kExclusive) return EAGAIN;
  }
  if (own == nullptr) {
    for (Slot& s : slots)
      if (s.file == nullptr) own = &s;
    if (own == nullptr) return ENOLCK;
  }
  *own = Slot{file, holder, type};
  return 0;
}

void drop(const void* holder) {
  IrqLockGuard guard(lock);
  for (Slot& s : slots)
    if (s.holder == holder && s.file != nullptr) s = Slot{};
}

}  // namespace kernel::flocks
