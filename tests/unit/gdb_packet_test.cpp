// GDB remote serial protocol codec (hostdump/gdb/gdb_packet.h).
#include "hostdump/gdb/gdb_packet.h"

#include <gtest/gtest.h>

namespace dcpi::gdb {
namespace {

TEST(GdbPacket, ChecksumIsByteSumModulo256) {
  EXPECT_EQ(checksum(""), 0);
  EXPECT_EQ(checksum("OK"), 0x9a);
  EXPECT_EQ(checksum("g"), 0x67);
  EXPECT_EQ(checksum(std::string(3, '\xff')), 0xfd);
}

TEST(GdbPacket, FrameAddsDollarHashAndChecksum) {
  EXPECT_EQ(frame("OK"), "$OK#9a");
  EXPECT_EQ(frame("qSupported"), "$qSupported#37");
  EXPECT_EQ(frame(""), "$#00");
}

TEST(GdbPacket, EscapesReservedBytes) {
  EXPECT_EQ(escape("a$b#c}d*e"),
            "a}\x04"
            "b}\x03"
            "c}]d}\x0a"
            "e");
  EXPECT_EQ(escape("plain"), "plain");
}

TEST(GdbPacket, EscapeRoundTripsEveryByte) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(decode_payload(escape(all)), all);
}

TEST(GdbPacket, FrameChecksumCoversEscapedBytes) {
  const std::string framed = frame("#");
  EXPECT_EQ(framed, "$}\x03#80");
  EXPECT_EQ(parse_frame(framed).payload, "#");
}

TEST(GdbPacket, RunLengthDecoding) {
  EXPECT_EQ(decode_payload("0* "), "0000");         // ' ' = 32: 3 more copies
  EXPECT_EQ(decode_payload("x*!y"), "xxxxxy");      // '!' = 33: 4 more
  EXPECT_EQ(decode_payload("ab*\"c"), "abbbbbbc");  // '"' = 34: 5 more
  EXPECT_EQ(decode_payload("}]*!"), "}}}}}");       // repeat of an escaped byte
}

TEST(GdbPacket, RunLengthOfQemuStyleZeroRegisters) {
  const std::string expanded = decode_payload("0*~");  // '~' = 126: 97 more
  EXPECT_EQ(expanded, std::string(98, '0'));
}

TEST(GdbPacket, MalformedRunLengthAndEscapesRejected) {
  EXPECT_THROW(decode_payload("*!"), ProtocolError);      // nothing to repeat
  EXPECT_THROW(decode_payload("a*"), ProtocolError);      // count missing
  EXPECT_THROW(decode_payload("a}"), ProtocolError);      // dangling escape
  EXPECT_THROW(decode_payload("a*\x05"), ProtocolError);  // control char count
}

TEST(GdbPacket, ParseFrameReportsConsumedBytes) {
  const ParsedFrame parsed = parse_frame("$OK#9a+extra");
  EXPECT_EQ(parsed.payload, "OK");
  EXPECT_EQ(parsed.consumed, 6u);
}

TEST(GdbPacket, ParseFrameWaitsForIncompleteInput) {
  EXPECT_EQ(parse_frame("$OK").consumed, 0u);
  EXPECT_EQ(parse_frame("$OK#9").consumed, 0u);
  EXPECT_EQ(parse_frame("$OK#").consumed, 0u);
}

TEST(GdbPacket, ParseFrameAcceptsUpperCaseChecksum) {
  EXPECT_EQ(parse_frame("$OK#9A").payload, "OK");
}

TEST(GdbPacket, MalformedFramesRejected) {
  EXPECT_THROW(parse_frame("OK#9a"), ProtocolError);    // no '$'
  EXPECT_THROW(parse_frame("$OK#9b"), ProtocolError);   // wrong checksum
  EXPECT_THROW(parse_frame("$OK#zz"), ProtocolError);   // checksum not hex
  EXPECT_THROW(parse_frame("$O$K#9a"), ProtocolError);  // '$' inside
  EXPECT_THROW(parse_frame(""), ProtocolError);
}

TEST(GdbPacket, ClassifiesReplies) {
  EXPECT_EQ(classify_reply("OK").kind, ReplyKind::kOk);
  EXPECT_EQ(classify_reply("").kind, ReplyKind::kUnsupported);
  const Reply error = classify_reply("E14");
  EXPECT_EQ(error.kind, ReplyKind::kError);
  EXPECT_EQ(error.error_code, 0x14);
  EXPECT_EQ(classify_reply("E.memory fault").kind, ReplyKind::kError);
  EXPECT_EQ(classify_reply("E.memory fault").error_code, -1);
  // Hex memory that starts with 'E' has even length: it is data.
  EXPECT_EQ(classify_reply("E1").kind, ReplyKind::kData);
  EXPECT_EQ(classify_reply("E142").kind, ReplyKind::kData);
  EXPECT_EQ(classify_reply("EZZ").kind, ReplyKind::kData);
  EXPECT_EQ(classify_reply("0011").kind, ReplyKind::kData);
}

TEST(GdbPacket, RecognisesStopReplies) {
  EXPECT_TRUE(is_stop_reply("S05"));
  EXPECT_TRUE(is_stop_reply("T05thread:01;"));
  EXPECT_TRUE(is_stop_reply("W00"));
  EXPECT_FALSE(is_stop_reply("OK"));
  EXPECT_FALSE(is_stop_reply(""));
}

TEST(GdbPacket, DetachPacketNamesProcessInMultiprocessMode) {
  EXPECT_EQ(detach_packet("T05thread:01;"), "D");
  EXPECT_EQ(detach_packet("S05"), "D");
  EXPECT_EQ(detach_packet("T05thread:p01.01;"), "D;01");
  EXPECT_EQ(detach_packet("T02thread:p2a.03;"), "D;2a");
}

TEST(GdbPacket, HexRoundTrip) {
  const std::vector<uint8_t> bytes = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
  EXPECT_EQ(to_hex(bytes), "00017f80abff");
  EXPECT_EQ(from_hex("00017f80ABff"), bytes);
  EXPECT_EQ(to_hex(uint64_t{0}), "0");
  EXPECT_EQ(to_hex(uint64_t{0xfffffc0000310000}), "fffffc0000310000");
  EXPECT_EQ(parse_hex_u64("fffffc0000310000"), 0xfffffc0000310000ull);
}

TEST(GdbPacket, BadHexRejected) {
  EXPECT_THROW(from_hex("abc"), ProtocolError);
  EXPECT_THROW(from_hex("zz"), ProtocolError);
  EXPECT_THROW(parse_hex_u64(""), ProtocolError);
  EXPECT_THROW(parse_hex_u64("12g"), ProtocolError);
  EXPECT_THROW(parse_hex_u64("1ffffffffffffffff"), ProtocolError);  // > 64 bits
}

}  // namespace
}  // namespace dcpi::gdb
