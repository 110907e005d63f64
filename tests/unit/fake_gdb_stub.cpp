#include "fake_gdb_stub.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

#include "hostdump/gdb/gdb_packet.h"
#include "qemu/host/loopback.h"

namespace dcpi::testing {
namespace {

constexpr int kPollMs = 20;
constexpr int kAlphaRegisterCount = 67;
constexpr int kUnavailableRegister = 65;

int listen_on_loopback(uint16_t& port) {
  const int fd = qemu::bind_loopback(port, "the fake GDB stub");
  if (listen(fd, 4) != 0) {
    close(fd);
    throw std::runtime_error("cannot listen on loopback");
  }
  return fd;
}

bool readable(int fd) {
  pollfd entry{fd, POLLIN, 0};
  return poll(&entry, 1, kPollMs) > 0;
}

void send_text(int fd, const std::string& text) {
  (void)!send(fd, text.data(), text.size(), MSG_NOSIGNAL);
}

}  // namespace

SilentListener::SilentListener() { fd_ = listen_on_loopback(port_); }
SilentListener::~SilentListener() { close(fd_); }

uint16_t unused_port() {
  uint16_t port = 0;
  close(listen_on_loopback(port));
  return port;
}

FakeGdbStub::FakeGdbStub(FakeStubOptions options) : options_(options) {
  listen_fd_ = listen_on_loopback(port_);
  thread_ = std::thread([this] { serve(); });
}

FakeGdbStub::~FakeGdbStub() {
  stop_ = true;
  thread_.join();
  close(listen_fd_);
}

void FakeGdbStub::add_memory(uint64_t physical_address, std::vector<uint8_t> bytes) {
  std::lock_guard lock(mutex_);
  memory_[physical_address] = std::move(bytes);
}

std::vector<uint8_t> FakeGdbStub::memory(uint64_t physical_address, size_t length) const {
  std::lock_guard lock(mutex_);
  uint64_t offset = 0;
  const std::vector<uint8_t>* region = region_for(physical_address, length, offset);
  if (!region) return {};
  return {region->begin() + static_cast<long>(offset),
          region->begin() + static_cast<long>(offset + length)};
}

void FakeGdbStub::poke(uint64_t physical_address, const std::vector<uint8_t>& bytes) {
  std::lock_guard lock(mutex_);
  uint64_t offset = 0;
  auto* region =
      const_cast<std::vector<uint8_t>*>(region_for(physical_address, bytes.size(), offset));
  if (!region) throw std::out_of_range("poke outside the fake stub's memory");
  std::copy(bytes.begin(), bytes.end(), region->begin() + static_cast<long>(offset));
}

std::vector<std::string> FakeGdbStub::packets() const {
  std::lock_guard lock(mutex_);
  return packets_;
}

void FakeGdbStub::serve() {
  while (!stop_) {
    if (!readable(listen_fd_)) continue;
    const int connection = accept(listen_fd_, nullptr, nullptr);
    if (connection < 0) continue;
    serve_connection(connection);
    close(connection);
  }
}

void FakeGdbStub::serve_connection(int connection) {
  ack_mode_ = true;
  std::string pending;
  while (!stop_) {
    if (!readable(connection)) continue;
    char buffer[4096];
    const ssize_t got = recv(connection, buffer, sizeof buffer, 0);
    if (got <= 0) return;
    pending.append(buffer, static_cast<size_t>(got));
    while (handle_bytes(connection, pending)) {
    }
  }
}

// Consumes one unit (ack, interrupt byte or frame) from `pending`; false when
// more bytes are needed.
bool FakeGdbStub::handle_bytes(int connection, std::string& pending) {
  if (pending.empty()) return false;
  const char first = pending[0];
  if (first != '$') {
    pending.erase(0, 1);
    if (first == '-') send_text(connection, last_reply_frame_);
    if (first == 0x03 && running_) {
      running_ = false;
      send_reply(connection, "T02thread:01;");
    }
    return true;
  }
  const gdb::ParsedFrame frame = gdb::parse_frame(pending);
  if (frame.consumed == 0) return false;
  pending.erase(0, frame.consumed);
  if (ack_mode_) send_text(connection, "+");
  {
    std::lock_guard lock(mutex_);
    packets_.push_back(frame.payload);
  }
  const std::string reply = reply_to(frame.payload);
  if (frame.payload != "c") send_reply(connection, reply);
  if (frame.payload == "QStartNoAckMode") ack_mode_ = false;
  return true;
}

void FakeGdbStub::send_reply(int connection, const std::string& payload) {
  last_reply_frame_ = gdb::frame(payload);
  std::string sent = last_reply_frame_;
  if (options_.corrupt_replies > 0) {
    --options_.corrupt_replies;
    sent[sent.size() - 1] = sent[sent.size() - 1] == '0' ? '1' : '0';
  }
  send_text(connection, sent);
}

std::string FakeGdbStub::reply_to(const std::string& payload) {
  if (payload.starts_with("qSupported"))
    return "PacketSize=" + gdb::to_hex(options_.packet_size) +
           (options_.offer_no_ack ? ";QStartNoAckMode+" : "");
  if (payload == "QStartNoAckMode") return "OK";
  if (payload == "?") return "T05thread:01;";
  if (payload == "Qqemu.PhyMemMode:1" || payload == "Qqemu.PhyMemMode:0") {
    physical_mode_ = payload.back() == '1';
    return "OK";
  }
  if (payload[0] == 'm') return read_reply(payload.substr(1));
  if (payload[0] == 'M') return write_reply(payload.substr(1));
  if (payload == "g") return registers_reply();
  if (payload == "c") {
    running_ = true;
    if (options_.on_resume) options_.on_resume(*this);
  }
  if (payload == "D") detached_ = true;
  return payload == "D" ? "OK" : "";
}

const std::vector<uint8_t>* FakeGdbStub::region_for(uint64_t address, size_t length,
                                                    uint64_t& offset) const {
  auto region = memory_.upper_bound(address);
  if (region == memory_.begin()) return nullptr;
  --region;
  offset = address - region->first;
  if (offset + length > region->second.size()) return nullptr;
  return &region->second;
}

// Like QEMU: memory is only reachable here in physical mode.
std::string FakeGdbStub::read_reply(const std::string& arguments) {
  const size_t comma = arguments.find(',');
  const uint64_t address = gdb::parse_hex_u64(arguments.substr(0, comma));
  size_t length = gdb::parse_hex_u64(arguments.substr(comma + 1));
  if (options_.max_read_reply) length = std::min(length, options_.max_read_reply);
  std::lock_guard lock(mutex_);
  uint64_t offset = 0;
  const std::vector<uint8_t>* region = region_for(address, length, offset);
  if (!physical_mode_ || !region) return "E14";
  return gdb::to_hex(std::span(region->data() + offset, length));
}

std::string FakeGdbStub::write_reply(const std::string& arguments) {
  const size_t comma = arguments.find(',');
  const size_t colon = arguments.find(':');
  const uint64_t address = gdb::parse_hex_u64(arguments.substr(0, comma));
  const std::vector<uint8_t> bytes = gdb::from_hex(arguments.substr(colon + 1));
  std::lock_guard lock(mutex_);
  uint64_t offset = 0;
  std::vector<uint8_t>* region =
      const_cast<std::vector<uint8_t>*>(region_for(address, bytes.size(), offset));
  if (!physical_mode_ || !region) return "E14";
  std::copy(bytes.begin(), bytes.end(), region->begin() + static_cast<long>(offset));
  return "OK";
}

// Register i holds i * 0x0101010101010101; one is "unavailable" (xx...).
std::string FakeGdbStub::registers_reply() const {
  std::string reply;
  for (int i = 0; i < kAlphaRegisterCount; ++i) {
    if (i == kUnavailableRegister) {
      reply += std::string(16, 'x');
      continue;
    }
    uint64_t value = static_cast<uint64_t>(i) * 0x0101010101010101ull;
    uint8_t bytes[8];
    for (uint8_t& byte : bytes) {
      byte = static_cast<uint8_t>(value);
      value >>= 8;
    }
    reply += gdb::to_hex(bytes);
  }
  return reply;
}

}  // namespace dcpi::testing
