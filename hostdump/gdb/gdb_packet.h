// GDB remote serial protocol (RSP) codec: framing, escaping, run-length
// decoding, reply classification and hex helpers. Pure functions, no I/O, so
// the byte-level rules can be tested without a stub.
#pragma once
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dcpi::gdb {

// Anything the stub sent that does not follow the protocol.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Sum of the bytes modulo 256, as sent after '#'.
uint8_t checksum(std::string_view bytes);

// Escapes the bytes RSP reserves ('$', '#', '}', '*') as '}' + (c ^ 0x20).
std::string escape(std::string_view payload);

// "$" + escape(payload) + "#" + two hex digits of the checksum of what was sent.
std::string frame(std::string_view payload);

// Undoes escaping and run-length encoding ("X*n": n - 29 more copies of X) in
// one pass, as GDB does: a repeat may follow an escaped byte.
std::string decode_payload(std::string_view raw);

// A complete frame found in a byte stream.
struct ParsedFrame {
  std::string payload;  // decoded (unescaped, run-length expanded)
  size_t consumed = 0;  // bytes of the input up to and including the checksum
};

// Parses the frame that must start at bytes[0] ('$'). Returns consumed == 0 if
// the frame is not complete yet; throws ProtocolError if it is malformed or
// its checksum does not match.
ParsedFrame parse_frame(std::string_view bytes);

enum class ReplyKind { kOk, kError, kUnsupported, kData };

struct Reply {
  ReplyKind kind = ReplyKind::kData;
  int error_code = 0;     // for kError: the NN of "ENN" (or -1 for "E.text")
  std::string_view data;  // the payload itself for kData
};

// OK, "ENN" error, empty (= command not supported) or anything else (data).
// Hex data always has even length, so a three-byte "ENN" is unambiguous.
Reply classify_reply(std::string_view payload);

// True for stop replies: S (signal), T (signal + registers), W/X (exited).
bool is_stop_reply(std::string_view payload);

// "D", or "D;PID" when the stop reply names a process ("thread:pPID.TID"):
// QEMU keeps multiprocess mode once any debugger asked for it, even across
// connections, and then refuses a bare "D".
std::string detach_packet(std::string_view stop_reply);

std::string to_hex(std::span<const uint8_t> bytes);
std::string to_hex(uint64_t value);  // minimal digits, lower case, no prefix
// Throws ProtocolError on odd length or a non-hex digit.
std::vector<uint8_t> from_hex(std::string_view hex);
uint64_t parse_hex_u64(std::string_view hex);

}  // namespace dcpi::gdb
