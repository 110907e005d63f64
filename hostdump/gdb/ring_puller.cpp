#include "hostdump/gdb/ring_puller.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstring>
#include <thread>

#include "hostdump/gdb/gdb_client.h"

namespace dcpi {
namespace {

template <typename T>
T from_bytes(const std::vector<uint8_t>& bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}

std::span<const uint8_t> as_bytes(const uint64_t& value) {
  return {reinterpret_cast<const uint8_t*>(&value), sizeof value};
}

}  // namespace

RingPuller::RingPuller(GdbClient& client, uint64_t ring_physical_address)
    : client_(client), address_(ring_physical_address) {}

RingPull RingPuller::pull() {
  RingPull pull;
  pull.header =
      from_bytes<TransferRingHeader>(client_.read_memory(address_, sizeof(TransferRingHeader)));
  if (!check_ring_header(pull.header)) {
    pull.initialised = false;
    return pull;
  }
  const TransferRingHeader& header = pull.header;
  const uint64_t data = address_ + offsetof(TransferRing, data);
  // Decoded but not yet acknowledged: [tail, consumed_to_) is still in the
  // ring, but this host has it. A guest that rebooted starts below it again.
  uint64_t from = header.tail;
  if (consumed_to_ && *consumed_to_ > from && *consumed_to_ <= header.head) from = *consumed_to_;
  acknowledged_ = header.tail;
  // [from, head) unwrapped: up to two reads, split where the ring wraps.
  std::vector<uint8_t> window;
  window.reserve(header.head - from);
  for (uint64_t position = from; position < header.head;) {
    const uint64_t offset = position % header.capacity;
    const uint64_t length = std::min(header.head - position, header.capacity - offset);
    const std::vector<uint8_t> piece = client_.read_memory(data + offset, length);
    window.insert(window.end(), piece.begin(), piece.end());
    position += length;
  }
  pull.bytes_read = window.size();
  RingDecodeResult decoded =
      decode_ring_window(window, from, header.capacity, sequence_, pull.stats);
  pull.records = std::move(decoded.records);
  consumed_to_ = decoded.consumed_to;
  total_ += pull.stats;
  return pull;
}

void RingPuller::acknowledge() {
  if (!consumed_to_ || *consumed_to_ == acknowledged_) return;
  client_.write_memory(address_ + offsetof(TransferRingHeader, tail), as_bytes(*consumed_to_));
  acknowledged_ = *consumed_to_;
}

ControlChannel::ControlChannel(GdbClient& client, uint64_t control_physical_address)
    : client_(client), address_(control_physical_address) {}

ControlBlock ControlChannel::read() {
  const auto block = from_bytes<ControlBlock>(client_.read_memory(address_, sizeof(ControlBlock)));
  if (block.magic != kControlMagic)
    throw GuestStateError(fmt::format(
        "control block at physical {:#x} is not initialised (magic {:#x}): is the DCPI driver "
        "running?",
        address_, block.magic));
  return block;
}

uint64_t ControlChannel::submit(ControlCommand command, uint64_t arg0, uint64_t arg1,
                                uint64_t arg2) {
  const ControlBlock block = read();
  if (block.done_sequence != block.request_sequence)
    throw GuestStateError("control block busy: request " + std::to_string(block.request_sequence) +
                          " not done yet (done " + std::to_string(block.done_sequence) + ")");
  struct {
    uint32_t command;
    uint32_t reserved;
    uint64_t args[3];
  } fields{static_cast<uint32_t>(command), 0, {arg0, arg1, arg2}};
  static_assert(sizeof fields ==
                offsetof(ControlBlock, done_sequence) - offsetof(ControlBlock, command));
  client_.write_memory(address_ + offsetof(ControlBlock, command),
                       {reinterpret_cast<const uint8_t*>(&fields), sizeof fields});
  const uint64_t sequence = block.request_sequence + 1;
  client_.write_memory(address_ + offsetof(ControlBlock, request_sequence), as_bytes(sequence));
  return sequence;
}

std::optional<int64_t> ControlChannel::poll(uint64_t sequence) {
  const ControlBlock block = read();
  if (block.done_sequence < sequence) return std::nullopt;
  return block.status;
}

int64_t ControlChannel::execute(ControlCommand command, uint64_t arg0, uint64_t arg1,
                                std::chrono::milliseconds timeout,
                                std::chrono::milliseconds slice) {
  const uint64_t sequence = submit(command, arg0, arg1);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    client_.resume();
    std::this_thread::sleep_for(slice);
    client_.interrupt();
    if (const std::optional<int64_t> status = poll(sequence)) return *status;
    if (std::chrono::steady_clock::now() >= deadline)
      throw GuestStateError("the guest did not perform control command " +
                            std::to_string(static_cast<uint32_t>(command)) + " within " +
                            std::to_string(timeout.count()) + " ms");
  }
}

std::string control_status_text(int64_t status) {
  switch (status) {
    case kControlOk:
      return "ok";
    case kControlUnknownCommand:
      return "unknown command";
    case kControlUncountableEvent:
      return "event not countable on this machine";
    case kControlBadArgument:
      return "bad argument";
    default:
      return "status " + std::to_string(status);
  }
}

}  // namespace dcpi
