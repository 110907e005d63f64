// GdbClient against a scripted fake stub, and its failure modes: a stub that
// never answers, nothing listening, a stub that hangs up.
#include "hostdump/gdb/gdb_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <numeric>
#include <thread>

#include "fake_gdb_stub.h"

namespace dcpi {
namespace {

using namespace std::chrono_literals;
using testing::FakeGdbStub;
using testing::FakeStubOptions;

StubAddress loopback(uint16_t port) { return {"127.0.0.1", port}; }

std::vector<uint8_t> counting_bytes(size_t count) {
  std::vector<uint8_t> bytes(count);
  std::iota(bytes.begin(), bytes.end(), uint8_t{0});
  return bytes;
}

TEST(GdbClient, NegotiatesNoAckModeAndReadsStopReply) {
  FakeGdbStub stub;
  GdbClient client(loopback(stub.port()), 2s);
  EXPECT_FALSE(client.ack_mode());
  EXPECT_EQ(client.packet_size(), 0x1000u);
  EXPECT_EQ(client.stop_reply(), "T05thread:01;");
  EXPECT_EQ(stub.packets().front(), "qSupported");
}

TEST(GdbClient, StaysInAckModeWhenStubDoesNotOfferNoAck) {
  FakeGdbStub stub({.offer_no_ack = false});
  GdbClient client(loopback(stub.port()), 2s);
  EXPECT_TRUE(client.ack_mode());
  client.set_physical_memory_mode(true);
  EXPECT_TRUE(stub.physical_mode());
}

TEST(GdbClient, AsksForResendOnBadChecksumInAckMode) {
  FakeGdbStub stub({.offer_no_ack = false, .corrupt_replies = 2});
  GdbClient client(loopback(stub.port()), 2s);
  EXPECT_EQ(client.packet_size(), 0x1000u);
  EXPECT_TRUE(client.healthy());
}

TEST(GdbClient, PhysicalMemoryModeTogglesQemuPacket) {
  FakeGdbStub stub;
  GdbClient client(loopback(stub.port()), 2s);
  client.set_physical_memory_mode(true);
  EXPECT_TRUE(stub.physical_mode());
  client.set_physical_memory_mode(false);
  EXPECT_FALSE(stub.physical_mode());
  const auto packets = stub.packets();
  EXPECT_EQ(packets[packets.size() - 2], "Qqemu.PhyMemMode:1");
  EXPECT_EQ(packets.back(), "Qqemu.PhyMemMode:0");
}

TEST(GdbClient, ReadMemoryIsChunkedToPacketSize) {
  FakeGdbStub stub({.packet_size = 0x100});
  stub.add_memory(0x10000, counting_bytes(1000));
  GdbClient client(loopback(stub.port()), 2s);
  client.set_physical_memory_mode(true);
  EXPECT_EQ(client.read_memory(0x10000, 1000), counting_bytes(1000));
  size_t reads = 0;
  for (const std::string& packet : stub.packets()) reads += packet[0] == 'm';
  EXPECT_GT(reads, 1000u / 0x80);  // each reply (2 hex digits per byte) fits 0x100
}

TEST(GdbClient, ReadMemoryContinuesAfterShortReplies) {
  FakeGdbStub stub({.max_read_reply = 7});
  stub.add_memory(0x2000, counting_bytes(100));
  GdbClient client(loopback(stub.port()), 2s);
  client.set_physical_memory_mode(true);
  const std::vector<uint8_t> all = counting_bytes(100);
  EXPECT_EQ(client.read_memory(0x2000 + 3, 50),
            std::vector<uint8_t>(all.begin() + 3, all.begin() + 53));
}

TEST(GdbClient, ReadMemoryErrorNamesAddressAndCode) {
  FakeGdbStub stub;
  GdbClient client(loopback(stub.port()), 2s);
  client.set_physical_memory_mode(true);
  try {
    client.read_memory(0xdead0, 16);
    FAIL() << "expected an error";
  } catch (const gdb::ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("refused to read 16 bytes at 0xdead0 (error 20)"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(client.healthy());  // an error reply is a normal answer
}

TEST(GdbClient, WriteMemoryThenReadBack) {
  FakeGdbStub stub({.packet_size = 0x80});
  stub.add_memory(0x4000, std::vector<uint8_t>(300));
  GdbClient client(loopback(stub.port()), 2s);
  client.set_physical_memory_mode(true);
  client.write_memory(0x4000 + 10, counting_bytes(200));
  EXPECT_EQ(stub.memory(0x4000 + 10, 200), counting_bytes(200));
  EXPECT_EQ(client.read_memory(0x4000 + 10, 200), counting_bytes(200));
}

TEST(GdbClient, ReadRegistersDecodesLittleEndianAndUnavailable) {
  FakeGdbStub stub;
  GdbClient client(loopback(stub.port()), 2s);
  const std::vector<uint64_t> registers = client.read_registers();
  ASSERT_EQ(registers.size(), 67u);
  EXPECT_EQ(registers[1], 0x0101010101010101ull);
  EXPECT_EQ(registers[alpha_reg::kPc], 64 * 0x0101010101010101ull);
  EXPECT_EQ(registers[65], 0u);  // sent as "xx…"
}

TEST(GdbClient, ResumeInterruptAndDetach) {
  FakeGdbStub stub;
  GdbClient client(loopback(stub.port()), 2s);
  client.resume();
  EXPECT_EQ(client.interrupt(), "T02thread:01;");
  client.resume();
  client.detach();  // interrupts first: QEMU swallows packets while running
  EXPECT_TRUE(stub.detached());
  EXPECT_EQ(stub.packets().back(), "D");
}

TEST(GdbClient, ParsesStubAddresses) {
  EXPECT_EQ(parse_stub_address("127.0.0.1:1234").port, 1234);
  EXPECT_EQ(parse_stub_address("tcp:localhost:99").host, "localhost");
  EXPECT_EQ(parse_stub_address(":1234").host, "127.0.0.1");
  EXPECT_THROW(parse_stub_address("1234"), std::invalid_argument);
  EXPECT_THROW(parse_stub_address("host:0"), std::invalid_argument);
  EXPECT_THROW(parse_stub_address("host:65536"), std::invalid_argument);
  EXPECT_THROW(parse_stub_address("host:12x"), std::invalid_argument);
}

TEST(ClientTimeout, SilentStubFailsWithinTimeoutWithClearMessage) {
  testing::SilentListener listener;
  const auto start = std::chrono::steady_clock::now();
  try {
    GdbClient client(loopback(listener.port()), 300ms);
    FAIL() << "expected a timeout";
  } catch (const TimeoutError& error) {
    EXPECT_EQ(std::string(error.what()),
              "gdb stub at 127.0.0.1:" + std::to_string(listener.port()) +
                  " did not answer within 0.3 s");
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, 300ms);
  EXPECT_LT(elapsed, 2s);
}

TEST(ClientTimeout, ConnectionRefusedIsExplained) {
  const uint16_t port = testing::unused_port();
  try {
    GdbClient client(loopback(port), 1s);
    FAIL() << "expected connection refused";
  } catch (const ConnectionError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot connect to gdb stub at 127.0.0.1:" + std::to_string(port) +
                           ": connection refused"),
              std::string::npos)
        << message;
  }
}

// A stub process that dies right after accepting.
TEST(ClientTimeout, StubThatHangsUpIsReported) {
  const int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(listen(server, 1), 0);
  ASSERT_EQ(getsockname(server, reinterpret_cast<sockaddr*>(&address), &length), 0);
  std::thread hang_up([server] { close(accept(server, nullptr, nullptr)); });
  const std::string description =
      "gdb stub at 127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  try {
    GdbClient client(loopback(ntohs(address.sin_port)), 2s);
    ADD_FAILURE() << "expected an error";
  } catch (const TimeoutError& error) {
    ADD_FAILURE() << "a hang-up must not wait for the timeout: " << error.what();
  } catch (const ConnectionError& error) {
    // Depending on timing the send or the receive notices the hang-up.
    EXPECT_NE(std::string(error.what()).find(description), std::string::npos) << error.what();
  }
  hang_up.join();
  close(server);
}

}  // namespace
}  // namespace dcpi
