#include "hostdump/transfer_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "firmware/load_map.h"
#include "firmware/record_checksum.h"

namespace dcpi {
namespace {

constexpr size_t kHeaderBytes = sizeof(RecordHeader);
constexpr uint8_t kMagicBytes[4] = {kRecordMagic & 0xff, (kRecordMagic >> 8) & 0xff,
                                    (kRecordMagic >> 16) & 0xff, kRecordMagic >> 24};

RecordHeader load_header(const uint8_t* bytes) {
  RecordHeader header;
  std::memcpy(&header, bytes, sizeof header);
  return header;
}

bool known_type(uint16_t type) { return type <= static_cast<uint16_t>(RecordType::kChains); }

// Header-only verdict, shared by both transports. Returns false after counting.
bool header_plausible(const RecordHeader& header, uint64_t max_payload, DecodeStats& stats) {
  if (!known_type(header.type)) {
    ++stats.unknown_type;
    return false;
  }
  if (header.payload_bytes > max_payload) {
    ++stats.oversized;
    return false;
  }
  if (!check_payload_size(static_cast<RecordType>(header.type), header.payload_bytes).empty()) {
    ++stats.bad_payload_size;
    return false;
  }
  return true;
}

// Full verdict once the payload is there.
bool record_valid(const RecordHeader& header, std::span<const uint8_t> payload,
                  DecodeStats& stats) {
  if (record_checksum(header, payload) != header.checksum) {
    ++stats.bad_checksum;
    return false;
  }
  if (!check_payload(header, payload).empty()) {
    ++stats.bad_payload_size;
    return false;
  }
  return true;
}

}  // namespace

DecodeStats& DecodeStats::operator+=(const DecodeStats& other) {
  records += other.records;
  pads += other.pads;
  bad_magic += other.bad_magic;
  bad_checksum += other.bad_checksum;
  truncated += other.truncated;
  oversized += other.oversized;
  bad_payload_size += other.bad_payload_size;
  unknown_type += other.unknown_type;
  duplicates += other.duplicates;
  lost_records += other.lost_records;
  skipped_bytes += other.skipped_bytes;
  return *this;
}

std::string check_payload_size(RecordType type, uint32_t payload_bytes) {
  auto exactly = [&](uint32_t expected, const char* what) -> std::string {
    if (payload_bytes == expected) return "";
    return std::string(what) + " payload must be " + std::to_string(expected) + " bytes, not " +
           std::to_string(payload_bytes);
  };
  switch (type) {
    case RecordType::kPad:
    case RecordType::kValues:  // format owned by the value-sampling issue
    case RecordType::kChains:  // checked whole by decode_chain_payload
      return "";
    case RecordType::kSamples:
      if (payload_bytes >= sizeof(SamplesPayload) &&
          (payload_bytes - sizeof(SamplesPayload)) % sizeof(SampleEntry) == 0)
        return "";
      return "samples payload of " + std::to_string(payload_bytes) +
             " bytes is not 16 + 16 * count";
    case RecordType::kLoadMap:
      return exactly(sizeof(LoadMapRecord), "load-map");
    case RecordType::kStats:  // 128 bytes: a guest from before issue 26's counted cycles,
      // 208: from before counter 1's events, 272: before PC mispredicts,
      // 336: before the CPUs' thread and own cycles
      if (payload_bytes == sizeof(DriverCpuStats) || payload_bytes == kStatsPayloadBeforeCounter1 ||
          payload_bytes == kStatsPayloadBeforePcMispredicts ||
          payload_bytes == kStatsPayloadBeforeCpuTime)
        return "";
      return exactly(sizeof(StatsPayload), "stats");
    case RecordType::kEpoch:
      return exactly(sizeof(EpochPayload), "epoch");
  }
  return "unknown record type " + std::to_string(static_cast<unsigned>(type));
}

std::string check_payload(const RecordHeader& header, std::span<const uint8_t> payload) {
  const auto type = static_cast<RecordType>(header.type);
  std::string problem = check_payload_size(type, header.payload_bytes);
  if (!problem.empty() || type != RecordType::kSamples) return problem;
  SamplesPayload samples;
  std::memcpy(&samples, payload.data(), sizeof samples);
  if (uint64_t{samples.count} * sizeof(SampleEntry) + sizeof(SamplesPayload) != payload.size())
    return "samples count " + std::to_string(samples.count) + " does not match " +
           std::to_string(payload.size()) + " payload bytes";
  if (samples.reason != static_cast<uint32_t>(SamplesReason::kOverflowBuffer) &&
      samples.reason != static_cast<uint32_t>(SamplesReason::kFlush))
    return "unknown samples reason " + std::to_string(samples.reason);
  return "";
}

uint32_t record_checksum(const RecordHeader& header, std::span<const uint8_t> payload) {
  return record_checksum(header, payload.data(), payload.size());
}

std::vector<uint8_t> encode_record(RecordType type, uint16_t cpu, uint64_t sequence, uint64_t epoch,
                                   std::span<const uint8_t> payload) {
  RecordHeader header{};
  header.magic = kRecordMagic;
  header.type = static_cast<uint16_t>(type);
  header.cpu = cpu;
  header.payload_bytes = static_cast<uint32_t>(payload.size());
  header.sequence = sequence;
  header.epoch = epoch;
  header.checksum = record_checksum(header, payload);
  std::vector<uint8_t> bytes(record_span(header.payload_bytes), 0);
  std::memcpy(bytes.data(), &header, sizeof header);
  std::copy(payload.begin(), payload.end(), bytes.begin() + kHeaderBytes);
  return bytes;
}

bool SequenceTracker::accept(uint64_t sequence, DecodeStats& stats) {
  if (started_ && sequence < next_) {
    ++stats.duplicates;
    return false;
  }
  if (started_) stats.lost_records += sequence - next_;
  started_ = true;
  next_ = sequence + 1;
  return true;
}

RingDecodeResult decode_ring_window(std::span<const uint8_t> window, uint64_t tail,
                                    uint64_t capacity, SequenceTracker& sequence,
                                    DecodeStats& stats) {
  RingDecodeResult result;
  const uint64_t head = tail + window.size();
  uint64_t position = tail;
  bool resynchronising = false;
  // After a bad record: continue at the next aligned slot holding the magic.
  auto resync_from = [&](uint64_t from) {
    const uint64_t aligned = (from + kRecordAlignment - 1) & ~uint64_t{kRecordAlignment - 1};
    stats.skipped_bytes += std::min(aligned, head) - position;
    position = std::min(aligned, head);
    resynchronising = true;
  };
  if (position % kRecordAlignment != 0) resync_from(position);

  while (position < head) {
    const uint64_t space_to_end = capacity - position % capacity;
    if (head - position < kHeaderBytes) {
      ++stats.truncated;  // head always follows a complete record: this is damage
      stats.skipped_bytes += head - position;
      position = head;
      break;
    }
    const uint8_t* at = window.data() + (position - tail);
    const RecordHeader header = load_header(at);
    if (header.magic != kRecordMagic) {
      if (!resynchronising) ++stats.bad_magic;
      resync_from(position + kRecordAlignment);
      continue;
    }
    const uint64_t max_payload = std::min<uint64_t>(kMaxRecordPayload, space_to_end - kHeaderBytes);
    if (!header_plausible(header, max_payload, stats)) {
      resync_from(position + kRecordAlignment);
      continue;
    }
    const uint64_t span = record_span(header.payload_bytes);
    if (header.type == static_cast<uint16_t>(RecordType::kPad) && span != space_to_end) {
      ++stats.bad_payload_size;  // a pad must reach exactly the end of the ring
      resync_from(position + kRecordAlignment);
      continue;
    }
    if (span > head - position) {
      ++stats.truncated;
      resync_from(position + kRecordAlignment);
      continue;
    }
    const std::span<const uint8_t> payload(at + kHeaderBytes, header.payload_bytes);
    if (!record_valid(header, payload, stats)) {
      resync_from(position + kRecordAlignment);
      continue;
    }
    resynchronising = false;
    position += span;
    if (!sequence.accept(header.sequence, stats)) continue;
    if (header.type == static_cast<uint16_t>(RecordType::kPad)) {
      ++stats.pads;  // pads take a sequence number like every record
      continue;
    }
    ++stats.records;
    result.records.push_back({header, {payload.begin(), payload.end()}});
  }
  result.consumed_to = position;
  return result;
}

void StreamDecoder::skip(size_t bytes) {
  stats_.skipped_bytes += bytes;
  start_ += bytes;
}

std::vector<TransferRecord> StreamDecoder::feed(std::span<const uint8_t> bytes) {
  if (start_ > 0 && start_ >= buffer_.size() / 2) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<long>(start_));
    start_ = 0;
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
  std::vector<TransferRecord> records;
  for (;;) {
    const size_t available = buffer_.size() - start_;
    const uint8_t* at = buffer_.data() + start_;
    if (!synchronised_) {
      const uint8_t* found =
          std::search(at, at + available, std::begin(kMagicBytes), std::end(kMagicBytes));
      if (found == at + available) {
        // Keep a possible magic prefix at the end for the next feed.
        const size_t keep = std::min<size_t>(available, sizeof kMagicBytes - 1);
        if (at_end_) {
          skip(available);
        } else {
          skip(available - keep);
        }
        break;
      }
      skip(static_cast<size_t>(found - at));
      synchronised_ = true;  // a candidate: the checks below decide
      continue;
    }
    if (available < kHeaderBytes) {
      if (at_end_ && available > 0) {
        ++stats_.truncated;
        skip(available);
      }
      break;
    }
    const RecordHeader header = load_header(at);
    if (header.magic != kRecordMagic) {
      ++stats_.bad_magic;
      synchronised_ = false;
      continue;
    }
    auto reject = [&] {  // look for the next magic after this one
      skip(1);
      synchronised_ = false;
    };
    if (!header_plausible(header, kMaxRecordPayload, stats_)) {
      reject();
      continue;
    }
    const uint64_t span = record_span(header.payload_bytes);
    if (available < span) {
      if (!at_end_) break;  // wait for the rest of the record
      ++stats_.truncated;
      reject();
      continue;
    }
    const std::span<const uint8_t> payload(at + kHeaderBytes, header.payload_bytes);
    if (!record_valid(header, payload, stats_)) {
      reject();
      continue;
    }
    start_ += span;
    if (!sequence_.accept(header.sequence, stats_)) continue;
    if (header.type == static_cast<uint16_t>(RecordType::kPad)) {
      ++stats_.pads;  // pads take a sequence number like every record
      continue;
    }
    ++stats_.records;
    records.push_back({header, {payload.begin(), payload.end()}});
  }
  return records;
}

