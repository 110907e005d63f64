// Client for QEMU's gdbstub (`-gdb tcp:127.0.0.1:PORT`) over the GDB remote
// serial protocol. Every wait is bounded by the timeout given at connection,
// so a stub that stops answering yields a clear error instead of a hang.
//
// QEMU facts this relies on: attaching stops the VM; `D` (detach) resumes it
// when no debugger remains; a byte other than 0x03 sent while the VM runs is
// swallowed (it only stops the VM), so packets are only sent while stopped.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hostdump/gdb/gdb_packet.h"
#include "hostdump/gdb/tcp_connection.h"

namespace dcpi {

struct StubAddress {
  std::string host;
  uint16_t port = 0;
};

// Parses "HOST:PORT" (also "tcp:HOST:PORT" and ":PORT" for loopback).
// Throws std::invalid_argument with a message naming the bad text.
StubAddress parse_stub_address(std::string_view text);

// Register numbers of QEMU's Alpha target in `g` replies.
namespace alpha_reg {
inline constexpr int kFirstInteger = 0;  // r0..r30
inline constexpr int kFirstFloat = 32;   // f0..f30
inline constexpr int kFpcr = 63;
inline constexpr int kPc = 64;
inline constexpr int kUnique = 66;
}  // namespace alpha_reg

class GdbClient {
 public:
  // Connects, negotiates qSupported / QStartNoAckMode and reads the stop reply.
  GdbClient(const StubAddress& address, std::chrono::milliseconds timeout);

  // Sends `payload` and returns the reply payload (decoded).
  std::string request(std::string_view payload);

  // QEMU's Qqemu.PhyMemMode: memory accesses use physical addresses when on.
  void set_physical_memory_mode(bool physical);
  std::vector<uint8_t> read_memory(uint64_t address, size_t length);
  void write_memory(uint64_t address, std::span<const uint8_t> bytes);
  // One 64-bit little-endian value per register; unavailable ones read as 0.
  std::vector<uint64_t> read_registers();

  void resume();            // `c`; does not wait for the target to stop
  std::string interrupt();  // 0x03; returns the stop reply
  void detach();            // `D`; QEMU resumes the VM

  // False after a timeout or protocol error: further requests would only
  // wait again, so callers skip clean-up requests such as detach().
  bool healthy() const { return healthy_; }
  bool ack_mode() const { return ack_mode_; }
  size_t packet_size() const { return packet_size_; }
  const std::string& stop_reply() const { return stop_reply_; }
  const std::string& description() const { return connection_.description(); }

 private:
  void negotiate();
  void send_packet(std::string_view payload);
  void await_ack(std::string_view frame);
  std::string receive_packet();
  std::string receive_packet_until(TcpConnection::Clock::time_point deadline);
  char next_byte(TcpConnection::Clock::time_point deadline);
  std::string expect_ok(std::string_view payload, std::string_view what);
  [[noreturn]] void fail_reply(std::string_view what, const gdb::Reply& reply);

  TcpConnection connection_;
  std::string input_;  // received bytes; those before input_position_ are consumed
  size_t input_position_ = 0;
  bool ack_mode_ = true;
  bool running_ = false;
  bool healthy_ = true;
  size_t packet_size_ = 0;
  std::string stop_reply_;
};

}  // namespace dcpi
