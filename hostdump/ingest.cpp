#include "hostdump/ingest.h"

#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace dcpi {

RecordedFormat detect_recorded_format(std::span<const uint8_t> bytes) {
  uint64_t magic = 0;
  if (bytes.size() >= sizeof magic) std::memcpy(&magic, bytes.data(), sizeof magic);
  return magic == kTransferRingMagic ? RecordedFormat::kRingImage : RecordedFormat::kStream;
}

DecodeStats ingest_recorded(std::span<const uint8_t> bytes, ProfileBuilder& builder) {
  DecodeStats stats;
  if (detect_recorded_format(bytes) == RecordedFormat::kRingImage) {
    TransferRingHeader header;
    if (bytes.size() < sizeof header) throw GuestStateError("ring image shorter than its header");
    std::memcpy(&header, bytes.data(), sizeof header);
    check_ring_header(header);
    const uint64_t data_offset = offsetof(TransferRing, data);
    if (bytes.size() < data_offset + header.capacity)
      throw GuestStateError("ring image truncated: " + std::to_string(bytes.size()) +
                            " bytes, the ring needs " +
                            std::to_string(data_offset + header.capacity));
    std::vector<uint8_t> window;
    window.reserve(header.head - header.tail);
    for (uint64_t position = header.tail; position < header.head; ++position)
      window.push_back(bytes[data_offset + position % header.capacity]);
    SequenceTracker sequence;
    const RingDecodeResult result =
        decode_ring_window(window, header.tail, header.capacity, sequence, stats);
    for (const TransferRecord& record : result.records) builder.add_record(record);
    builder.note_ring_drops(header.records_dropped, header.samples_dropped);
  } else {
    StreamDecoder decoder;
    for (const TransferRecord& record : decoder.feed(bytes)) builder.add_record(record);
    for (const TransferRecord& record : decoder.finish()) builder.add_record(record);
    stats = decoder.stats();
  }
  builder.add_decode_stats(stats);
  return stats;
}

}  // namespace dcpi
