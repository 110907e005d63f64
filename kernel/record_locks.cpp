#include "kernel/record_locks.h"

#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"

namespace kernel::locks {
namespace {

struct Slot {
  const void* file;  // nullptr: free
  Range range;
};

constexpr uint32_t kSlots = 128;
Slot slots[kSlots];
SpinLock lock;

bool overlap(const Range& a, const Range& b) { return a.start < b.end && b.start < a.end; }

bool conflicts(const Range& held, const Range& wanted) {
  return held.owner != wanted.owner && overlap(held, wanted) &&
         (held.type == kWrite || wanted.type == kWrite);
}

uint32_t free_slots_locked() {
  uint32_t free = 0;
  for (const Slot& s : slots) free += s.file == nullptr;
  return free;
}

Slot* take_slot_locked() {
  for (Slot& s : slots)
    if (s.file == nullptr) return &s;
  return nullptr;
}

// Slots `wanted` needs: one for itself, one more for each own lock it
// splits in two (it lies strictly inside it).
uint32_t slots_needed_locked(const void* file, const Range& wanted) {
  uint32_t needed = wanted.type == kUnlock ? 0 : 1;
  for (const Slot& s : slots)
    if (s.file == file && s.range.owner == wanted.owner && s.range.start < wanted.start &&
        s.range.end > wanted.end)
      ++needed;
  return needed;
}

// Cuts `wanted`'s bytes out of the owner's own locks on `file`.
void carve_locked(const void* file, const Range& wanted) {
  for (Slot& s : slots) {
    if (s.file != file || s.range.owner != wanted.owner || !overlap(s.range, wanted)) continue;
    const bool left = s.range.start<wanted.start, right = s.range.end> wanted.end;
    if (left && right) {
      Slot* tail = take_slot_locked();  // counted by slots_needed_locked
      *tail = Slot{file, Range{s.range.type, wanted.end, s.range.end, s.range.owner}};
      s.range.end = wanted.start;
    } else if (left) {
      s.range.end = wanted.start;
    } else if (right) {
      s.range.start = wanted.end;
    } else {
      s.file = nullptr;
    }
  }
}

}  // namespace

bool find_conflict(const void* file, const Range& wanted, Range* found) {
  IrqLockGuard guard(lock);
  for (const Slot& s : slots)
    if (s.file == file && conflicts(s.range, wanted)) {
      *found = s.range;
      return true;
    }
  return false;
}

int set(const void* file, const Range& wanted) {
  IrqLockGuard guard(lock);
  if (wanted.type != kUnlock)
    for (const Slot& s : slots)
      if (s.file == file && conflicts(s.range, wanted)) return EAGAIN;
  if (slots_needed_locked(file, wanted) > free_slots_locked()) return ENOLCK;
  carve_locked(file, wanted);
  if (wanted.type != kUnlock) *take_slot_locked() = Slot{file, wanted};
  return 0;
}

void release(const void* file, uint32_t owner) {
  IrqLockGuard guard(lock);
  for (Slot& s : slots)
    if (s.file != nullptr && s.range.owner == owner && (file == nullptr || s.file == file))
      s.file = nullptr;
}

}  // namespace kernel::locks
