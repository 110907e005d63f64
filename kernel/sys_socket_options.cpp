// setsockopt and getsockopt: the options programs set on stream sockets
// before they bind, listen or connect. SOL_SOCKET (0xffff on Alpha, and
// Alpha's own SO_* numbers, asm/socket.h): SO_REUSEADDR (kept: two
// non-listening sockets that both set it may share a port), SO_KEEPALIVE
// and TCP_NODELAY (kept, reported; no effect: nothing is held back or
// probed here), SO_REUSEPORT, SO_SNDBUF, SO_RCVBUF, SO_LINGER and
// SO_OOBINLINE accepted and without effect (the buffers are the 8 KB pipes;
// a close never waits); read only: SO_TYPE, SO_ERROR (a refused
// non-blocking connect's, then 0), SO_ACCEPTCONN, SO_DOMAIN, SO_PROTOCOL.
// Anything else is ENOPROTOOPT (so SO_RCVTIMEO and SO_SNDTIMEO are refused,
// not silently ignored); options of another level EOPNOTSUPP on AF_UNIX,
// as Linux's.
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/listeners.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

using listeners::kIpprotoTcp;
constexpr uint64_t kSolSocket = 0xffff, kTcpNodelay = 1;
constexpr uint64_t kSoReuseaddr = 0x4, kSoKeepalive = 0x8, kSoLinger = 0x80, kSoOobinline = 0x100,
                   kSoReuseport = 0x200, kSoSndbuf = 0x1001, kSoRcvbuf = 0x1002, kSoError = 0x1007,
                   kSoType = 0x1008, kSoAcceptconn = 0x1014, kSoProtocol = 0x1028,
                   kSoDomain = 0x1029;  // Linux/Alpha's asm/socket.h
constexpr int32_t kBufferBytes = 8192;  // a pipe's ring (kernel/pipe.cpp)

// The flag an option keeps in the record, or nullptr if it keeps none.
bool* kept_flag(listeners::Socket* s, uint64_t level, uint64_t option) {
  if (s == nullptr) return nullptr;
  if (level == kIpprotoTcp) return option == kTcpNodelay ? &s->no_delay : nullptr;
  return option == kSoReuseaddr   ? &s->reuse_address
         : option == kSoKeepalive ? &s->keep_alive
                                  : nullptr;
}

// Whether the level is one the socket answers: 0, or -EOPNOTSUPP (AF_UNIX
// has only SOL_SOCKET) / -ENOPROTOOPT (AF_INET's other levels).
int64_t level_check(const listeners::Socket* s, uint64_t level) {
  if (level == kSolSocket) return 0;
  const bool inet = s != nullptr && s->family == listeners::kAfInet;
  if (!inet) return error(EOPNOTSUPP);
  return level == kIpprotoTcp ? 0 : error(ENOPROTOOPT);
}

}  // namespace

// setsockopt(fd, level, name, value, length).
int64_t sys_setsockopt(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = file_of_kind(self->fds, args.a[0], OpenFile::kSocket, ENOTSOCK, &e);
  if (f == nullptr) return e;
  const uint64_t level = args.a[1], option = args.a[2];
  if (const int64_t r = level_check(f->socket, level); r < 0) return r;
  const bool known = level == kIpprotoTcp
                         ? option == kTcpNodelay
                         : option == kSoReuseaddr || option == kSoKeepalive ||
                               option == kSoLinger || option == kSoOobinline ||
                               option == kSoReuseport || option == kSoSndbuf || option == kSoRcvbuf;
  if (!known) return error(ENOPROTOOPT);
  const uint64_t least = option == kSoLinger && level == kSolSocket ? 8 : 4;  // struct linger
  if (static_cast<int32_t>(args.a[4]) < 0 || args.a[4] < least) return error(EINVAL);
  int32_t value;
  if (!copy_from_user(self->space(), &value, args.a[3], sizeof value)) return error(EFAULT);
  if (bool* flag = kept_flag(f->socket, level, option)) *flag = value != 0;
  return 0;
}

// getsockopt(fd, level, name, value, &length): an int (SO_LINGER: struct
// linger, off), as much as *length takes, *length set to what was written.
int64_t sys_getsockopt(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = file_of_kind(self->fds, args.a[0], OpenFile::kSocket, ENOTSOCK, &e);
  if (f == nullptr) return e;
  const uint64_t level = args.a[1], option = args.a[2];
  if (const int64_t r = level_check(f->socket, level); r < 0) return r;
  listeners::Socket* s = f->socket;  // nullptr: a socketpair's end
  int32_t value[2] = {0, 0};
  uint32_t size = 4;
  if (bool* flag = kept_flag(s, level, option)) {
    value[0] = *flag;
  } else if (level == kIpprotoTcp) {
    return error(ENOPROTOOPT);
  } else if (option == kSoType) {
    value[0] = 1;  // SOCK_STREAM
  } else if (option == kSoError) {
    value[0] = s ? listeners::take_error(s) : 0;
  } else if (option == kSoAcceptconn) {
    value[0] = s && s->state == listeners::Socket::kListening;
  } else if (option == kSoDomain) {
    value[0] = static_cast<int32_t>(s ? s->family : listeners::kAfUnix);
  } else if (option == kSoProtocol) {
    value[0] = static_cast<int32_t>(s ? s->protocol : 0);
  } else if (option == kSoSndbuf || option == kSoRcvbuf) {
    value[0] = kBufferBytes;
  } else if (option == kSoLinger) {
    size = 8;
  } else if (option == kSoReuseaddr || option == kSoKeepalive || option == kSoReuseport ||
             option == kSoOobinline) {
    value[0] = 0;  // a socketpair's end keeps none
  } else {
    return error(ENOPROTOOPT);
  }
  int32_t room;
  if (!copy_from_user(self->space(), &room, args.a[4], sizeof room)) return error(EFAULT);
  if (room < 0) return error(EINVAL);
  const uint32_t n = size < static_cast<uint32_t>(room) ? size : static_cast<uint32_t>(room);
  if (n > 0 && !copy_to_user(self->space(), args.a[3], value, n)) return error(EFAULT);
  const int32_t written = static_cast<int32_t>(n);
  return copy_to_user(self->space(), args.a[4], &written, sizeof written) ? 0 : error(EFAULT);
}

}  // namespace kernel::sys
