// A connected stream socket's end (a socketpair's, or a connection that
// connect and accept made: kernel/listeners.h): two pipes crossed, each end
// reading one and writing the other, so read, write, poll, close, EOF and
// EPIPE/SIGPIPE are the pipes' (kernel/pipe.h). shutdown(SHUT_WR) closes
// this end's writing side early (the peer reads end of file); SHUT_RD makes
// its reads return 0. A socket not connected (no pipes yet: unconnected or
// listening) answers as kernel/listeners.h says. No datagrams.
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::socket_end {

// MSG_* flags (Linux's) the calls take.
inline constexpr uint64_t kMsgPeek = 0x2, kMsgDontwait = 0x40, kMsgWaitall = 0x100,
                          kMsgNosignal = 0x4000;

// `flags`: MSG_DONTWAIT, MSG_WAITALL (read until `count` or end of file).
int64_t read(Process* self, OpenFile* end, uint64_t flags, uint64_t buffer, uint64_t count);
// `flags`: MSG_DONTWAIT, MSG_NOSIGNAL.
int64_t write(Process* self, OpenFile* end, uint64_t flags, uint64_t buffer, uint64_t count);
uint32_t poll_events(const OpenFile* end);
// SHUT_RD 0, SHUT_WR 1, SHUT_RDWR 2; 0 or -errno.
int64_t shutdown(OpenFile* end, uint64_t how);
// The last descriptor of the end closed: both pipes let go.
void close(OpenFile* end);

}  // namespace kernel::socket_end
