// Appends records to the transfer ring (firmware/transfer_ring.h): header,
// payload, checksum, sequence numbers, pad records at the end of the ring.
// Single writer (the daemon, under its lock). Header-only and free of kernel
// dependencies so host tests can exercise it.
//
// Rules the reader can rely on:
// - every record, pad records included, takes the next sequence number; a
//   record that does not fit (the host has not advanced tail) is dropped,
//   counted in records_dropped / samples_dropped, and still consumes its
//   sequence number, so the reader sees the gap;
// - a pad record fills the ring up to its end when the next record would
//   straddle it; its payload is zeros and is covered by the checksum like any
//   other payload;
// - head is advanced (after a write barrier) only once a record is complete.
#pragma once
#include <cstddef>
#include <cstdint>

#include "firmware/record_checksum.h"
#include "firmware/transfer_ring.h"

namespace dcpi {

class RingWriter {
 public:
  static_assert((kTransferRingBytes & (kTransferRingBytes - 1)) == 0);

  constexpr explicit RingWriter(TransferRing& ring) : ring_(ring) {}

  void init() {
    TransferRingHeader& h = ring_.header;
    h.version = kTransferFormatVersion;
    h.header_bytes = sizeof(TransferRingHeader);
    h.capacity = kTransferRingBytes;
    h.head = h.tail = h.next_sequence = 0;
    h.records_dropped = h.samples_dropped = 0;
    __atomic_store_n(&h.magic, kTransferRingMagic, __ATOMIC_RELEASE);
  }

  // Whether a record of payload_bytes (and the pad before it, if any) fits
  // now. Lets a writer whose data can wait (value runs stay in their
  // per-CPU buffer) skip a pass instead of dropping a record.
  bool fits(uint32_t payload_bytes) const { return place(payload_bytes).fits; }
  // Whether it fits and still leaves `reserve` bytes free: what can wait
  // (value runs, call chains) never takes the last of the ring from the
  // samples, load map and statistics, which are dropped when it is full.
  bool fits_leaving(uint32_t payload_bytes, uint64_t reserve) const {
    const Placement p = place(payload_bytes);
    return p.fits && p.free_after >= reserve;
  }

  // Reserves a record; returns its payload (payload_bytes to fill, then
  // commit()), or nullptr if it does not fit (counted, `samples` with it).
  uint8_t* begin(RecordType type, uint16_t cpu, uint32_t payload_bytes, uint64_t epoch,
                 uint64_t samples) {
    TransferRingHeader& h = ring_.header;
    const Placement where = place(payload_bytes);
    const uint64_t pad = where.pad;
    if (!where.fits) {
      ++h.records_dropped;
      h.samples_dropped += samples;
      ++h.next_sequence;
      return nullptr;
    }
    if (pad != 0) {
      uint8_t* payload =
          start(RecordType::kPad, 0xffff, static_cast<uint32_t>(pad - sizeof(RecordHeader)), epoch);
      for (uint64_t i = 0; i < pad - sizeof(RecordHeader); ++i) payload[i] = 0;
      commit();
    }
    return start(type, cpu, payload_bytes, epoch);
  }

  // The checksum of the record begun last, its header only so far: a writer
  // that adds its payload while writing it (RecordChecksum::add_copy) then
  // commits with it, in one pass over the payload instead of two.
  RecordChecksum begun_sum() const {
    RecordChecksum sum;
    sum.add(begun(), sizeof(RecordHeader));  // checksum is still 0 (start())
    return sum;
  }

  // Checksums the record begun last and publishes it (head).
  void commit() {
    const RecordHeader* header = begun();
    publish(record_checksum(*header, header + 1, header->payload_bytes));
  }
  // Publishes it with `sum`, its header and whole payload added in order.
  void commit(const RecordChecksum& sum) { publish(sum.value()); }

  // Sends one committed record to `mirror`. A pad goes as its header alone
  // (payload_bytes 0, its own checksum): it fills nothing on a stream, but its
  // sequence number keeps the numbering contiguous for the reader.
  static void mirror_record(const RecordHeader& header, uint64_t span, bool pad,
                            void (*mirror)(const uint8_t*, uint64_t)) {
    if (!pad) {
      mirror(reinterpret_cast<const uint8_t*>(&header), span);
      return;
    }
    RecordHeader stub = header;
    stub.payload_bytes = 0;
    stub.checksum = record_checksum(stub, nullptr, 0);
    mirror(reinterpret_cast<const uint8_t*>(&stub), sizeof stub);
  }

  uint64_t records_written() const { return records_written_; }

  // Called with every committed record (header + payload, padded to
  // kRecordAlignment, exactly the ring bytes; pads as their header alone):
  // the serial transport (docs/transfer-format.md "Serial stream").
  using Mirror = void (*)(const uint8_t* record, uint64_t bytes);
  void set_mirror(Mirror mirror) { mirror_ = mirror; }

 private:
  struct Placement {
    uint64_t pad;         // bytes of pad record needed first (the record would straddle the end)
    bool fits;            // pad and record fit in the free space
    uint64_t free_after;  // free bytes once they are written (0 if they do not fit)
  };
  Placement place(uint32_t payload_bytes) const {
    const TransferRingHeader& h = ring_.header;
    const uint64_t span = record_span(payload_bytes);
    const uint64_t tail = __atomic_load_n(&h.tail, __ATOMIC_ACQUIRE);
    const uint64_t free_bytes = kTransferRingBytes - (h.head - tail);
    const uint64_t offset = h.head & (kTransferRingBytes - 1);
    const uint64_t pad = offset + span > kTransferRingBytes ? kTransferRingBytes - offset : 0;
    const bool fits = span <= kTransferRingBytes && pad + span <= free_bytes;
    return {pad, fits, fits ? free_bytes - pad - span : 0};
  }

  RecordHeader* begun() const {
    return reinterpret_cast<RecordHeader*>(ring_.data +
                                           (ring_.header.head & (kTransferRingBytes - 1)));
  }

  // Stores the begun record's checksum and moves head past it.
  void publish(uint32_t checksum) {
    TransferRingHeader& h = ring_.header;
    RecordHeader* header = begun();
    header->checksum = checksum;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);  // record before head (wmb)
    const uint64_t span = record_span(header->payload_bytes);
    const bool pad = header->type == static_cast<uint16_t>(RecordType::kPad);
    __atomic_store_n(&h.head, h.head + span, __ATOMIC_RELEASE);
    ++records_written_;
    if (mirror_ != nullptr) mirror_record(*header, span, pad, mirror_);
  }

  uint8_t* start(RecordType type, uint16_t cpu, uint32_t payload_bytes, uint64_t epoch) {
    TransferRingHeader& h = ring_.header;
    auto* header =
        reinterpret_cast<RecordHeader*>(ring_.data + (h.head & (kTransferRingBytes - 1)));
    header->magic = kRecordMagic;
    header->type = static_cast<uint16_t>(type);
    header->cpu = cpu;
    header->payload_bytes = payload_bytes;
    header->checksum = 0;
    header->sequence = h.next_sequence++;
    header->epoch = epoch;
    return reinterpret_cast<uint8_t*>(header + 1);
  }

  TransferRing& ring_;
  uint64_t records_written_ = 0;
  Mirror mirror_ = nullptr;
};

}  // namespace dcpi
