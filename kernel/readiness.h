// What poll, select and epoll ask of a descriptor, and how they wait for
// one: no wait queues per descriptor; a wait re-checks at every scheduler
// tick (10 ms) and at its deadline, and a signal ends it with EINTR.
#pragma once
#include <cstdint>

#include "kernel/clock.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/process.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"

namespace kernel::readiness {

inline constexpr uint32_t kIn = 0x1, kOut = 0x4, kErr = 0x8, kHup = 0x10, kNval = 0x20;
inline constexpr uint64_t kTickCycles = clock::kCyclesPerSecond / 100;

// poll(2)'s events of `fd` now: POLLNVAL for none; files, the console and
// /dev/null are always ready; pipes, sockets, eventfds and timerfds as their
// state says.
uint32_t descriptor_events(Process* self, int32_t fd);

// Calls `check()` (how many are ready, or -errno) until it is not 0 or the
// deadline passes: 0 wait forever (`idle`: nothing to watch, sleep until a
// signal), 1 do not wait, else the cycle it ends at. -EINTR for a signal.
template <typename Check>
int64_t wait(Process* self, uint64_t deadline, bool idle, Check check) {
  for (;;) {
    const int64_t ready = check();
    if (ready != 0 || deadline == 1 || (deadline != 0 && clock::cycles() >= deadline)) return ready;
    IrqLockGuard guard(sched::lock);
    if (signals::interrupted(self)) return -EINTR;
    const uint64_t tick = clock::cycles() + kTickCycles;
    sched::sleep_locked(idle && deadline == 0 ? 0 : deadline && deadline < tick ? deadline : tick);
  }
}

// poll's and epoll_wait's timeout in ms as wait's deadline (negative: forever).
inline uint64_t deadline_in_ms(int64_t ms) {
  return ms < 0    ? 0
         : ms == 0 ? 1
                   : clock::cycles() + static_cast<uint64_t>(ms) * (clock::kCyclesPerSecond / 1000);
}

// ppoll's, pselect6's and epoll_pwait's signal mask: it holds during the
// wait, as rt_sigsuspend's, and a handler the wait ends for runs under it.
struct MaskedWait {
  uint64_t old = 0;
  bool masked = false;
  int64_t begin(Process* self, uint64_t mask_va, uint64_t size) {
    old = self->blocked;
    if (mask_va == 0) return 0;
    uint64_t mask;
    if (size != 8) return -EINVAL;
    if (!copy_from_user(self->space(), &mask, mask_va, 8)) return -EFAULT;
    self->blocked = mask & ~signals::kUnblockable;
    masked = true;
    return 0;
  }
  int64_t end(Process* self, int64_t result) const {
    if (!masked) return result;
    if (result == -EINTR)
      signals::deliver_with_saved_mask(self, old);
    else
      self->blocked = old;
    return result;
  }
};

}  // namespace kernel::readiness
