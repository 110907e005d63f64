#include "qemu/host/loopback.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dcpi::qemu {

int bind_loopback(uint16_t& port, const char* what) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) close(fd);
    throw std::runtime_error(std::string("no free loopback port for ") + what + ": " + reason);
  }
  port = ntohs(address.sin_port);
  return fd;
}

uint16_t free_loopback_port() {
  uint16_t port = 0;
  close(bind_loopback(port, "QEMU's GDB stub"));
  return port;
}

}  // namespace dcpi::qemu
