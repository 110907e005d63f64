// socket(2) and the calls that name and join stream sockets: bind, listen,
// accept, accept4, connect, getsockname, getpeername (kernel/listeners.h
// keeps the names and the queues). AF_UNIX and AF_INET SOCK_STREAM only;
// what Linux has and this kernel not is refused as Linux refuses what it
// was built without: another family EAFNOSUPPORT, another type
// ESOCKTNOSUPPORT (datagrams, seqpacket, raw), another protocol
// EPROTONOSUPPORT.
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/listeners.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

using listeners::kAfInet;
using listeners::kAfUnix;
using listeners::kIpprotoTcp;
using listeners::kSockCloexec;
using listeners::kSockNonblock;
using listeners::kSockStream;
constexpr uint64_t kSockTypeLimit = 11;  // SOCK_MAX

// The socket at `fd` with a record (socket(2)'s): nullptr and *e = EBADF,
// ENOTSOCK, or for a socketpair's end `pair_error`.
OpenFile* named_socket_at(Process* self, uint64_t fd, int pair_error, int64_t* e) {
  OpenFile* f = file_of_kind(self->fds, fd, OpenFile::kSocket, ENOTSOCK, e);
  if (f != nullptr && f->socket == nullptr) *e = error(pair_error), f = nullptr;
  return f;
}

// A struct sockaddr from user memory (Linux's move_addr_to_kernel).
int64_t name_from_user(Process* self, uint64_t va, uint64_t length, listeners::Name* name) {
  if (length > listeners::kNameBytes) return error(EINVAL);
  *name = listeners::Name{};
  name->length = static_cast<uint32_t>(length);
  if (length > 0 && !copy_from_user(self->space(), name->bytes, va, length)) return error(EFAULT);
  return 0;
}

// A name out to (addr, *addrlen) as Linux's move_addr_to_user: as much as
// fits, and *addrlen set to the whole length. A null addr: nothing.
int64_t name_to_user(Process* self, uint64_t va, uint64_t length_va, const listeners::Name& name) {
  if (va == 0) return 0;
  int32_t room;
  if (!copy_from_user(self->space(), &room, length_va, sizeof room)) return error(EFAULT);
  if (room < 0) return error(EINVAL);
  const uint32_t n = name.length < static_cast<uint32_t>(room) ? name.length : room;
  if (n > 0 && !copy_to_user(self->space(), va, name.bytes, n)) return error(EFAULT);
  const int32_t whole = static_cast<int32_t>(name.length);
  return copy_to_user(self->space(), length_va, &whole, sizeof whole) ? 0 : error(EFAULT);
}

int64_t accept_flags(Process* self, const Args& args, uint64_t flags) {
  if (flags & ~(kSockNonblock | kSockCloexec)) return error(EINVAL);
  int64_t e;
  OpenFile* f = named_socket_at(self, args.a[0], EINVAL, &e);
  if (f == nullptr) return e;
  OpenFile* connection;
  if (const int64_t r =
          listeners::accept(self, f->socket, f->flags & LINUX_O_NONBLOCK, &connection);
      r < 0)
    return r;
  // The new socket's O_NONBLOCK is accept4's, not the listener's (Linux).
  if (flags & kSockNonblock) connection->flags |= LINUX_O_NONBLOCK;
  const listeners::Name peer = connection->socket->peer;  // before another thread may close it
  const int64_t fd = install_file(self->fds, 0, connection, flags & kSockCloexec);
  if (fd < 0) return fd;  // EMFILE: the connection is closed (its client reads end of file)
  if (const int64_t r = name_to_user(self, args.a[1], args.a[2], peer); r < 0) {
    close_file(self->fds, static_cast<uint64_t>(fd));
    return r;
  }
  return fd;
}

}  // namespace

// socket(domain, type, protocol): an unconnected stream socket.
int64_t sys_socket(Process* self, TrapFrame*, const Args& args) {
  const uint64_t family = args.a[0], type = args.a[1] & ~(kSockNonblock | kSockCloexec);
  const uint64_t protocol = args.a[2];
  if (family != kAfUnix && family != kAfInet) return error(EAFNOSUPPORT);
  if (type == 0 || type >= kSockTypeLimit) return error(EINVAL);
  if (family == kAfUnix && protocol != 0 && protocol != kAfUnix) return error(EPROTONOSUPPORT);
  if (type != kSockStream) return error(ESOCKTNOSUPPORT);
  if (family == kAfInet && protocol != 0 && protocol != kIpprotoTcp) return error(EPROTONOSUPPORT);
  listeners::Socket* record =
      listeners::create(static_cast<uint32_t>(family), family == kAfInet ? kIpprotoTcp : 0);
  if (record == nullptr) return error(ENFILE);
  OpenFile end{};
  end.kind = OpenFile::kSocket;
  end.flags = LINUX_O_RDWR | ((args.a[1] & kSockNonblock) ? LINUX_O_NONBLOCK : 0);
  end.socket = record;
  OpenFile* description = new_description(end);
  if (description == nullptr) {
    listeners::close(record);
    return error(ENFILE);
  }
  return install_file(self->fds, 0, description, args.a[1] & kSockCloexec);
}

int64_t sys_bind(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = named_socket_at(self, args.a[0], EINVAL, &e);
  if (f == nullptr) return e;
  listeners::Name name;
  if (const int64_t r = name_from_user(self, args.a[1], args.a[2], &name); r < 0) return r;
  return listeners::bind(self, f->socket, name);
}

int64_t sys_listen(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = named_socket_at(self, args.a[0], EINVAL, &e);
  if (f == nullptr) return e;
  return listeners::listen(f->socket, static_cast<int32_t>(args.a[1]));
}

int64_t sys_accept(Process* self, TrapFrame*, const Args& args) {
  return accept_flags(self, args, 0);
}

int64_t sys_accept4(Process* self, TrapFrame*, const Args& args) {
  return accept_flags(self, args, args.a[3]);
}

int64_t sys_connect(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = named_socket_at(self, args.a[0], EISCONN, &e);
  if (f == nullptr) return e;
  listeners::Name name;
  if (const int64_t r = name_from_user(self, args.a[1], args.a[2], &name); r < 0) return r;
  return listeners::connect(self, f, name, f->flags & LINUX_O_NONBLOCK);
}

int64_t sys_getsockname(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = file_of_kind(self->fds, args.a[0], OpenFile::kSocket, ENOTSOCK, &e);
  if (f == nullptr) return e;
  // A socketpair's end has no record: AF_UNIX's unnamed name.
  if (f->socket == nullptr)
    return name_to_user(self, args.a[1], args.a[2], listeners::unnamed(kAfUnix));
  const listeners::Socket* s = f->socket;
  return name_to_user(self, args.a[1], args.a[2],
                      s->local.length ? s->local : listeners::unnamed(s->family));
}

int64_t sys_getpeername(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = file_of_kind(self->fds, args.a[0], OpenFile::kSocket, ENOTSOCK, &e);
  if (f == nullptr) return e;
  if (f->socket == nullptr)
    return name_to_user(self, args.a[1], args.a[2], listeners::unnamed(kAfUnix));
  if (f->pipe == nullptr) return error(ENOTCONN);
  return name_to_user(self, args.a[1], args.a[2], f->socket->peer);
}

}  // namespace kernel::sys
