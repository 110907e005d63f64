// Futexes (futex(2)) as glibc's NPTL uses them: WAIT, WAKE, REQUEUE,
// CMP_REQUEUE, WAIT_BITSET and WAKE_BITSET, private or not, with relative
// or absolute timeouts. A waiter is keyed by the physical address of its
// word, so private futexes (one address space) and shared ones (across
// fork) work alike; it sleeps in the scheduler (sched::sleep_locked) with
// the key in Process::futex_key until a wake clears it.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::futex {

// futex(uaddr, op, val, timeout, uaddr2, val3): the call's result or -errno.
int64_t call(Process* self, uint64_t uaddr, uint64_t op, uint64_t val, uint64_t timeout,
             uint64_t uaddr2, uint64_t val3);

// Wakes up to `count` waiters on `uaddr` of self's address space; how many.
int64_t wake(Process* self, uint64_t uaddr, uint64_t count);

// Sleeping on a kernel object (a pipe): `key` is its KSEG address, which
// no futex key (a physical address) can equal. With sched::lock held;
// 0 when woken, -EINTR when a signal came first.
int64_t sleep_on_locked(Process* self, uint64_t key);
void wake_all_locked(uint64_t key);

}  // namespace kernel::futex
