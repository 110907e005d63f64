#include "kernel/listeners.h"

#include "kernel/files.h"
#include "kernel/futex.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/pipe.h"
#include "kernel/ramfs.h"
#include "kernel/scheduler.h"
#include "kernel/syscall_handlers.h"

namespace kernel::listeners {
namespace {

constexpr uint32_t kModeSocket = 0140000;
constexpr uint32_t kEphemeralFirst = 32768, kEphemeralLast = 60999;  // ip_local_port_range
constexpr uint32_t kLoopback = 0x7f000001;

constexpr uint32_t kSockets = 256;  // a connection takes two (its client's, its server's)
Socket sockets[kSockets];
uint32_t next_ephemeral = kEphemeralFirst;
uint32_t next_autobind;  // AF_UNIX autobind's abstract names: "\0" and 5 hex digits

uint64_t key(const Socket* s) { return reinterpret_cast<uint64_t>(s); }

// AF_INET names: struct sockaddr_in, port and address in network order.
uint32_t port_of(const Name& n) { return static_cast<uint32_t>(n.bytes[2]) << 8 | n.bytes[3]; }
uint32_t address_of(const Name& n) {
  return static_cast<uint32_t>(n.bytes[4]) << 24 | static_cast<uint32_t>(n.bytes[5]) << 16 |
         static_cast<uint32_t>(n.bytes[6]) << 8 | n.bytes[7];
}
Name inet_name(uint32_t address, uint32_t port) {
  Name n{};
  n.length = 16;
  n.bytes[0] = kAfInet;
  n.bytes[2] = static_cast<uint8_t>(port >> 8), n.bytes[3] = static_cast<uint8_t>(port);
  for (int i = 0; i < 4; ++i) n.bytes[4 + i] = static_cast<uint8_t>(address >> (24 - 8 * i));
  return n;
}
bool same_name(const Name& a, const Name& b) {
  if (a.length != b.length) return false;
  for (uint32_t i = 0; i < a.length; ++i)
    if (a.bytes[i] != b.bytes[i]) return false;
  return true;
}
bool loopback(uint32_t address) { return (address >> 24) == 127; }

// An AF_UNIX name's path (sun_path up to its NUL or the name's end); its length.
uint32_t path_of(const Name& name, char (&path)[sys::kMaxPath]) {
  uint32_t length = 0;
  while (2 + length < name.length && name.bytes[2 + length] != 0 && length + 1 < sys::kMaxPath)
    path[length] = static_cast<char>(name.bytes[2 + length]), ++length;
  path[length] = 0;
  return length;
}

// Whether `s` may take AF_INET `name`: no other socket holds its port on
// an overlapping address (INADDR_ANY overlaps all), but those made by
// accept (they share their listener's); SO_REUSEADDR on both lets a port
// be shared while the other does not listen (Linux's rule without
// TIME_WAIT). bind asks, and listen again (of two sharing, one listens).
bool port_free_locked(const Socket* s, const Name& name) {
  for (const Socket& other : sockets) {
    if (&other == s || other.family != kAfInet || other.local.length == 0 || other.accepted)
      continue;
    if (port_of(other.local) != port_of(name)) continue;
    const uint32_t a = address_of(other.local), b = address_of(name);
    if (a != 0 && b != 0 && a != b) continue;
    if (s->reuse_address && other.reuse_address && other.state != Socket::kListening) continue;
    return false;
  }
  return true;
}

// An ephemeral port for `address` (bind to port 0, an unbound socket's
// listen or connect): the next free from 32768 up, round.
int64_t ephemeral_locked(Socket* s, uint32_t address) {
  for (uint32_t tries = 0; tries <= kEphemeralLast - kEphemeralFirst; ++tries) {
    const uint32_t port = next_ephemeral;
    next_ephemeral = port == kEphemeralLast ? kEphemeralFirst : port + 1;
    const Name name = inet_name(address, port);
    if (!port_free_locked(s, name)) continue;
    s->local = name;
    return 0;
  }
  return -EADDRINUSE;
}

// The listener a connect names: an AF_UNIX path's by its node, an abstract
// name or an AF_INET port by the name itself.
Socket* listener_locked(uint32_t family, const ramfs::Node* node, const Name& name) {
  for (Socket& s : sockets) {
    if (s.family != family || s.local.length == 0 || s.state == Socket::kClosed) continue;
    if (family == kAfUnix && node != nullptr && s.node == node && !s.accepted) return &s;
    if (family == kAfUnix && node == nullptr && s.node == nullptr && !s.accepted &&
        same_name(s.local, name))
      return &s;
    if (family == kAfInet && !s.accepted && s.state == Socket::kListening &&
        port_of(s.local) == port_of(name) &&
        (address_of(s.local) == 0 || address_of(s.local) == address_of(name)))
      return &s;
  }
  return nullptr;
}

void free_locked(Socket* s) {
  if (s->sleepers == 0 && s->state == Socket::kClosed) s->family = 0;
}

// The two ends of a connection not yet made: the server's description (its
// own record) and the pipes the client's description will take.
struct Pending {
  OpenFile* server = nullptr;
  Pipe *to_server = nullptr, *to_client = nullptr;
  void release() {  // the client's halves by hand; the server's with its description
    if (server) {
      release_description(server);
      pipe::close_end(to_client, false), pipe::close_end(to_server, true);
    } else {
      if (to_server) pipe::close_end(to_server, true), pipe::close_end(to_server, false);
      if (to_client) pipe::close_end(to_client, true), pipe::close_end(to_client, false);
    }
  }
};

int64_t make_pending(uint32_t family, uint32_t protocol, Pending* p) {
  p->to_server = pipe::create();
  p->to_client = p->to_server ? pipe::create() : nullptr;
  Socket* record = p->to_client ? create(family, protocol) : nullptr;
  if (record != nullptr) {
    OpenFile end{};
    end.kind = OpenFile::kSocket;
    end.flags = LINUX_O_RDWR;
    end.pipe = p->to_server, end.peer = p->to_client;
    end.socket = record;
    p->server = new_description(end);
    if (p->server == nullptr) close(record);
  }
  if (p->server != nullptr) return 0;
  p->release();
  return -ENFILE;
}

}  // namespace

Name unnamed(uint32_t family) {
  Name n{};
  n.length = family == kAfInet ? 16 : 2;
  n.bytes[0] = static_cast<uint8_t>(family);
  return n;
}

Socket* create(uint32_t family, uint32_t protocol) {
  IrqLockGuard guard(sched::lock);
  for (Socket& s : sockets) {
    if (s.family != 0) continue;
    s = Socket{};
    s.family = family;
    s.protocol = protocol;
    return &s;
  }
  return nullptr;
}

void close(Socket* s) {
  OpenFile* queued[kBacklogMax + 1];
  uint32_t n = 0;
  ramfs::Node* node;
  {
    IrqLockGuard guard(sched::lock);
    for (; s->count > 0; --s->count, s->head = (s->head + 1) % (kBacklogMax + 1))
      queued[n++] = s->queue[s->head];
    node = s->node;
    s->node = nullptr;
    s->state = Socket::kClosed;
    futex::wake_all_locked(key(s));  // an accept or connect asleep on it leaves
    free_locked(s);
  }
  for (uint32_t i = 0; i < n; ++i) release_description(queued[i]);
  if (node != nullptr) ramfs::release(node);
}

int64_t bind(Process* self, Socket* s, const Name& name) {
  if (s->family == kAfInet) {
    if (name.length < 16) return -EINVAL;
    if (name.bytes[0] != kAfInet) return -EAFNOSUPPORT;
    const uint32_t address = address_of(name);
    if (address != 0 && !loopback(address)) return -EADDRNOTAVAIL;  // no other interface
    IrqLockGuard guard(sched::lock);
    if (s->local.length != 0) return -EINVAL;
    if (port_of(name) == 0) return ephemeral_locked(s, address);
    if (!port_free_locked(s, name)) return -EADDRINUSE;
    s->local = inet_name(address, port_of(name));
    return 0;
  }
  if (name.length < 2 || name.length > kUnixNameBytes || name.bytes[0] != kAfUnix ||
      name.bytes[1] != 0)
    return -EINVAL;
  Name bound{};
  ramfs::Node* node = nullptr;
  char path[sys::kMaxPath];
  if (name.length == 2) {  // autobind: an abstract name of five hex digits
    bound.length = 8;
    bound.bytes[0] = kAfUnix;
    IrqLockGuard guard(sched::lock);
    const uint32_t number = next_autobind++ & 0xfffff;
    for (int i = 0; i < 5; ++i)
      bound.bytes[3 + i] = "0123456789abcdef"[(number >> (16 - 4 * i)) & 15];
  } else if (name.bytes[2] == 0) {  // abstract: the bytes given, none special
    bound = name;
  } else {  // a path: up to its NUL, made a socket node
    const uint32_t length = path_of(name, path);
    bound.length = 2 + length + 1;  // Linux reports the path with its NUL
    for (uint32_t i = 0; i < bound.length - 1; ++i) bound.bytes[i] = name.bytes[i];
    if (const int64_t e = sys::resolve_in(self->group->cwd, path, sys::kNoFollow); e < 0) return e;
    {
      IrqLockGuard guard(sched::lock);
      if (s->local.length != 0) return -EINVAL;
    }
    const int e = ramfs::make_node(path, kModeSocket | (0777 & ~self->group->umask));
    if (e != 0) return -(e == EEXIST ? EADDRINUSE : e);
    node = ramfs::lookup(path).node;
    if (node == nullptr) return -ENOENT;
    ramfs::hold(node);  // the name stays this socket's until unlinked (or the socket closed)
  }
  int64_t result = 0;
  {
    IrqLockGuard guard(sched::lock);
    if (s->local.length != 0)  // another thread bound it meanwhile
      result = -EINVAL;
    else if (node == nullptr && listener_locked(kAfUnix, nullptr, bound) != nullptr)
      result = -EADDRINUSE;
    else
      s->local = bound, s->node = node;
  }
  if (result < 0 && node != nullptr) {  // the node made goes again, as Linux's
    ramfs::release(node);
    ramfs::remove(path, false);
  }
  return result;
}

int64_t listen(Socket* s, int64_t backlog) {
  IrqLockGuard guard(sched::lock);
  if (s->state != Socket::kOpen && s->state != Socket::kListening) return -EINVAL;
  if (s->local.length == 0) {
    if (s->family == kAfUnix) return -EINVAL;  // Linux: no autobind for a listener
    if (const int64_t e = ephemeral_locked(s, 0); e < 0) return e;
  }
  if (s->family == kAfInet && s->state == Socket::kOpen && !port_free_locked(s, s->local))
    return -EADDRINUSE;  // another socket shares its port (SO_REUSEADDR): only one listens
  s->backlog = backlog < 0             ? 0
               : backlog > kBacklogMax ? kBacklogMax
                                       : static_cast<uint32_t>(backlog);
  s->state = Socket::kListening;
  futex::wake_all_locked(key(s));  // a connect waiting for room may fit now
  return 0;
}

int64_t accept(Process* self, Socket* s, bool nonblocking, OpenFile** connection) {
  IrqLockGuard guard(sched::lock);
  for (;;) {
    if (s->state != Socket::kListening) return -EINVAL;
    if (s->count > 0) {
      *connection = s->queue[s->head];
      s->head = (s->head + 1) % (kBacklogMax + 1);
      --s->count;
      futex::wake_all_locked(key(s));  // a connect waiting for room
      return 0;
    }
    if (nonblocking) return -EAGAIN;
    ++s->sleepers;
    const int64_t woken = futex::sleep_on_locked(self, key(s));
    --s->sleepers;
    if (s->state == Socket::kClosed) {  // closed by another thread meanwhile
      free_locked(s);
      return -EBADF;
    }
    if (woken < 0) return -EINTR;
  }
}

int64_t connect(Process* self, OpenFile* client, const Name& name, bool nonblocking) {
  Socket* s = client->socket;
  // What the name names: an AF_UNIX path's node, or the name itself.
  const ramfs::Node* node = nullptr;
  Name target = name;
  if (s->family == kAfUnix) {
    if (name.length <= 2 || name.length > kUnixNameBytes || name.bytes[0] != kAfUnix ||
        name.bytes[1] != 0)
      return -EINVAL;
    if (name.bytes[2] != 0) {
      char path[sys::kMaxPath];
      path_of(name, path);
      if (const int64_t e = sys::resolve_in(self->group->cwd, path); e < 0) return e;
      const ramfs::Found found = ramfs::lookup(path);
      if (!found.exists) return -ENOENT;
      if (found.node == nullptr || (ramfs::mode(found.node) & 0170000) != kModeSocket)
        return -ECONNREFUSED;
      node = found.node;
    }
  } else {
    if (name.length < 16) return -EINVAL;
    if (name.bytes[0] != kAfInet) return -EAFNOSUPPORT;
    uint32_t address = address_of(name);
    if (address == 0) address = kLoopback;  // Linux: INADDR_ANY is this host
    if (!loopback(address)) return -ENETUNREACH;
    target = inet_name(address, port_of(name));
  }
  {
    IrqLockGuard guard(sched::lock);
    if (s->state == Socket::kConnected) {
      if (!s->in_progress) return -EISCONN;
      s->in_progress = false;  // the connect that said EINPROGRESS is done
      return 0;
    }
    if (s->state == Socket::kListening) return s->family == kAfUnix ? -EINVAL : -EISCONN;
    s->error = 0;
  }
  Pending pending;
  if (const int64_t e = make_pending(s->family, s->protocol, &pending); e < 0) return e;
  int64_t result = 0;
  {
    IrqLockGuard guard(sched::lock);
    for (;;) {
      Socket* l = listener_locked(s->family, node, target);
      if (l == nullptr || l->state != Socket::kListening) {
        result = -ECONNREFUSED;
        break;
      }
      if (s->state != Socket::kOpen) {  // another thread's connect or listen meanwhile
        result = s->family == kAfUnix && s->state == Socket::kListening ? -EINVAL : -EISCONN;
        break;
      }
      if (l->count > l->backlog) {  // full (backlog + 1 wait, as Linux's): wait for an accept
        if (nonblocking) {
          result = -EAGAIN;
          break;
        }
        ++l->sleepers;
        const int64_t woken = futex::sleep_on_locked(self, key(l));
        --l->sleepers;
        free_locked(l);
        if (woken < 0) {
          result = -EINTR;
          break;
        }
        continue;  // the listener is looked up again: it may have gone
      }
      if (s->family == kAfInet) {  // the client's name: 127.0.0.1 and its port
        if (s->local.length == 0 && (result = ephemeral_locked(s, kLoopback)) < 0) break;
        s->local = inet_name(kLoopback, port_of(s->local));
      }
      Socket* server = pending.server->socket;
      server->state = Socket::kConnected;
      server->accepted = true;
      server->local = s->family == kAfInet ? target : l->local;
      server->peer = s->local.length ? s->local : unnamed(kAfUnix);
      s->peer = s->family == kAfInet ? target : l->local;
      s->state = Socket::kConnected;
      client->pipe = pending.to_client, client->peer = pending.to_server;
      l->queue[(l->head + l->count) % (kBacklogMax + 1)] = pending.server;
      ++l->count;
      futex::wake_all_locked(key(l));  // an accept asleep on it
      pending = Pending{};             // handed over
      if (s->family == kAfInet && nonblocking) {
        s->in_progress = true;  // Linux's non-blocking TCP connect never finishes in the call
        result = -EINPROGRESS;
      }
      break;
    }
    // Linux's non-blocking TCP connect learns of the refusal later: SO_ERROR.
    if (result == -ECONNREFUSED && s->family == kAfInet && nonblocking) {
      s->error = ECONNREFUSED;
      result = -EINPROGRESS;
    }
  }
  pending.release();  // a connection not made
  return result;
}

uint32_t poll_events(const Socket* s) {
  constexpr uint32_t kPollIn = 0x1, kPollOut = 0x4, kPollErr = 0x8, kPollHup = 0x10;
  IrqLockGuard guard(sched::lock);
  if (s->state == Socket::kListening) return s->count > 0 ? kPollIn : 0;
  if (s->error != 0) return kPollIn | kPollOut | kPollErr | kPollHup;  // Linux's tcp_poll
  return kPollOut | kPollHup;
}

int64_t unconnected_error(Socket* s, char call) {
  if (const int32_t e = take_error(s)) return -e;
  if (s->family == kAfUnix) return call == 'r' ? -EINVAL : call == 'w' ? -ENOTCONN : 0;
  return call == 'w' ? -EPIPE : -ENOTCONN;
}

int32_t take_error(Socket* s) {
  IrqLockGuard guard(sched::lock);
  const int32_t e = s->error;
  s->error = 0;
  return e;
}

}  // namespace kernel::listeners
