#include "hostdump/sample_log_reader.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "hostdump/gdb/gdb_client.h"
#include "hostdump/gdb/gdb_packet.h"

namespace dcpi {
namespace {

constexpr size_t kHeaderBytes = offsetof(SampleLog, records);

uint64_t load_le64(std::span<const uint8_t> bytes, size_t offset) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[offset + static_cast<size_t>(i)];
  return value;
}

}  // namespace

bool is_kseg_address(uint64_t address) {
  return address >= kKsegBase && address - kKsegBase < kKsegSize;
}

uint64_t kseg_to_physical(uint64_t address) {
  if (!is_kseg_address(address))
    throw std::invalid_argument("address 0x" + gdb::to_hex(address) +
                                " is not a KSEG address (0xfffffc0000000000 + physical)");
  return address - kKsegBase;
}

uint64_t SampleLogHeader::readable_records() const {
  return std::min({written, capacity, uint64_t{kSampleLogCapacity}});
}

SampleLogHeader decode_sample_log_header(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderBytes) throw std::invalid_argument("sample log header too short");
  return {load_le64(bytes, offsetof(SampleLog, magic)), load_le64(bytes, offsetof(SampleLog, cpu)),
          load_le64(bytes, offsetof(SampleLog, written)),
          load_le64(bytes, offsetof(SampleLog, dropped)),
          load_le64(bytes, offsetof(SampleLog, capacity))};
}

std::vector<SampleRecord> decode_sample_records(std::span<const uint8_t> bytes) {
  std::vector<SampleRecord> records(bytes.size() / sizeof(SampleRecord));
  for (size_t i = 0; i < records.size(); ++i) {
    const size_t offset = i * sizeof(SampleRecord);
    records[i] = {load_le64(bytes, offset + offsetof(SampleRecord, pc)),
                  load_le64(bytes, offset + offsetof(SampleRecord, ps))};
  }
  return records;
}

SampleLogSnapshot read_sample_logs(GdbClient& client, uint64_t physical_base, uint32_t slots) {
  SampleLogSnapshot snapshot;
  for (uint32_t slot = 0; slot < slots; ++slot) {
    const uint64_t log_address = physical_base + uint64_t{slot} * sizeof(SampleLog);
    const SampleLogHeader header =
        decode_sample_log_header(client.read_memory(log_address, kHeaderBytes));
    if (!header.initialised()) {
      snapshot.uninitialised_slots.push_back(slot);
      continue;
    }
    const size_t record_bytes = header.readable_records() * sizeof(SampleRecord);
    snapshot.cpus.push_back(
        {slot, header,
         decode_sample_records(client.read_memory(log_address + kHeaderBytes, record_bytes))});
  }
  return snapshot;
}

}  // namespace dcpi
