// A spin lock held at IPL 7: the holder cannot be interrupted (so neither
// preempted nor re-entered by a handler on its own CPU). Every lock that is
// taken from interrupt or scheduler context is one of these.
#pragma once
#include <cstdint>

#include "firmware/pal_abi.h"
#include "kernel/palcalls.h"
#include "kernel/spinlock.h"

namespace kernel {

// Always inlined: an out-of-line copy (GCC emits one, as the weak aliases
// ~IrqLockGuard D1 and D2, once enough callers use it) gives the reports two
// procedures of one name.
class IrqLockGuard {
 public:
  __attribute__((always_inline)) explicit IrqLockGuard(SpinLock& lock)
      : lock_(lock), ipl_(pal::swpipl(IPL_HIGH)) {
    lock_.lock();
  }
  __attribute__((always_inline)) ~IrqLockGuard() {
    lock_.unlock();
    pal::swpipl(ipl_);
  }
  IrqLockGuard(const IrqLockGuard&) = delete;
  IrqLockGuard& operator=(const IrqLockGuard&) = delete;

 private:
  SpinLock& lock_;
  uint64_t ipl_;
};

}  // namespace kernel
