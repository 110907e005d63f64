// Test doubles for QEMU's gdbstub: a scripted stub serving one connection
// from a sparse physical memory, and a listener that accepts but never talks.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace dcpi::testing {

// Binds 127.0.0.1 on an ephemeral port and listens; connections queue in the
// kernel's backlog but nothing is ever read or written.
class SilentListener {
 public:
  SilentListener();
  ~SilentListener();
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// A port on which nothing listens (bound once, then released).
uint16_t unused_port();

class FakeGdbStub;

struct FakeStubOptions {
  bool offer_no_ack = true;
  unsigned packet_size = 0x1000;  // advertised PacketSize
  size_t max_read_reply = 0;      // > 0: answer `m` with at most this many bytes
  int corrupt_replies = 0;        // first N replies sent with a bad checksum
  // Runs on every `c` (resume): plays the guest, e.g. a daemon answering the
  // control block. Called on the stub's thread; may use poke()/memory().
  std::function<void(FakeGdbStub&)> on_resume = nullptr;
};

class FakeGdbStub {
 public:
  explicit FakeGdbStub(FakeStubOptions options = {});
  ~FakeGdbStub();
  uint16_t port() const { return port_; }

  void add_memory(uint64_t physical_address, std::vector<uint8_t> bytes);
  std::vector<uint8_t> memory(uint64_t physical_address, size_t length) const;
  // Overwrites bytes inside a region added with add_memory().
  void poke(uint64_t physical_address, const std::vector<uint8_t>& bytes);
  std::vector<std::string> packets() const;  // payloads received, in order
  bool detached() const { return detached_; }
  bool physical_mode() const { return physical_mode_; }

 private:
  void serve();
  void serve_connection(int connection);
  bool handle_bytes(int connection, std::string& pending);
  void send_reply(int connection, const std::string& payload);
  std::string reply_to(const std::string& payload);
  std::string read_reply(const std::string& arguments);
  std::string write_reply(const std::string& arguments);
  std::string registers_reply() const;
  const std::vector<uint8_t>* region_for(uint64_t address, size_t length, uint64_t& offset) const;

  FakeStubOptions options_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> detached_{false};
  std::atomic<bool> physical_mode_{false};
  bool ack_mode_ = true;
  bool running_ = false;
  std::string last_reply_frame_;
  mutable std::mutex mutex_;  // guards memory_ and packets_
  std::map<uint64_t, std::vector<uint8_t>> memory_;
  std::vector<std::string> packets_;
  std::thread thread_;
};

}  // namespace dcpi::testing
