#include "hostdump/gdb/tcp_connection.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <sstream>

namespace dcpi {
namespace {

struct AddrInfoDeleter {
  void operator()(addrinfo* list) const { freeaddrinfo(list); }
};
using AddrInfoList = std::unique_ptr<addrinfo, AddrInfoDeleter>;

AddrInfoList resolve(const std::string& host, uint16_t port, const std::string& description) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &list);
  if (rc != 0) throw ConnectionError("cannot resolve " + description + ": " + gai_strerror(rc));
  return AddrInfoList(list);
}

// Rounded up: poll() must not give up before the deadline.
int remaining_ms(TcpConnection::Clock::time_point deadline) {
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(deadline - TcpConnection::Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

}  // namespace

TcpConnection::TcpConnection(std::string peer_name, const std::string& host, uint16_t port,
                             std::chrono::milliseconds timeout)
    : description_(peer_name + " at " + host + ":" + std::to_string(port)), timeout_(timeout) {
  connect_to(host, port);
}

TcpConnection::~TcpConnection() {
  if (fd_ >= 0) close(fd_);
}

std::string TcpConnection::timeout_text() const {
  std::ostringstream text;
  text << static_cast<double>(timeout_.count()) / 1000.0 << " s";
  return text.str();
}

void TcpConnection::connect_to(const std::string& host, uint16_t port) {
  const AddrInfoList addresses = resolve(host, port, description_);
  int error = 0;
  for (const addrinfo* address = addresses.get(); address; address = address->ai_next)
    if (try_address(*address, error)) return;
  if (error == ECONNREFUSED)
    throw ConnectionError("cannot connect to " + description_ +
                          ": connection refused (is QEMU running with -gdb tcp:" + host + ":" +
                          std::to_string(port) + "?)");
  throw ConnectionError("cannot connect to " + description_ + ": " + std::strerror(error));
}

// Non-blocking connect so that an unroutable or filtered peer times out.
bool TcpConnection::try_address(const addrinfo& address, int& error) {
  fd_ = socket(address.ai_family, address.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
               address.ai_protocol);
  if (fd_ < 0) {
    error = errno;
    return false;
  }
  // RSP is many small request/reply exchanges: without TCP_NODELAY, Nagle's
  // algorithm and delayed ACKs add ~40 ms to each one.
  const int enable = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &enable, sizeof enable);
  error = connect(fd_, address.ai_addr, address.ai_addrlen) == 0 ? 0 : errno;
  if (error == EINPROGRESS) {
    try {
      wait_for(POLLOUT, deadline_from_now(), "did not accept the connection");
    } catch (...) {
      close(fd_);  // the destructor does not run for a failed constructor
      fd_ = -1;
      throw;
    }
    socklen_t length = sizeof error;
    getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length);
  }
  if (error == 0) return true;
  close(fd_);
  fd_ = -1;
  return false;
}

void TcpConnection::wait_for(short events, Clock::time_point deadline,
                             std::string_view what_timed_out) {
  for (;;) {
    pollfd entry{fd_, events, 0};
    const int ready = poll(&entry, 1, remaining_ms(deadline));
    if (ready > 0) return;
    if (ready == 0)
      throw TimeoutError(description_ + " " + std::string(what_timed_out) + " within " +
                         timeout_text());
    if (errno != EINTR) throw ConnectionError(description_ + ": poll: " + std::strerror(errno));
  }
}

void TcpConnection::send_all(std::string_view bytes) {
  const Clock::time_point deadline = deadline_from_now();
  while (!bytes.empty()) {
    const ssize_t sent = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (sent > 0) {
      bytes.remove_prefix(static_cast<size_t>(sent));
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      wait_for(POLLOUT, deadline, "did not accept data");
    } else if (errno != EINTR) {
      throw ConnectionError("cannot send to " + description_ + ": " + std::strerror(errno));
    }
  }
}

std::string TcpConnection::receive_some(Clock::time_point deadline) {
  char buffer[16384];
  for (;;) {
    const ssize_t received = recv(fd_, buffer, sizeof buffer, 0);
    if (received > 0) return std::string(buffer, static_cast<size_t>(received));
    if (received == 0) throw ConnectionError(description_ + " closed the connection");
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      wait_for(POLLIN, deadline, "did not answer");
    else if (errno != EINTR)
      throw ConnectionError("cannot receive from " + description_ + ": " + std::strerror(errno));
  }
}

}  // namespace dcpi
