// eventfd (eventfd2, eventfd): a 64-bit counter behind a descriptor, the
// wake-up primitive of event loops (glib, libuv). The counter lives in the
// description (OpenFile::offset), so dup and fork share it as on Linux. A
// read takes the whole count (EFD_SEMAPHORE: one) and sleeps while it is 0;
// a write adds and sleeps while the sum would pass 2^64 - 2; O_NONBLOCK
// gives EAGAIN instead. Under sched::lock, as pipes (kernel/pipe.h).
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::eventfd {

inline constexpr uint64_t kSemaphore = 1;  // EFD_SEMAPHORE

int64_t read(Process* self, OpenFile* file, uint64_t buffer, uint64_t count);
int64_t write(Process* self, OpenFile* file, uint64_t buffer, uint64_t count);
// poll(2) events now: POLLIN while the count is above 0, POLLOUT while 1 more fits.
uint32_t poll_events(const OpenFile* file);

}  // namespace kernel::eventfd
