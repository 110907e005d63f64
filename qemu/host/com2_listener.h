// The host end of the guest's second serial port: QEMU's COM2 is started with
// -serial tcp:127.0.0.1:PORT and connects to this listener; the guest's
// daemon then sends every transfer record there (docs/transfer-format.md,
// serial framing). The bytes go to hostdump/serial/stream_source.h.
#pragma once
#include <cstdint>
#include <vector>

namespace dcpi::qemu {

class Com2Listener {
 public:
  Com2Listener();  // throws std::runtime_error if no port can be bound
  ~Com2Listener();
  Com2Listener(const Com2Listener&) = delete;
  Com2Listener& operator=(const Com2Listener&) = delete;

  uint16_t port() const { return port_; }
  // Waits up to `seconds` for bytes (accepting QEMU's connection first);
  // returns them, empty on timeout, and sets `closed` at end of stream.
  std::vector<uint8_t> read(double seconds, bool& closed);

 private:
  int listen_fd_ = -1;
  int fd_ = -1;
  uint16_t port_ = 0;
};

}  // namespace dcpi::qemu