std::vector<TransferRecord> StreamDecoder::finish() {
  at_end_ = true;
  std::vector<TransferRecord> records = feed({});
  at_end_ = false;
  return records;
}

bool check_ring_header(const TransferRingHeader& header) {
  if (header.magic != kTransferRingMagic) return false;
  auto fail = [](const std::string& problem) {
    throw GuestStateError("transfer ring: " + problem);
  };
  if (header.version != kTransferFormatVersion)
    fail("format version " + std::to_string(header.version) + ", this dcpi reads version " +
         std::to_string(kTransferFormatVersion) + " (rebuild host and guest together)");
  if (header.header_bytes != sizeof(TransferRingHeader))
    fail("header is " + std::to_string(header.header_bytes) + " bytes, expected " +
         std::to_string(sizeof(TransferRingHeader)));
  if (header.capacity != kTransferRingBytes)
    fail("capacity " + std::to_string(header.capacity) + ", expected " +
         std::to_string(kTransferRingBytes));
  if (header.head < header.tail)
    fail(fmt::format("head {:#x} is behind tail {:#x}", header.head, header.tail));
  if (header.head - header.tail > header.capacity)
    fail(fmt::format("head {:#x} is more than the capacity ahead of tail {:#x}", header.head,
                     header.tail));
  if (header.head % kRecordAlignment || header.tail % kRecordAlignment)
    fail(fmt::format("head {:#x} or tail {:#x} is not ", header.head, header.tail) +
         std::to_string(kRecordAlignment) + "-byte aligned");
  return true;
}

}  // namespace dcpi
