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

// The kernel-memory halves of write and read, for the calls that copy
// between descriptors (kernel/sys_copy.cpp): waiting is apart from moving
// bytes, so no caller sleeps holding bytes in a kernel buffer.
//
// Waits for room as write does: the room now (> 0), or -EPIPE (no reader
// left; SIGPIPE unless `no_sigpipe`), -EAGAIN (`nonblocking`), -EINTR.
int64_t wait_room(Process* self, Pipe* pipe, bool nonblocking, bool no_sigpipe);
// Copies in up to `count` bytes of kernel memory, as many as there is room
// for now, never sleeping: the number, or -EPIPE (as wait_room) when no
// reader is left.
int64_t put(Process* self, Pipe* pipe, const void* from, uint64_t count, bool no_sigpipe);
// Waits for data as read does: the bytes waiting (> 0), 0 at end of file
// (no writer left), or -EAGAIN (`nonblocking`), -EINTR.
int64_t wait_data(Process* self, Pipe* pipe, bool nonblocking);
// Takes out up to `count` waiting bytes into kernel memory, never sleeping:
// the number.
uint64_t take(Pipe* pipe, void* to, uint64_t count);
// splice(2) between two pipes, and tee(2) (`keep`: the bytes stay in
// `from` too): waits for data in `from` and room in `to` (Linux's
// ipipe_prep, opipe_prep), then copies as much as both allow, up to
// `count`: the number, 0 at `from`'s end of file, -EPIPE (SIGPIPE) with no
// reader of `to`, -EAGAIN (`nonblocking`), -EINTR.
int64_t move(Process* self, Pipe* from, Pipe* to, uint64_t count, bool nonblocking, bool keep);

}  // namespace kernel::pipe
