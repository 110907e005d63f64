#include "kernel/eventfd.h"

#include "kernel/futex.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/scheduler.h"

namespace kernel::eventfd {
namespace {

constexpr uint64_t kMax = ~uint64_t{0} - 1;  // the largest count
constexpr uint32_t kONonblock = 04;          // Linux/Alpha's O_NONBLOCK
constexpr uint32_t kPollIn = 0x1, kPollOut = 0x4;

uint64_t key(const OpenFile* file) { return reinterpret_cast<uint64_t>(file); }

}  // namespace

int64_t read(Process* self, OpenFile* file, uint64_t buffer, uint64_t count) {
  if (count < 8) return -EINVAL;
  IrqLockGuard guard(sched::lock);
  while (file->offset == 0) {
    if (file->flags & kONonblock) return -EAGAIN;
    if (futex::sleep_on_locked(self, key(file)) < 0) return -EINTR;
  }
  const uint64_t value = file->semaphore ? 1 : file->offset;
  if (!copy_to_user(self->space(), buffer, &value, 8)) return -EFAULT;
  file->offset -= value;
  futex::wake_all_locked(key(file));  // writers waiting for room
  return 8;
}

int64_t write(Process* self, OpenFile* file, uint64_t buffer, uint64_t count) {
  if (count < 8) return -EINVAL;
  uint64_t value;
  if (!copy_from_user(self->space(), &value, buffer, 8)) return -EFAULT;
  if (value == ~uint64_t{0}) return -EINVAL;
  IrqLockGuard guard(sched::lock);
  while (kMax - file->offset < value) {
    if (file->flags & kONonblock) return -EAGAIN;
    if (futex::sleep_on_locked(self, key(file)) < 0) return -EINTR;
  }
  file->offset += value;
  if (value) futex::wake_all_locked(key(file));  // readers waiting for a count
  return 8;
}

uint32_t poll_events(const OpenFile* file) {
  IrqLockGuard guard(sched::lock);
  return (file->offset > 0 ? kPollIn : 0) | (file->offset < kMax ? kPollOut : 0);
}

}  // namespace kernel::eventfd
