// timerfd (timerfd_create, timerfd_settime, timerfd_gettime): a timer read
// as a descriptor, the timeout source of epoll-based event loops. Virtual
// time, as every clock here; a read takes the expirations since the last
// one (waiting while there are none), poll and epoll see them. Expiry is
// noticed at the scheduler's tick after the deadline, as every sleep here
// ends (kernel/README.md). The state lives in the description.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::timerfd {

// Arms (value != 0: the first expiry in `value` cycles, then every
// `interval`) or disarms the timer; the pending expirations go. The old
// setting (cycles left, interval) into *old_value, *old_interval.
void set(OpenFile* timer, uint64_t value, uint64_t interval, uint64_t* old_value,
         uint64_t* old_interval);
void get(OpenFile* timer, uint64_t* value, uint64_t* interval);
int64_t read(Process* self, OpenFile* timer, uint64_t buffer, uint64_t count);
uint32_t poll_events(OpenFile* timer);

}  // namespace kernel::timerfd
