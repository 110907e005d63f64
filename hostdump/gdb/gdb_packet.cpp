#include "hostdump/gdb/gdb_packet.h"

#include <fmt/format.h>

#include <charconv>

namespace dcpi::gdb {
namespace {

constexpr char kEscape = '}';
constexpr char kRunLength = '*';
constexpr uint8_t kEscapeXor = 0x20;
// "X* " means X four times: the count character minus 29 extra copies.
constexpr int kRunLengthBias = 29;

bool needs_escape(char c) { return c == '$' || c == '#' || c == kEscape || c == kRunLength; }

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr char kHexDigits[] = "0123456789abcdef";

void append_repeats(std::string& out, char count_char) {
  if (out.empty()) throw ProtocolError("run-length marker '*' with nothing to repeat");
  // Printable counts only: GDB never sends control characters here.
  if (count_char < ' ' || count_char > '~')
    throw ProtocolError("invalid run-length count character");
  const int repeats = count_char - kRunLengthBias;
  out.append(static_cast<size_t>(repeats), out.back());
}

}  // namespace

uint8_t checksum(std::string_view bytes) {
  uint8_t sum = 0;
  for (char c : bytes) sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
  return sum;
}

std::string escape(std::string_view payload) {
  std::string out;
  out.reserve(payload.size());
  for (char c : payload) {
    if (needs_escape(c)) {
      out.push_back(kEscape);
      out.push_back(static_cast<char>(c ^ kEscapeXor));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string frame(std::string_view payload) {
  const std::string body = escape(payload);
  const uint8_t sum = checksum(body);
  std::string out = "$" + body + "#";
  out.push_back(kHexDigits[sum >> 4]);
  out.push_back(kHexDigits[sum & 0xf]);
  return out;
}

std::string decode_payload(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c != kEscape && c != kRunLength) {
      out.push_back(c);
      continue;
    }
    if (i + 1 == raw.size()) throw ProtocolError(std::string("payload ends with '") + c + "'");
    const char next = raw[++i];
    if (c == kEscape)
      out.push_back(static_cast<char>(next ^ kEscapeXor));
    else
      append_repeats(out, next);
  }
  return out;
}

ParsedFrame parse_frame(std::string_view bytes) {
  if (bytes.empty() || bytes[0] != '$') throw ProtocolError("frame does not start with '$'");
  const size_t hash = bytes.find('#', 1);
  const size_t stray = bytes.find('$', 1);
  if (stray != std::string_view::npos && (hash == std::string_view::npos || stray < hash))
    throw ProtocolError("unexpected '$' inside a frame");
  if (hash == std::string_view::npos || bytes.size() < hash + 3) return {};
  const int high = hex_digit_value(bytes[hash + 1]);
  const int low = hex_digit_value(bytes[hash + 2]);
  if (high < 0 || low < 0) throw ProtocolError("frame checksum is not two hex digits");
  const std::string_view body = bytes.substr(1, hash - 1);
  if (checksum(body) != high * 16 + low) throw ProtocolError("frame checksum mismatch");
  return {decode_payload(body), hash + 3};
}

Reply classify_reply(std::string_view payload) {
  if (payload.empty()) return {ReplyKind::kUnsupported, 0, payload};
  if (payload == "OK") return {ReplyKind::kOk, 0, payload};
  if (payload.size() == 3 && payload[0] == 'E' && hex_digit_value(payload[1]) >= 0 &&
      hex_digit_value(payload[2]) >= 0)
    return {ReplyKind::kError, hex_digit_value(payload[1]) * 16 + hex_digit_value(payload[2]),
            payload};
  if (payload.starts_with("E.")) return {ReplyKind::kError, -1, payload};
  return {ReplyKind::kData, 0, payload};
}

bool is_stop_reply(std::string_view payload) {
  return !payload.empty() &&
         (payload[0] == 'S' || payload[0] == 'T' || payload[0] == 'W' || payload[0] == 'X');
}

std::string detach_packet(std::string_view stop_reply) {
  constexpr std::string_view kProcessThread = "thread:p";
  const size_t at = stop_reply.find(kProcessThread);
  if (at == std::string_view::npos) return "D";
  std::string_view pid = stop_reply.substr(at + kProcessThread.size());
  pid = pid.substr(0, pid.find_first_of(".;"));
  return "D;" + std::string(pid);
}

std::string to_hex(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 0xf]);
  }
  return out;
}

// RSP numbers: minimal lower-case hex digits, no prefix.
std::string to_hex(uint64_t value) { return fmt::format("{:x}", value); }

std::vector<uint8_t> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) throw ProtocolError("hex data has odd length");
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int high = hex_digit_value(hex[2 * i]);
    const int low = hex_digit_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) throw ProtocolError("invalid hex digit in data");
    out[i] = static_cast<uint8_t>(high * 16 + low);
  }
  return out;
}

uint64_t parse_hex_u64(std::string_view hex) {
  uint64_t value = 0;
  const auto result = std::from_chars(hex.data(), hex.data() + hex.size(), value, 16);
  if (hex.empty() || result.ec != std::errc() || result.ptr != hex.data() + hex.size())
    throw ProtocolError("invalid hex number '" + std::string(hex) + "'");
  return value;
}

}  // namespace dcpi::gdb
