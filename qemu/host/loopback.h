// Loopback TCP ports for QEMU's sockets (the GDB stub QEMU listens on, COM2
// that connects to us). Loopback only: the stub can read and write all of
// guest memory (DESIGN §6).
#pragma once
#include <cstdint>

namespace dcpi::qemu {

// A TCP socket bound to a free 127.0.0.1 port (the kernel picks it); throws
// std::runtime_error naming `what` the port is for.
int bind_loopback(uint16_t& port, const char* what);

// A port that was free a moment ago, for QEMU's -gdb tcp:127.0.0.1:PORT.
uint16_t free_loopback_port();

}  // namespace dcpi::qemu
