// Builders for transfer records and rings in tests: what the guest daemon
// would write (firmware/transfer_ring.h), byte for byte.
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include "firmware/load_map.h"
#include "firmware/transfer_ring.h"
#include "hostdump/transfer_records.h"

namespace dcpi::testing {

template <typename T>
std::vector<uint8_t> bytes_of(const T& value) {
  std::vector<uint8_t> bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

inline std::vector<uint8_t> samples_payload(const std::vector<SampleEntry>& entries,
                                            SamplesReason reason = SamplesReason::kFlush) {
  SamplesPayload header{static_cast<uint32_t>(reason), static_cast<uint32_t>(entries.size()), 0};
  // One allocation, two copies (an insert after bytes_of() trips a GCC 12
  // -Warray-bounds false positive when inlined).
  std::vector<uint8_t> bytes(sizeof header + entries.size() * sizeof(SampleEntry));
  std::memcpy(bytes.data(), &header, sizeof header);
  if (!entries.empty())
    std::memcpy(bytes.data() + sizeof header, entries.data(), entries.size() * sizeof(SampleEntry));
  return bytes;
}

inline LoadMapRecord load_record(LoadKind kind, uint32_t pid, uint64_t load_address, uint64_t size,
                                 uint64_t link_address, const std::string& path,
                                 std::vector<uint8_t> build_id = {}) {
  LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(kind);
  record.pid = pid;
  record.load_address = load_address;
  record.size = size;
  record.link_address = link_address;
  std::strncpy(record.path, path.c_str(), kImagePathMax - 1);
  record.build_id_bytes = static_cast<uint32_t>(build_id.size());
  std::copy(build_id.begin(), build_id.end(), record.build_id);
  return record;
}

// Appends records to a byte stream with consecutive sequence numbers.
class RecordStream {
 public:
  explicit RecordStream(uint64_t first_sequence = 0) : sequence_(first_sequence) {}
  RecordStream& add(RecordType type, const std::vector<uint8_t>& payload, uint16_t cpu = 0,
                    uint64_t epoch = 1) {
    const std::vector<uint8_t> record = encode_record(type, cpu, sequence_++, epoch, payload);
    bytes.insert(bytes.end(), record.begin(), record.end());
    return *this;
  }
  RecordStream& samples(const std::vector<SampleEntry>& entries, uint16_t cpu = 0,
                        uint64_t epoch = 1) {
    return add(RecordType::kSamples, samples_payload(entries), cpu, epoch);
  }
  RecordStream& load(const LoadMapRecord& record, uint64_t epoch = 1) {
    return add(RecordType::kLoadMap, bytes_of(record), 0xffff, epoch);
  }
  void skip_sequence() { ++sequence_; }
  std::vector<uint8_t> bytes;

 private:
  uint64_t sequence_;
};

// A ring image (header + capacity data bytes) holding `records` written from
// position `tail` on, with a pad where a record would straddle the end.
struct RingImage {
  TransferRingHeader header{};
  std::vector<uint8_t> data;  // capacity bytes

  explicit RingImage(uint64_t tail = 0, uint64_t capacity = kTransferRingBytes)
      : data(capacity, 0xee) {
    header.magic = kTransferRingMagic;
    header.version = kTransferFormatVersion;
    header.header_bytes = sizeof(TransferRingHeader);
    header.capacity = capacity;
    header.head = header.tail = tail;
  }
  uint64_t pads = 0;  // pad records written so far
  void put(const std::vector<uint8_t>& bytes) {
    for (size_t i = 0; i < bytes.size(); ++i) data[(header.head + i) % data.size()] = bytes[i];
    header.head += bytes.size();
  }
  void append(RecordType type, const std::vector<uint8_t>& payload, uint64_t sequence,
              uint16_t cpu = 0, uint64_t epoch = 1) {
    const uint64_t span = record_span(static_cast<uint32_t>(payload.size()));
    const uint64_t space = data.size() - header.head % data.size();
    // Like the guest's writer, a pad takes a sequence number of its own: the
    // records after it are numbered on from there.
    if (span > space) {
      put(encode_record(RecordType::kPad, 0xffff, sequence + pads, epoch,
                        std::vector<uint8_t>(space - sizeof(RecordHeader), 0)));
      ++pads;
    }
    put(encode_record(type, cpu, sequence + pads, epoch, payload));
  }
  // [tail, head) unwrapped.
  std::vector<uint8_t> window() const {
    std::vector<uint8_t> bytes;
    for (uint64_t p = header.tail; p < header.head; ++p) bytes.push_back(data[p % data.size()]);
    return bytes;
  }
  std::vector<uint8_t> image() const {
    std::vector<uint8_t> bytes(sizeof header + data.size());
    std::memcpy(bytes.data(), &header, sizeof header);
    std::copy(data.begin(), data.end(), bytes.begin() + sizeof header);
    return bytes;
  }
};

}  // namespace dcpi::testing
