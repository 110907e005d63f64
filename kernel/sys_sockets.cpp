// Sockets: socketpair's AF_UNIX stream pairs (kernel/socket_end.h) and the
// calls that move data on connected stream sockets, pairs' or those
// connect and accept made (send, recv, sendto, recvfrom, sendmsg, recvmsg,
// shutdown). socket(2) and the calls that name sockets:
// kernel/sys_socket_names.cpp. glibc's name services connect to nscd's
// socket first and go on to the files (/etc/passwd) when it is missing
// (ENOENT).
#include "kernel/files.h"
#include "kernel/linux_errno.h"
#include "kernel/listeners.h"
#include "kernel/pipe.h"
#include "kernel/socket_end.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

using listeners::kAfUnix;
using listeners::kSockCloexec;
using listeners::kSockNonblock;
using listeners::kSockStream;

// The socket at `fd`: nullptr and *e = EBADF or ENOTSOCK.
OpenFile* socket_at(Process* self, uint64_t fd, int64_t* e) {
  return file_of_kind(self->fds, fd, OpenFile::kSocket, ENOTSOCK, e);
}

// The two ends of a new pair, crossed over two pipes, at the lowest free fds.
int64_t open_pair(Process* self, uint64_t type, int32_t fds[2]) {
  Pipe* one = pipe::create();
  Pipe* other = one ? pipe::create() : nullptr;
  if (other == nullptr) {
    if (one) pipe::close_end(one, true), pipe::close_end(one, false);
    return error(ENFILE);
  }
  OpenFile end{};
  end.kind = OpenFile::kSocket;
  end.flags = LINUX_O_RDWR | ((type & kSockNonblock) ? LINUX_O_NONBLOCK : 0);
  end.pipe = one, end.peer = other;
  OpenFile* first = new_description(end);
  end.pipe = other, end.peer = one;
  OpenFile* second = first ? new_description(end) : nullptr;
  if (second == nullptr) {
    // The second end's sides go by hand; the first's with its description.
    pipe::close_end(other, false), pipe::close_end(one, true);
    if (first)
      release_description(first);
    else
      pipe::close_end(one, false), pipe::close_end(other, true);
    return error(ENFILE);
  }
  const bool cloexec = type & kSockCloexec;
  const int64_t a = install_file(self->fds, 0, first, cloexec);
  const int64_t b =
      a < 0 ? (release_description(second), a) : install_file(self->fds, 0, second, cloexec);
  if (b < 0) {
    if (a >= 0) close_file(self->fds, static_cast<uint64_t>(a));
    return b;
  }
  fds[0] = static_cast<int32_t>(a), fds[1] = static_cast<int32_t>(b);
  return 0;
}

// struct msghdr (Linux's, 56 bytes on Alpha).
struct MessageHeader {
  uint64_t name;
  uint32_t name_length, pad0;
  uint64_t iov, iov_count;
  uint64_t control, control_length;
  uint32_t flags, pad1;
};
static_assert(sizeof(MessageHeader) == 56);

}  // namespace

// socketpair(domain, type, protocol, sv): AF_UNIX SOCK_STREAM only
// (SOCK_NONBLOCK, SOCK_CLOEXEC); datagram and seqpacket pairs and AF_INET
// EOPNOTSUPP, other families EAFNOSUPPORT.
int64_t sys_socketpair(Process* self, TrapFrame*, const Args& args) {
  if (args.a[0] == listeners::kAfInet) return error(EOPNOTSUPP);  // Linux: TCP has no pairs
  if (args.a[0] != kAfUnix) return error(EAFNOSUPPORT);
  if (args.a[2] != 0 && args.a[2] != kAfUnix) return error(EPROTONOSUPPORT);
  if ((args.a[1] & ~(kSockNonblock | kSockCloexec)) != kSockStream) return error(EOPNOTSUPP);
  int32_t fds[2];
  if (const int64_t e = open_pair(self, args.a[1], fds); e < 0) return e;
  if (!copy_to_user(self->space(), args.a[3], fds, sizeof fds)) {
    close_file(self->fds, static_cast<uint64_t>(fds[0]));
    close_file(self->fds, static_cast<uint64_t>(fds[1]));
    return error(EFAULT);
  }
  return 0;
}

