// The ring puller and control channel against the fake GDB stub: records
// come out, tail is written back with an `M` packet, a second pull sees
// nothing new, bad ring headers are explained; control commands are written
// in order and their completion awaited.
#include "hostdump/gdb/ring_puller.h"

#include <gtest/gtest.h>

#include <cstddef>

#include "fake_gdb_stub.h"
#include "hostdump/gdb/gdb_client.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

using namespace std::chrono_literals;
using testing::FakeGdbStub;

constexpr uint64_t kRingAddress = 0x400000;
constexpr uint64_t kControlAddress = 0x100000;

uint64_t tail_in(const FakeGdbStub& stub) {
  uint64_t tail = 0;
  const auto bytes = stub.memory(kRingAddress + offsetof(TransferRingHeader, tail), 8);
  std::memcpy(&tail, bytes.data(), 8);
  return tail;
}

TEST(RingPuller, PullsNewRecordsAndAdvancesTailOnlyWhenAcknowledged) {
  testing::RingImage ring(kTransferRingBytes - 64);  // wraps on the second record
  std::vector<SampleEntry> entries = {{0x1000, 3, 1, 0}, {0x1004, 1, 1, 0}};
  ring.append(RecordType::kSamples, testing::samples_payload(entries), 0, 1);
  ring.append(RecordType::kSamples, testing::samples_payload(entries), 1, 2);
  FakeGdbStub stub;
  stub.add_memory(kRingAddress, ring.image());
  GdbClient client({"127.0.0.1", stub.port()}, 2s);
  client.set_physical_memory_mode(true);
  RingPuller puller(client, kRingAddress);
  const RingPull first = puller.pull();
  ASSERT_EQ(first.records.size(), 2u);
  EXPECT_EQ(first.records[1].header.cpu, 2u);
  EXPECT_EQ(first.stats.pads, 1u);
  // Issue 18: the guest's space is released only once the caller has stored
  // the records; a pull alone leaves the tail.
  EXPECT_EQ(tail_in(stub), ring.header.tail);
  EXPECT_TRUE(puller.pull().records.empty());  // not read twice meanwhile
  EXPECT_EQ(tail_in(stub), ring.header.tail);
  puller.acknowledge();
  EXPECT_EQ(tail_in(stub), ring.header.head);
  bool wrote_tail = false;
  for (const std::string& packet : stub.packets())
    wrote_tail |= packet.starts_with("M" + gdb::to_hex(kRingAddress + 32) + ",8:");
  EXPECT_TRUE(wrote_tail);
  const RingPull second = puller.pull();
  EXPECT_TRUE(second.records.empty());
  EXPECT_EQ(second.bytes_read, 0u);
}

TEST(RingPuller, UninitialisedRingIsNotAnError) {
  FakeGdbStub stub;
  stub.add_memory(kRingAddress, std::vector<uint8_t>(4096));
  GdbClient client({"127.0.0.1", stub.port()}, 2s);
  client.set_physical_memory_mode(true);
  RingPuller puller(client, kRingAddress);
  EXPECT_FALSE(puller.pull().initialised);
}

TEST(RingPuller, ImpossibleHeadersAreExplained) {
  TransferRingHeader header = testing::RingImage(0, kTransferRingBytes).header;
  header.head = 64;
  header.tail = 128;
  EXPECT_THROW(check_ring_header(header), GuestStateError);
  header.tail = 0;
  header.head = kTransferRingBytes + 32;
  try {
    check_ring_header(header);
    FAIL();
  } catch (const GuestStateError& error) {
    EXPECT_NE(std::string(error.what()).find("more than the capacity ahead"), std::string::npos);
  }
  header.head = 32;
  header.version = 9;
  EXPECT_THROW(check_ring_header(header), GuestStateError);
}

ControlBlock ready_block() {
  ControlBlock block{};
  block.magic = kControlMagic;
  block.request_sequence = block.done_sequence = 4;
  return block;
}

TEST(ControlChannel, SubmitWritesArgumentsThenSequence) {
  FakeGdbStub stub;
  stub.add_memory(kControlAddress, testing::bytes_of(ready_block()));
  GdbClient client({"127.0.0.1", stub.port()}, 2s);
  client.set_physical_memory_mode(true);
  ControlChannel control(client, kControlAddress);
  EXPECT_EQ(control.submit(ControlCommand::kSetPeriod, 60000, 4096), 5u);
  ControlBlock block;
  const auto bytes = stub.memory(kControlAddress, sizeof block);
  std::memcpy(&block, bytes.data(), sizeof block);
  EXPECT_EQ(block.command, uint32_t(ControlCommand::kSetPeriod));
  EXPECT_EQ(block.args[0], 60000u);
  EXPECT_EQ(block.args[1], 4096u);
  EXPECT_EQ(block.request_sequence, 5u);
  std::vector<std::string> writes;
  for (const std::string& packet : stub.packets())
    if (packet[0] == 'M') writes.push_back(packet.substr(0, packet.find(',')));
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0], "M" + gdb::to_hex(kControlAddress + offsetof(ControlBlock, command)));
  EXPECT_EQ(writes[1], "M" + gdb::to_hex(kControlAddress + 8));
  EXPECT_FALSE(control.poll(5));
  EXPECT_THROW(control.submit(ControlCommand::kFlush), GuestStateError);  // still busy
}

TEST(ControlChannel, ExecuteWaitsForTheGuestDaemon) {
  int resumes = 0;
  FakeGdbStub stub({.on_resume = [&resumes](FakeGdbStub& self) {
    if (++resumes < 3) return;  // the daemon takes a while
    ControlBlock block;
    const auto bytes = self.memory(kControlAddress, sizeof block);
    std::memcpy(&block, bytes.data(), sizeof block);
    block.done_sequence = block.request_sequence;
    block.status = block.command == uint32_t(ControlCommand::kSetEvents) ? kControlUncountableEvent
                                                                         : kControlOk;
    self.poke(kControlAddress, testing::bytes_of(block));
  }});
  stub.add_memory(kControlAddress, testing::bytes_of(ready_block()));
  GdbClient client({"127.0.0.1", stub.port()}, 2s);
  client.set_physical_memory_mode(true);
  ControlChannel control(client, kControlAddress);
  EXPECT_EQ(control.execute(ControlCommand::kFlush, 0, 0, 2s, 1ms), kControlOk);
  EXPECT_EQ(resumes, 3);
  EXPECT_EQ(control.execute(ControlCommand::kSetEvents, 2, 0, 2s, 1ms), kControlUncountableEvent);
  EXPECT_EQ(control_status_text(kControlUncountableEvent), "event not countable on this machine");
}

TEST(ControlChannel, UninitialisedBlockAndTimeout) {
  FakeGdbStub stub;
  stub.add_memory(kControlAddress, std::vector<uint8_t>(64));
  stub.add_memory(kControlAddress + 0x1000, testing::bytes_of(ready_block()));
  GdbClient client({"127.0.0.1", stub.port()}, 2s);
  client.set_physical_memory_mode(true);
  ControlChannel missing(client, kControlAddress);
  EXPECT_THROW(missing.read(), GuestStateError);
  ControlChannel idle(client, kControlAddress + 0x1000);  // nobody answers
  EXPECT_THROW(idle.execute(ControlCommand::kFlush, 0, 0, 50ms, 5ms), GuestStateError);
}

}  // namespace
}  // namespace dcpi
