#include "hostdump/gdb/gdb_client.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace dcpi {
namespace {

using gdb::ReplyKind;

constexpr size_t kDefaultPacketSize = 256;  // when qSupported names none
constexpr size_t kMaxFrameBytes = 1 << 20;  // far above any QEMU reply
constexpr int kMaxResends = 5;              // after '-' (bad checksum) acks
constexpr char kInterruptByte = 0x03;
// Room for "$m<16 hex>,<16 hex>#cs" and similar framing overhead.
constexpr size_t kPacketOverhead = 48;

uint16_t parse_port(std::string_view text, std::string_view whole) {
  unsigned value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size() ||
      value == 0 || value > 65535)
    throw std::invalid_argument("invalid gdb stub address '" + std::string(whole) +
                                "': expected HOST:PORT with a port in 1..65535");
  return static_cast<uint16_t>(value);
}

size_t packet_size_from_features(std::string_view features) {
  constexpr std::string_view kKey = "PacketSize=";
  const size_t at = features.find(kKey);
  if (at == std::string_view::npos) return kDefaultPacketSize;
  std::string_view value = features.substr(at + kKey.size());
  value = value.substr(0, value.find(';'));
  return static_cast<size_t>(gdb::parse_hex_u64(value));
}

uint64_t little_endian_u64(const uint8_t* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

StubAddress parse_stub_address(std::string_view text) {
  std::string_view rest = text;
  if (rest.starts_with("tcp:")) rest.remove_prefix(4);
  const size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos)
    throw std::invalid_argument("invalid gdb stub address '" + std::string(text) +
                                "': expected HOST:PORT");
  std::string host(rest.substr(0, colon));
  if (host.empty()) host = "127.0.0.1";
  return {host, parse_port(rest.substr(colon + 1), text)};
}

GdbClient::GdbClient(const StubAddress& address, std::chrono::milliseconds timeout)
    : connection_("gdb stub", address.host, address.port, timeout) {
  negotiate();
}

void GdbClient::negotiate() {
  const std::string features = request("qSupported");
  packet_size_ = std::max(packet_size_from_features(features), kPacketOverhead * 2);
  if (features.find("QStartNoAckMode+") != std::string::npos && request("QStartNoAckMode") == "OK")
    ack_mode_ = false;
  stop_reply_ = request("?");
  if (!gdb::is_stop_reply(stop_reply_))
    throw gdb::ProtocolError(description() + " did not report a stopped target (reply '" +
                             stop_reply_ + "')");
}

std::string GdbClient::request(std::string_view payload) {
  if (running_) throw std::logic_error("gdb request '" + std::string(payload) + "' while running");
  try {
    send_packet(payload);
    return receive_packet();
  } catch (...) {
    healthy_ = false;
    throw;
  }
}

void GdbClient::send_packet(std::string_view payload) {
  const std::string framed = gdb::frame(payload);
  connection_.send_all(framed);
  if (ack_mode_) await_ack(framed);
}

// In acknowledgement mode the stub answers every frame with '+', or '-' when
// the checksum did not match, asking for the frame again.
void GdbClient::await_ack(std::string_view framed) {
  const auto deadline = connection_.deadline_from_now();
  for (int resends = 0;;) {
    const char ack = next_byte(deadline);
    if (ack == '+') return;
    if (ack != '-')
      throw gdb::ProtocolError(description() + " sent '" + std::string(1, ack) +
                               "' instead of an acknowledgement");
    if (++resends > kMaxResends)
      throw gdb::ProtocolError(description() + " rejected a packet " + std::to_string(kMaxResends) +
                               " times");
    connection_.send_all(framed);
  }
}

std::string GdbClient::receive_packet() {
  return receive_packet_until(connection_.deadline_from_now());
}

std::string GdbClient::receive_packet_until(TcpConnection::Clock::time_point deadline) {
  for (;;) {
    if (next_byte(deadline) != '$') continue;  // stray acks between packets
    std::string framed = "$";
    while (framed.back() != '#') {
      framed.push_back(next_byte(deadline));
      if (framed.size() > kMaxFrameBytes)
        throw gdb::ProtocolError(description() + " sent an oversized packet");
    }
    framed.push_back(next_byte(deadline));
    framed.push_back(next_byte(deadline));
    try {
      std::string payload = gdb::parse_frame(framed).payload;
      if (ack_mode_) connection_.send_all("+");
      return payload;
    } catch (const gdb::ProtocolError& error) {
      if (!ack_mode_)
        throw gdb::ProtocolError(description() + " sent a bad packet: " + error.what());
      connection_.send_all("-");  // the stub sends it again
    }
  }
}