// sendto(fd, buf, len, flags, addr, addrlen): an AF_UNIX stream socket
// takes no address (connected: EISCONN, else EOPNOTSUPP); AF_INET's
// stream ignores it, as TCP does.
int64_t sys_sendto(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = socket_at(self, args.a[0], &e);
  if (f == nullptr) return e;
  const bool inet = f->socket != nullptr && f->socket->family == listeners::kAfInet;
  if (args.a[4] != 0 && !inet) return error(f->pipe != nullptr ? EISCONN : EOPNOTSUPP);
  return socket_end::write(self, f, args.a[3], args.a[1], args.a[2]);
}

int64_t sys_send(Process* self, TrapFrame* frame, const Args& args) {
  return sys_sendto(self, frame, Args{{args.a[0], args.a[1], args.a[2], args.a[3], 0, 0}});
}

// recvfrom(fd, buf, len, flags, addr, addrlen): a stream pair's peer has no
// name, so *addrlen becomes 0. MSG_PEEK is not kept: EOPNOTSUPP.
int64_t sys_recvfrom(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = socket_at(self, args.a[0], &e);
  if (f == nullptr) return e;
  if (args.a[3] & socket_end::kMsgPeek) return error(EOPNOTSUPP);
  const uint32_t no_name = 0;
  if (args.a[4] != 0 && args.a[5] != 0 &&
      !copy_to_user(self->space(), args.a[5], &no_name, sizeof no_name))
    return error(EFAULT);
  return socket_end::read(self, f, args.a[3], args.a[1], args.a[2]);
}

int64_t sys_recv(Process* self, TrapFrame* frame, const Args& args) {
  return sys_recvfrom(self, frame, Args{{args.a[0], args.a[1], args.a[2], args.a[3], 0, 0}});
}

// sendmsg(fd, msg, flags): the iovecs in turn; no address (as sendto), no control data
// (descriptors cannot be passed: EOPNOTSUPP).
int64_t sys_sendmsg(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = socket_at(self, args.a[0], &e);
  if (f == nullptr) return e;
  MessageHeader message;
  if (!copy_from_user(self->space(), &message, args.a[1], sizeof message)) return error(EFAULT);
  const bool inet = f->socket != nullptr && f->socket->family == listeners::kAfInet;
  if (message.name != 0 && !inet) return error(f->pipe != nullptr ? EISCONN : EOPNOTSUPP);
  if (message.control_length != 0) return error(EOPNOTSUPP);
  return vector_io(self, message.iov, message.iov_count, [&](uint64_t base, uint64_t length) {
    return socket_end::write(self, f, args.a[2], base, length);
  });
}

// recvmsg(fd, msg, flags): the iovecs filled in turn (the first may wait,
// the rest take what is there); no name, no control data, no flags back.
int64_t sys_recvmsg(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = socket_at(self, args.a[0], &e);
  if (f == nullptr) return e;
  if (args.a[2] & socket_end::kMsgPeek) return error(EOPNOTSUPP);
  MessageHeader message;
  if (!copy_from_user(self->space(), &message, args.a[1], sizeof message)) return error(EFAULT);
  bool first = true;
  const int64_t n =
      vector_io(self, message.iov, message.iov_count, [&](uint64_t base, uint64_t length) {
        const uint64_t flags = first ? args.a[2] : args.a[2] | socket_end::kMsgDontwait;
        first = false;
        const int64_t got = socket_end::read(self, f, flags, base, length);
        return got == error(EAGAIN) && flags != args.a[2] ? 0 : got;
      });
  if (n < 0) return n;
  message.name_length = 0;
  message.control_length = 0;
  message.flags = 0;
  if (!copy_to_user(self->space(), args.a[1], &message, sizeof message)) return error(EFAULT);
  return n;
}

int64_t sys_shutdown(Process* self, TrapFrame*, const Args& args) {
  int64_t e;
  OpenFile* f = socket_at(self, args.a[0], &e);
  return f == nullptr ? e : socket_end::shutdown(f, args.a[1]);
}

}  // namespace kernel::sys
