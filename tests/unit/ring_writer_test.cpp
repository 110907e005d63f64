// The guest daemon's transfer-ring writer (driver/ring_writer.h): records,
// CRC-32C, sequence numbers, pad records at the end, drops when full.
#include "driver/ring_writer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

namespace dcpi {
namespace {

struct Walked {
  uint64_t records = 0, pads = 0, bad = 0, last_sequence = 0;
};

Walked walk(const TransferRing& ring) {
  Walked w;
  for (uint64_t p = ring.header.tail; p < ring.header.head;) {
    const auto* h = reinterpret_cast<const RecordHeader*>(ring.data + p % kTransferRingBytes);
    RecordHeader copy = *h;
    copy.checksum = 0;
    w.bad +=
        h->magic != kRecordMagic || record_checksum(copy, h + 1, h->payload_bytes) != h->checksum;
    w.pads += h->type == static_cast<uint16_t>(RecordType::kPad);
    w.last_sequence = h->sequence;
    ++w.records;
    p += record_span(h->payload_bytes);
  }
  return w;
}

TEST(RingWriter, DroppedRecordsStillConsumeSequenceNumbers) {
  auto ring = std::make_unique<TransferRing>();
  RingWriter writer(*ring);
  writer.init();
  const uint32_t payload = 100'000;
  uint64_t written = 0;
  for (int i = 0; i < 30; ++i) {
    uint8_t* p = writer.begin(RecordType::kSamples, 1, payload, 0, 1);
    if (p == nullptr) {
      ring->header.tail = ring->header.head;  // the host read everything
      continue;
    }
    std::memset(p, i, payload);
    writer.commit();
    ++written;
  }
  EXPECT_GT(ring->header.records_dropped, 0u);
  EXPECT_EQ(ring->header.next_sequence, writer.records_written() + ring->header.records_dropped);
  EXPECT_EQ(ring->header.magic, kTransferRingMagic);
}

// A payload copied and summed in one pass (RecordChecksum::add_copy, then
// commit(sum): the daemon's kChains records) gets the checksum commit()
// would have computed, across the ring's end too.
TEST(RingWriter, CommitWithARunningSumEqualsCommit) {
  auto ring = std::make_unique<TransferRing>();
  RingWriter writer(*ring);
  writer.init();
  std::vector<uint64_t> words(333);
  for (size_t i = 0; i < words.size(); ++i) words[i] = i * 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 2000; ++i) {
    const uint32_t n = 1 + static_cast<uint32_t>(i * 37 % words.size());
    uint8_t* p = writer.begin(RecordType::kChains, 2, 16 + n * 8, 0, 0);
    ASSERT_NE(p, nullptr);
    RecordChecksum sum = writer.begun_sum();
    const uint64_t head[2] = {n, static_cast<uint64_t>(i)};
    std::memcpy(p, head, sizeof head);
    sum.add(head, sizeof head);
    sum.add_copy(reinterpret_cast<uint64_t*>(p + 16), words.data(), n);
    const auto* header = reinterpret_cast<const RecordHeader*>(p) - 1;
    const uint32_t expected = record_checksum(*header, p, header->payload_bytes);
    writer.commit(sum);
    ASSERT_EQ(header->checksum, expected) << i;
    ring->header.tail = ring->header.head;  // the host read it
  }
  EXPECT_EQ(walk(*ring).bad, 0u);
}

// fits_leaving(): what can wait (values, chains) stops while a quarter of
// the ring is still free for the samples, which fits() still lets in.
TEST(RingWriter, FitsLeavingKeepsTheReserveFree) {
  auto ring = std::make_unique<TransferRing>();
  RingWriter writer(*ring);
  writer.init();
  const uint64_t reserve = kTransferRingBytes / 4;
  const uint32_t payload = 4096 - sizeof(RecordHeader);  // 4 KB records, aligned
  uint32_t waited = 0;
  while (writer.fits_leaving(payload, reserve)) {
    ASSERT_NE(writer.begin(RecordType::kChains, 0, payload, 0, 0), nullptr);
    writer.commit();
    ++waited;
  }
  const uint64_t free_bytes = kTransferRingBytes - (ring->header.head - ring->header.tail);
  EXPECT_GE(free_bytes, reserve);
  EXPECT_LT(free_bytes, reserve + 4096);
  EXPECT_EQ(waited, (kTransferRingBytes - reserve) / 4096);
  EXPECT_TRUE(writer.fits(payload));  // the samples may still use the reserve
  EXPECT_EQ(ring->header.records_dropped, 0u);
}

// fits() answers exactly what begin() would do, without dropping anything or
// taking a sequence number (the value-run writer waits instead of dropping).
TEST(RingWriter, FitsAgreesWithBeginAndCostsNothing) {
  auto ring = std::make_unique<TransferRing>();
  RingWriter writer(*ring);
  writer.init();
  for (int i = 0; i < 40; ++i) {
    const uint64_t sequence = ring->header.next_sequence;
    const bool fits = writer.fits(64 * 1024);
    EXPECT_EQ(ring->header.next_sequence, sequence);
    uint8_t* p = writer.begin(RecordType::kSamples, 0, 64 * 1024, 7, 10);
    EXPECT_EQ(fits, p != nullptr) << i;
    if (p != nullptr) writer.commit();
    if (i == 35) ring->header.tail = ring->header.head - 100 * 1024;  // the host read some
  }
  EXPECT_FALSE(writer.fits(uint32_t{3} << 20));  // larger than the ring
}

TEST(RingWriter, FullRingDropsAndCounts) {
  auto ring = std::make_unique<TransferRing>();
  RingWriter writer(*ring);
  writer.init();
  int stored = 0;
  for (int i = 0; i < 40; ++i) {
    uint8_t* p = writer.begin(RecordType::kSamples, 0, 64 * 1024, 7, 10);
    if (p == nullptr) continue;
    std::memset(p, 0xab, 64 * 1024);
    writer.commit();
    ++stored;
  }
  EXPECT_EQ(stored, 31);  // 32 spans of 64 KB + 32 bytes do not fit in 2 MB
  EXPECT_EQ(ring->header.records_dropped, 9u);
  EXPECT_EQ(ring->header.samples_dropped, 90u);
  const Walked w = walk(*ring);
  EXPECT_EQ(w.records, 31u);
  EXPECT_EQ(w.bad, 0u);
  // Consume, then write across the end: a pad record appears, all CRCs good.
  ring->header.tail = ring->header.head;
  for (int i = 0; i < 3; ++i) {
    uint8_t* p = writer.begin(RecordType::kSamples, 0, 64 * 1024, 7, 10);
    ASSERT_NE(p, nullptr);
    std::memset(p, 0xcd, 64 * 1024);
    writer.commit();
  }
  const Walked after = walk(*ring);
  EXPECT_EQ(after.pads, 1u);
  EXPECT_EQ(after.bad, 0u);
  EXPECT_EQ(after.last_sequence + 1, ring->header.next_sequence);
}

}  // namespace
}  // namespace dcpi
