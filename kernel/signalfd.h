// signalfd (signalfd4, signalfd): the signals of a mask read from a
// descriptor as records instead of run as handlers, the signal source of
// event loops (systemd, libuv). The mask lives in the description
// (OpenFile::signal_mask); the signals are the reader's, as on Linux: a
// read takes what is pending for the reading thread (its own first, then
// its process's), as sigwaitinfo does, so the signals must be blocked to
// stay pending. After a fork the child's descriptor reads the child's.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::signalfd {

inline constexpr uint64_t kRecordBytes = 128;  // struct signalfd_siginfo

// read(2): a record per pending signal of the mask, as many as fit in
// `count` bytes, taken off as they are read; waits for the first unless
// O_NONBLOCK (EAGAIN), EINTR for a signal to handle meanwhile, EINVAL for
// fewer than 128 bytes.
int64_t read(Process* self, OpenFile* file, uint64_t buffer, uint64_t count);
// poll(2) events for the polling thread now: POLLIN while a signal of the
// mask is pending for it.
uint32_t poll_events(const Process* self, const OpenFile* file);

}  // namespace kernel::signalfd
