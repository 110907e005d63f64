// A TCP connection whose every connect, send and receive is bounded by a
// timeout (poll), so a peer that never answers produces an error, not a hang.
#pragma once
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

struct addrinfo;

namespace dcpi {

class ConnectionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The peer did not answer in time; the connection is unusable afterwards.
class TimeoutError : public ConnectionError {
 public:
  using ConnectionError::ConnectionError;
};

class TcpConnection {
 public:
  using Clock = std::chrono::steady_clock;

  // `peer_name` names the peer in error messages, e.g. "gdb stub".
  TcpConnection(std::string peer_name, const std::string& host, uint16_t port,
                std::chrono::milliseconds timeout);
  ~TcpConnection();
  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  void send_all(std::string_view bytes);
  // Waits until at least one byte arrives (or the deadline passes).
  std::string receive_some(Clock::time_point deadline);

  Clock::time_point deadline_from_now() const { return Clock::now() + timeout_; }
  // "gdb stub at 127.0.0.1:1234"
  const std::string& description() const { return description_; }
  std::string timeout_text() const;  // "5 s"

 private:
  void connect_to(const std::string& host, uint16_t port);
  bool try_address(const ::addrinfo& address, int& error);
  // Polls for `events`; throws TimeoutError with `what_timed_out` on expiry.
  void wait_for(short events, Clock::time_point deadline, std::string_view what_timed_out);

  std::string description_;
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
};

}  // namespace dcpi