char GdbClient::next_byte(TcpConnection::Clock::time_point deadline) {
  if (input_position_ == input_.size()) {
    input_ = connection_.receive_some(deadline);
    input_position_ = 0;
  }
  return input_[input_position_++];
}

[[noreturn]] void GdbClient::fail_reply(std::string_view what, const gdb::Reply& reply) {
  switch (reply.kind) {
    case ReplyKind::kError:
      throw gdb::ProtocolError(description() + " refused to " + std::string(what) + " (error " +
                               std::to_string(reply.error_code) + ")");
    case ReplyKind::kUnsupported:
      throw gdb::ProtocolError(description() + " does not support " + std::string(what));
    default:
      throw gdb::ProtocolError(description() + " gave an unexpected reply '" +
                               std::string(reply.data.substr(0, 40)) + "' to " + std::string(what));
  }
}

std::string GdbClient::expect_ok(std::string_view payload, std::string_view what) {
  const std::string reply = request(payload);
  const gdb::Reply classified = gdb::classify_reply(reply);
  if (classified.kind != ReplyKind::kOk) fail_reply(what, classified);
  return reply;
}

void GdbClient::set_physical_memory_mode(bool physical) {
  expect_ok(physical ? "Qqemu.PhyMemMode:1" : "Qqemu.PhyMemMode:0",
            physical ? "switch to physical memory mode" : "switch to virtual memory mode");
}

std::vector<uint8_t> GdbClient::read_memory(uint64_t address, size_t length) {
  // The hex reply doubles the size; it must fit the stub's packet buffer.
  const size_t chunk = (packet_size_ - kPacketOverhead) / 2;
  std::vector<uint8_t> memory;
  memory.reserve(length);
  while (memory.size() < length) {
    const uint64_t at = address + memory.size();
    const size_t wanted = std::min(chunk, length - memory.size());
    const std::string reply = request("m" + gdb::to_hex(at) + "," + gdb::to_hex(wanted));
    const gdb::Reply classified = gdb::classify_reply(reply);
    const std::string what = "read " + std::to_string(wanted) + " bytes at 0x" + gdb::to_hex(at);
    if (classified.kind != ReplyKind::kData) fail_reply(what, classified);
    const std::vector<uint8_t> bytes = gdb::from_hex(reply);
    if (bytes.size() > wanted) fail_reply(what, classified);
    memory.insert(memory.end(), bytes.begin(), bytes.end());  // a short read continues
  }
  return memory;
}

void GdbClient::write_memory(uint64_t address, std::span<const uint8_t> bytes) {
  const size_t chunk = (packet_size_ - kPacketOverhead) / 2;
  for (size_t done = 0; done < bytes.size();) {
    const size_t count = std::min(chunk, bytes.size() - done);
    const uint64_t at = address + done;
    expect_ok("M" + gdb::to_hex(at) + "," + gdb::to_hex(count) + ":" +
                  gdb::to_hex(bytes.subspan(done, count)),
              "write " + std::to_string(count) + " bytes at 0x" + gdb::to_hex(at));
    done += count;
  }
}

std::vector<uint64_t> GdbClient::read_registers() {
  std::string reply = request("g");
  const gdb::Reply classified = gdb::classify_reply(reply);
  if (classified.kind != ReplyKind::kData) fail_reply("read registers", classified);
  std::replace(reply.begin(), reply.end(), 'x', '0');  // "xx": value unavailable
  const std::vector<uint8_t> bytes = gdb::from_hex(reply);
  std::vector<uint64_t> registers(bytes.size() / 8);
  for (size_t i = 0; i < registers.size(); ++i)
    registers[i] = little_endian_u64(bytes.data() + 8 * i);
  return registers;
}

void GdbClient::resume() {
  if (running_) return;
  try {
    send_packet("c");
  } catch (...) {
    healthy_ = false;
    throw;
  }
  running_ = true;
}

std::string GdbClient::interrupt() {
  if (!running_) return stop_reply_;  // QEMU ignores 0x03 while stopped
  try {
    connection_.send_all(std::string(1, kInterruptByte));
    const auto deadline = connection_.deadline_from_now();
    std::string reply;
    do reply = receive_packet_until(deadline);
    while (!gdb::is_stop_reply(reply));
    running_ = false;
    stop_reply_ = reply;
    return reply;
  } catch (...) {
    healthy_ = false;
    throw;
  }
}

void GdbClient::detach() {
  interrupt();  // packets sent while QEMU runs are swallowed
  expect_ok(gdb::detach_packet(stop_reply_), "detach");
}

}  // namespace dcpi
