// Pipes (pipe2): an 8 KB ring in one page, its ends counted; a read of an
// empty pipe sleeps until data or the last writer's close (then 0: end of
// file), a write to a full one until room; a write with no reader left
// raises SIGPIPE and fails with EPIPE. O_NONBLOCK ends give EAGAIN instead of
// sleeping. Everything under sched::lock (copies to and from user memory
// walk the page tables in software: they cannot fault).
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::pipe {

// A new pipe with one reader and one writer; nullptr when out of memory.
Pipe* create();
// `nonblocking`: the end's O_NONBLOCK (or a call's MSG_DONTWAIT); a write's
// `no_sigpipe`: MSG_NOSIGNAL (EPIPE without the signal).
int64_t read(Process* self, Pipe* pipe, bool nonblocking, uint64_t buffer, uint64_t count);
int64_t write(Process* self, Pipe* pipe, bool nonblocking, bool no_sigpipe, uint64_t buffer,
              uint64_t count);
// An open(2) of a FIFO (a named pipe) `name` (its RAM file system node) for
// reading, writing or both: the pipe its opens share while any is open
// (made by the first; its data goes with the last close, as on Linux), one
// end counted for each way. As Linux's fifo_open: a reader waits for a
// writer's open, a writer for a reader's, unless one is open already;
// O_NONBLOCK: a reader does not wait, a writer with no reader is ENXIO;
// both ways never wait. nullptr and *error (ENXIO, EINTR, ENFILE, ENOMEM).
Pipe* open_named(Process* self, const void* name, bool reading, bool writing, bool nonblocking,
                 int* error);
// One end's last descriptor closed; the pipe is freed with its last end.
void close_end(Pipe* pipe, bool writer);
// poll(2) events of one end now: POLLIN (data or no writer left: end of
// file), POLLOUT (room), POLLHUP/POLLERR for a lost peer.
uint32_t poll_events(const Pipe* pipe, bool writer);
// Bytes waiting (FIONREAD, fstat's size).
uint64_t available(const Pipe* pipe);

}  // namespace kernel::pipe
