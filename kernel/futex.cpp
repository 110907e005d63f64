#include "kernel/futex.h"

#include "kernel/clock.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/page_alloc.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/udiv.h"

namespace kernel::futex {
namespace {

// linux/futex.h
constexpr uint64_t kWait = 0, kWake = 1, kRequeue = 3, kCmpRequeue = 4, kWaitBitset = 9,
                   kWakeBitset = 10;
constexpr uint64_t kPrivateFlag = 128, kClockRealtime = 256;
constexpr uint32_t kBitsetAll = 0xffffffff;

// The word's physical address (the key), and its KSEG address; 0 if the
// address is unaligned or not readable.
uint64_t key_of(Process* self, uint64_t uaddr, uint64_t* kseg) {
  if (uaddr & 3) return 0;
  *kseg = touch_user(self->space(), uaddr, false);  // a demand-zero word reads 0
  return *kseg ? pages::kseg_to_phys(*kseg) : 0;
}

// A struct timespec at `va` as a deadline in cycles (relative to now unless
// `absolute`: then on the clock the caller names, converted by it). 0 = none.
int64_t deadline_of(Process* self, uint64_t va, bool absolute, uint64_t* deadline) {
  *deadline = 0;
  if (va == 0) return 0;
  int64_t ts[2];
  if (!copy_from_user(self->space(), ts, va, sizeof ts)) return -EFAULT;
  if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1'000'000'000) return -EINVAL;
  const uint64_t cycles =
      static_cast<uint64_t>(ts[0]) * clock::kCyclesPerSecond +
      udiv(static_cast<uint64_t>(ts[1]), 1'000'000'000 / clock::kCyclesPerSecond);
  *deadline = (absolute ? 0 : clock::cycles()) + cycles;
  if (*deadline == 0) *deadline = 1;
  return 0;
}

int64_t wake_locked(uint64_t key, uint64_t count, uint32_t bitset) {
  int64_t woken = 0;
  for (uint32_t i = 0; i < process_slot_count() && static_cast<uint64_t>(woken) < count; ++i) {
    Process* p = &process_slots()[i];
    if (p->state != ProcessState::kBlocked || p->futex_key != key || !(p->futex_bitset & bitset))
      continue;
    p->futex_key = 0;
    sched::make_ready_locked(p);
    ++woken;
  }
  return woken;
}

int64_t wait(Process* self, uint64_t uaddr, uint32_t value, uint64_t deadline, uint32_t bitset) {
  if (bitset == 0) return -EINVAL;
  uint64_t kseg = 0;
  IrqLockGuard guard(sched::lock);
  const uint64_t key = key_of(self, uaddr, &kseg);
  if (key == 0) return -EFAULT;
  // Compared under the lock every waker takes after changing the word: no
  // wake between this test and the sleep is lost.
  if (*reinterpret_cast<volatile uint32_t*>(kseg) != value) return -EAGAIN;
  if (signals::interrupted(self)) return -EINTR;
  if (deadline != 0 && clock::cycles() >= deadline) return -ETIMEDOUT;
  self->futex_key = key;
  self->futex_bitset = bitset;
  sched::sleep_locked(deadline);
  if (self->futex_key == 0) return 0;  // woken by a FUTEX_WAKE
  self->futex_key = 0;
  if (deadline != 0 && clock::cycles() >= deadline) return -ETIMEDOUT;
  return -EINTR;  // a signal, or the process is exiting
}

int64_t requeue(Process* self, uint64_t uaddr, uint64_t wake_count, uint64_t move_count,
                uint64_t uaddr2, const uint32_t* expected) {
  uint64_t kseg = 0, kseg2 = 0;
  IrqLockGuard guard(sched::lock);
  const uint64_t key = key_of(self, uaddr, &kseg), key2 = key_of(self, uaddr2, &kseg2);
  if (key == 0 || key2 == 0) return -EFAULT;
  if (expected && *reinterpret_cast<volatile uint32_t*>(kseg) != *expected) return -EAGAIN;
  int64_t done = wake_locked(key, wake_count, kBitsetAll);
  for (uint32_t i = 0; i < process_slot_count() && move_count > 0; ++i) {
    Process* p = &process_slots()[i];
    if (p->state != ProcessState::kBlocked || p->futex_key != key) continue;
    p->futex_key = key2;
    --move_count;
    ++done;
  }
  return done;
}

}  // namespace

int64_t wake(Process* self, uint64_t uaddr, uint64_t count) {
  uint64_t kseg = 0;
  IrqLockGuard guard(sched::lock);
  const uint64_t key = key_of(self, uaddr, &kseg);
  return key ? wake_locked(key, count, kBitsetAll) : -EFAULT;
}

int64_t sleep_on_locked(Process* self, uint64_t key) {
  if (signals::interrupted(self)) return -EINTR;
  self->futex_key = key;
  self->futex_bitset = kBitsetAll;
  sched::sleep_locked(0);
  if (self->futex_key == 0) return 0;
  self->futex_key = 0;
  return -EINTR;
}

void wake_all_locked(uint64_t key) { wake_locked(key, ~uint64_t{0}, kBitsetAll); }

int64_t call(Process* self, uint64_t uaddr, uint64_t op, uint64_t val, uint64_t timeout,
             uint64_t uaddr2, uint64_t val3) {
  if (uaddr & 3) return -EINVAL;  // as Linux: the word must be aligned
  const uint64_t command = op & ~(kPrivateFlag | kClockRealtime);
  const auto value = static_cast<uint32_t>(val);
  uint64_t deadline = 0;
  switch (command) {
    case kWait:
      if (const int64_t e = deadline_of(self, timeout, false, &deadline); e < 0) return e;
      return wait(self, uaddr, value, deadline, kBitsetAll);
    case kWaitBitset:
      if (const int64_t e = deadline_of(self, timeout, true, &deadline); e < 0) return e;
      // FUTEX_CLOCK_REALTIME: glibc's pthread_cond_timedwait, sem_timedwait
      // and the timed locks pass a wall-clock time.
      if (deadline != 0 && (op & kClockRealtime))
        deadline = clock::boot_cycles_of_realtime(deadline);
      return wait(self, uaddr, value, deadline, static_cast<uint32_t>(val3));
    case kWake:
      return wake(self, uaddr, value);
    case kWakeBitset: {
      if (static_cast<uint32_t>(val3) == 0) return -EINVAL;
      uint64_t kseg = 0;
      IrqLockGuard guard(sched::lock);
      const uint64_t key = key_of(self, uaddr, &kseg);
      return key ? wake_locked(key, value, static_cast<uint32_t>(val3)) : -EFAULT;
    }
    case kRequeue:
      return requeue(self, uaddr, value, timeout, uaddr2, nullptr);
    case kCmpRequeue: {
      const auto expected = static_cast<uint32_t>(val3);
      return requeue(self, uaddr, value, timeout, uaddr2, &expected);
    }
    default:
      return -ENOSYS;  // WAKE_OP and the PI operations: not used by glibc's defaults
  }
}

}  // namespace kernel::futex
