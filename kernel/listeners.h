// Stream sockets with names (socket, bind, listen, accept, connect): each
// socket(2) has a record here with its names, options and, once listening,
// the queue of connections made to it and not yet accepted. A connection is
// a socketpair's two ends (kernel/socket_end.h): connect makes the pair, the
// client's description becomes one end at once and the other waits in the
// listener's queue for accept, as Linux's client is connected as soon as
// its connection fits the backlog. Names: AF_UNIX paths (a socket node in
// the RAM file system, held while bound, so a second bind says EADDRINUSE
// until it is unlinked), AF_UNIX abstract names (a leading '\0': in this
// table only) and AF_INET ports on 127.0.0.0/8 or INADDR_ANY (there is no
// other interface). Records, names and queues change under sched::lock;
// accept and a connect to a full backlog sleep on the listener's record as
// a pipe's reader sleeps on the pipe (kernel/futex.h).
#pragma once
#include <cstdint>

#include "kernel/process.h"

namespace kernel::listeners {

// Linux/Alpha's socket ABI: families, SOCK_STREAM and socket()'s flags
// (SOCK_NONBLOCK is Alpha's own), IPPROTO_TCP.
inline constexpr uint32_t kAfUnix = 1, kAfInet = 2;
inline constexpr uint64_t kSockStream = 1, kSockNonblock = 0x40000000, kSockCloexec = 010000000;
inline constexpr uint32_t kIpprotoTcp = 6;
inline constexpr uint32_t kNameBytes = 128;      // sizeof(struct sockaddr_storage): any name
inline constexpr uint32_t kUnixNameBytes = 110;  // sizeof(struct sockaddr_un)
inline constexpr uint32_t kBacklogMax = 64;  // listen's backlog is cut to this (Linux: somaxconn)

// A struct sockaddr as getsockname reports it.
struct Name {
  uint32_t length;  // 0: none yet
  uint8_t bytes[kNameBytes];
};

struct Socket {
  uint32_t family;  // 0: a free record
  enum State : uint32_t { kOpen, kListening, kConnected, kClosed } state;
  uint32_t protocol;   // SO_PROTOCOL: 0 (AF_UNIX) or IPPROTO_TCP
  int32_t error;       // SO_ERROR: a refused non-blocking AF_INET connect's, until read
  bool accepted;       // made by accept: it shares the listener's port
  bool in_progress;    // a non-blocking AF_INET connect said EINPROGRESS (the next says 0)
  bool reuse_address;  // SO_REUSEADDR
  bool keep_alive;     // SO_KEEPALIVE (kept, no effect)
  bool no_delay;       // TCP_NODELAY (kept: data is never held back here)
  uint32_t sleepers;   // accepts and connects asleep on it (the record outlives close)
  Name local, peer;    // bound or given name; the peer's once connected
  ramfs::Node* node;   // an AF_UNIX path's socket node, held while bound
  uint32_t backlog;    // listen's, at most kBacklogMax: backlog + 1 may wait, as Linux's
  OpenFile* queue[kBacklogMax + 1];  // connections not yet accepted (one reference each)
  uint32_t head, count;
};

// An unbound socket's name: AF_UNIX's family alone (length 2, a
// socketpair's ends' too), AF_INET's 0.0.0.0 port 0.
Name unnamed(uint32_t family);

// A new record for socket(2); nullptr when every record is in use.
Socket* create(uint32_t family, uint32_t protocol);
// The socket's last description closed: its name goes (an AF_UNIX path's
// node stays in the file system, as on Linux), connections still queued
// are closed (their clients read end of file), sleepers wake.
void close(Socket* socket);

// bind(2) with the name the program passed (`name.length` as it said): 0 or
// -errno (EINVAL, EADDRINUSE, EADDRNOTAVAIL, EAFNOSUPPORT, ENOENT, ...).
int64_t bind(Process* self, Socket* socket, const Name& name);
// listen(2): 0 or -EINVAL (connected; an unbound AF_UNIX socket), or
// -EADDRINUSE (AF_INET: another socket shares the port). An unbound AF_INET
// socket gets an ephemeral port, as Linux's.
int64_t listen(Socket* socket, int64_t backlog);
// A queued connection's description (one reference handed over) into
// *connection: 0, -EINVAL (not listening), -EAGAIN (`nonblocking`), -EINTR.
int64_t accept(Process* self, Socket* socket, bool nonblocking, OpenFile** connection);
// connect(2) of `client` (a description of a socket record) to `name`: 0,
// -EINPROGRESS (AF_INET, `nonblocking`: connected nonetheless) or -errno
// (ECONNREFUSED, ENOENT, EISCONN, EAGAIN with a full backlog and
// `nonblocking`, EINTR, ENETUNREACH, ENFILE).
int64_t connect(Process* self, OpenFile* client, const Name& name, bool nonblocking);

// poll(2) events of a socket that is not connected: a listener is POLLIN
// while a connection waits; an unconnected one POLLOUT | POLLHUP, a refused
// one POLLIN | POLLOUT | POLLERR | POLLHUP.
uint32_t poll_events(const Socket* socket);
// What read, write and shutdown say on a socket that is not connected: a
// pending SO_ERROR first (taken); AF_UNIX: read EINVAL, write ENOTCONN,
// shutdown 0; AF_INET: read ENOTCONN, write EPIPE, shutdown ENOTCONN.
int64_t unconnected_error(Socket* socket, char call);
// SO_ERROR: the pending error, cleared.
int32_t take_error(Socket* socket);

}  // namespace kernel::listeners
