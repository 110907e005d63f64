#include "qemu/host/com2_listener.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "qemu/host/loopback.h"

namespace dcpi::qemu {

Com2Listener::Com2Listener() {
  listen_fd_ = bind_loopback(port_, "COM2");
  if (listen(listen_fd_, 1) != 0) {
    const std::string reason = std::strerror(errno);
    close(listen_fd_);  // the destructor does not run for a throwing constructor
    throw std::runtime_error("cannot listen for COM2: " + reason);
  }
}

Com2Listener::~Com2Listener() {
  if (fd_ >= 0) close(fd_);
  if (listen_fd_ >= 0) close(listen_fd_);
}

std::vector<uint8_t> Com2Listener::read(double seconds, bool& closed) {
  pollfd p{fd_ >= 0 ? fd_ : listen_fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(seconds * 1000)) <= 0) return {};
  if (fd_ < 0) {
    fd_ = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    return {};
  }
  std::vector<uint8_t> bytes(1 << 16);
  const ssize_t n = ::read(fd_, bytes.data(), bytes.size());
  closed = n <= 0;
  bytes.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return bytes;
}

}  // namespace dcpi::qemu
