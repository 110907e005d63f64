// Decoding of transfer records (firmware/transfer_ring.h, docs/transfer-format.md)
// from the two transports of DESIGN §6: the in-memory ring read through the
// GDB stub, and the same records back to back on the second serial port.
// Nothing from the guest is trusted: every record is checked (magic, CRC-32C,
// sizes against the ring and against its type, sequence), and every rejected
// record or skipped byte is counted, never silently dropped.
#pragma once
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "firmware/transfer_ring.h"

namespace dcpi {

// The ring or control block in guest memory is not usable (not initialised,
// impossible positions, wrong version): the message says which and why.
class GuestStateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks a ring header read from guest memory or a ring image; throws
// GuestStateError if it is inconsistent (bad version/size/capacity, head <
// tail, more than capacity pending, misaligned positions). Returns false if
// the magic is not set yet (the guest is still booting).
bool check_ring_header(const TransferRingHeader& header);

// Largest payload accepted from either transport: a record must fit the ring.
inline constexpr uint32_t kMaxRecordPayload = kTransferRingBytes - sizeof(RecordHeader);

struct TransferRecord {
  RecordHeader header;
  std::vector<uint8_t> payload;  // header.payload_bytes bytes

  RecordType type() const { return static_cast<RecordType>(header.type); }
};

// Counts of everything the decoders saw. Cumulative across calls.
struct DecodeStats {
  uint64_t records = 0;       // valid records returned (pads excluded)
  uint64_t pads = 0;          // kPad records skipped
  uint64_t bad_magic = 0;     // a record was expected here but the magic was wrong
  uint64_t bad_checksum = 0;  // header and payload did not match the checksum
  uint64_t truncated = 0;     // the record runs past the readable bytes (ring head, end of stream)
  uint64_t oversized = 0;     // payload larger than the ring / the space to its end
  uint64_t bad_payload_size = 0;  // payload size inconsistent with the type (e.g. samples count)
  uint64_t unknown_type = 0;
  uint64_t duplicates = 0;     // sequence below the expected one: already seen, ignored
  uint64_t lost_records = 0;   // sum of sequence gaps
  uint64_t skipped_bytes = 0;  // bytes passed over while resynchronising

  uint64_t rejected() const {
    return bad_magic + bad_checksum + truncated + oversized + bad_payload_size + unknown_type;
  }
  DecodeStats& operator+=(const DecodeStats& other);
};

// Expected payload size rules per type; "" if acceptable, else the reason.
// Samples: 16 + 16 * count; load map: 256; stats: 128; epoch: 16.
std::string check_payload_size(RecordType type, uint32_t payload_bytes);
// Same, with the payload available (SamplesPayload count vs bytes).
std::string check_payload(const RecordHeader& header, std::span<const uint8_t> payload);

// The record's checksum (firmware/record_checksum.h): the header with
// checksum = 0, then the payload.
uint32_t record_checksum(const RecordHeader& header, std::span<const uint8_t> payload);

// Builds a record's bytes (header with the right checksum, payload, zero padding to
// kRecordAlignment): used by tests, the benchmark and recorded-file tools.
std::vector<uint8_t> encode_record(RecordType type, uint16_t cpu, uint64_t sequence, uint64_t epoch,
                                   std::span<const uint8_t> payload);

// Accepts records in sequence order: a jump forward counts the gap as lost, a
// step back is a duplicate. The first record seen sets the baseline (records
// before it belong to an earlier session).
class SequenceTracker {
 public:
  // True if the record should be used.
  bool accept(uint64_t sequence, DecodeStats& stats);
  bool started() const { return started_; }
  uint64_t next_expected() const { return next_; }

 private:
  bool started_ = false;
  uint64_t next_ = 0;
};

struct RingDecodeResult {
  std::vector<TransferRecord> records;
  uint64_t consumed_to = 0;  // new tail: everything before it has been processed
};

// Decodes the ring bytes at positions [tail, head) (byte counts since boot;
// offset = position % capacity). `window` holds exactly those bytes, in
// order, already unwrapped. Records never straddle the end of the ring; a
// kPad record fills the rest of it. After a bad record the decoder resumes at
// the next kRecordAlignment boundary that holds kRecordMagic.
RingDecodeResult decode_ring_window(std::span<const uint8_t> window, uint64_t tail,
                                    uint64_t capacity, SequenceTracker& sequence,
                                    DecodeStats& stats);

// The serial transport: records back to back (each padded to
// kRecordAlignment, as in the ring), possibly with garbage between them (line
// noise, a console message, a reboot). feed() may be given any split of the
// byte stream; finish() at end of stream counts an incomplete record.
class StreamDecoder {
 public:
  std::vector<TransferRecord> feed(std::span<const uint8_t> bytes);
  // End of stream: what is still buffered is decoded or counted (truncated).
  std::vector<TransferRecord> finish();
  const DecodeStats& stats() const { return stats_; }
  DecodeStats& stats() { return stats_; }
  size_t buffered() const { return buffer_.size() - start_; }

 private:
  void skip(size_t bytes);

  std::vector<uint8_t> buffer_;
  size_t start_ = 0;          // first unconsumed byte of buffer_
  bool synchronised_ = true;  // at a record boundary (false: after a bad record or garbage)
  bool at_end_ = false;       // inside finish(): no more bytes will come
  SequenceTracker sequence_;
  DecodeStats stats_;
};

}  // namespace dcpi
