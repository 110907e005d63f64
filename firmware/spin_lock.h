// A test-and-set spin lock (ldq_l/stq_c through the GCC atomics), the one
// lock primitive of the guest: the kernel (kernel/spinlock.h, kernel/
// irq_lock.h) and the driver's daemon both use it. Inline, so that taking
// it costs the same few instructions wherever it is used. Guest only.
#pragma once
#include <cstdint>

namespace dcpi {

class SpinLock {
 public:
  void lock() {
    while (__atomic_exchange_n(&held_, 1, __ATOMIC_ACQUIRE) != 0) {
      while (__atomic_load_n(&held_, __ATOMIC_RELAXED) != 0) {
      }
    }
  }
  void unlock() { __atomic_store_n(&held_, 0, __ATOMIC_RELEASE); }

 private:
  uint64_t held_ = 0;
};

class LockGuard {
 public:
  explicit LockGuard(SpinLock& lock) : lock_(lock) { lock_.lock(); }
  ~LockGuard() { lock_.unlock(); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  SpinLock& lock_;
};

}  // namespace dcpi
