// Transfer record decoding from the ring window and the serial stream: valid
// records come out in order; every kind of damage is rejected and counted;
// random damage never crashes (fuzz).
#include "hostdump/transfer_records.h"

#include <gtest/gtest.h>

#include <random>

#include "firmware/crc32c.h"
#include "firmware/record_checksum.h"
#include "transfer_fixtures.h"

namespace dcpi {
namespace {

using testing::RecordStream;
using testing::RingImage;
using testing::samples_payload;

constexpr uint64_t kSmallRing = 4096;

std::vector<SampleEntry> entries(int count, uint16_t pid = 7) {
  std::vector<SampleEntry> out;
  for (int i = 0; i < count; ++i) out.push_back({0x120000000ull + 4u * i, uint32_t(i + 1), pid, 0});
  return out;
}

RingDecodeResult decode(const RingImage& ring, DecodeStats& stats) {
  SequenceTracker sequence;
  return decode_ring_window(ring.window(), ring.header.tail, ring.data.size(), sequence, stats);
}

TEST(TransferCrc, MatchesTheCastagnoliCheckValue) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
}

// Slicing-by-8 against the bit-at-a-time definition, at every alignment and
// length around the 8-byte steps, whole and split at every point.
TEST(TransferCrc, SlicingBy8EqualsTheBitwiseDefinition) {
  auto bitwise = [](const uint8_t* p, size_t n) {
    uint32_t crc = ~0u;
    for (size_t i = 0; i < n; ++i) {
      crc ^= p[i];
      for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
  };
  alignas(8) uint8_t buffer[80];
  for (size_t i = 0; i < sizeof buffer; ++i) buffer[i] = static_cast<uint8_t>(i * 131 + 7);
  for (size_t offset = 0; offset < 8; ++offset)
    for (size_t length = 0; length + offset <= sizeof buffer; ++length) {
      const uint8_t* p = buffer + offset;
      ASSERT_EQ(crc32c(p, length), bitwise(p, length)) << offset << "+" << length;
      for (size_t split = 0; split <= length; split += 5)
        ASSERT_EQ(crc32c_update(crc32c(p, split), p + split, length - split), bitwise(p, length));
    }
}

// The record checksum (transfer format 2) against its definition, written
// out here: a = 1 + sum of the little-endian quadwords (a short tail
// zero-extended), b = sum of the running a, mixed to 32 bits with
// MurmurHash3's fmix64; at every alignment and length, so the guest's
// aligned fast path and the host's byte path agree.
TEST(RecordChecksum, EqualsItsDefinitionAtEveryAlignment) {
  auto definition = [](const uint8_t* p, size_t n) {
    uint64_t a = 1, b = 0;
    for (size_t i = 0; i < n; i += 8) {
      uint64_t word = 0;
      for (size_t k = 0; k < 8 && i + k < n; ++k) word |= uint64_t{p[i + k]} << (8 * k);
      a += word;
      b += a;
    }
    auto fmix64 = [](uint64_t k) {
      k = (k ^ (k >> 33)) * 0xff51afd7ed558ccdull;
      k = (k ^ (k >> 33)) * 0xc4ceb9fe1a85ec53ull;
      return k ^ (k >> 33);
    };
    return static_cast<uint32_t>(fmix64(a ^ fmix64(b)) >> 32);
  };
  alignas(8) uint8_t buffer[96];
  for (size_t i = 0; i < sizeof buffer; ++i) buffer[i] = static_cast<uint8_t>(i * 131 + 7);
  for (size_t offset = 0; offset < 8; ++offset)
    for (size_t length = 0; length + offset <= sizeof buffer; ++length) {
      RecordChecksum sum;
      sum.add(buffer + offset, length);
      ASSERT_EQ(sum.value(), definition(buffer + offset, length)) << offset << "+" << length;
    }
}

// What the transports can do to a record: every single flipped bit of a
// samples record, and every swap of two of its quadwords, changes the
// checksum (exhaustive, not sampled).
TEST(RecordChecksum, CatchesEveryBitFlipAndQuadwordSwap) {
  const std::vector<uint8_t> payload = samples_payload(entries(15));
  RecordHeader header{kRecordMagic, 1, 0, static_cast<uint32_t>(payload.size()), 0, 5, 1};
  const uint32_t good = record_checksum(header, payload);
  for (size_t bit = 0; bit < payload.size() * 8; ++bit) {
    std::vector<uint8_t> damaged = payload;
    damaged[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    ASSERT_NE(record_checksum(header, damaged), good) << "bit " << bit;
  }
  for (size_t bit = 0; bit < sizeof header * 8; ++bit) {
    RecordHeader damaged = header;
    reinterpret_cast<uint8_t*>(&damaged)[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    if (damaged.checksum != header.checksum) continue;  // the field itself is not summed
    ASSERT_NE(record_checksum(damaged, payload), good) << "header bit " << bit;
  }
  const size_t words = payload.size() / 8;
  for (size_t i = 0; i < words; ++i)
    for (size_t j = i + 1; j < words; ++j) {
      std::vector<uint8_t> swapped = payload;
      std::swap_ranges(swapped.begin() + 8 * i, swapped.begin() + 8 * i + 8,
                       swapped.begin() + 8 * j);
      if (swapped == payload) continue;  // two equal quadwords
      ASSERT_NE(record_checksum(header, swapped), good) << i << " <-> " << j;
    }
}

TEST(TransferRecords, PayloadSizeRulesPerType) {
  EXPECT_EQ(check_payload_size(RecordType::kSamples, 16 + 16 * 3), "");
  EXPECT_NE(check_payload_size(RecordType::kSamples, 16 + 8), "");
  EXPECT_NE(check_payload_size(RecordType::kSamples, 8), "");
  EXPECT_EQ(check_payload_size(RecordType::kLoadMap, 256), "");
  EXPECT_NE(check_payload_size(RecordType::kLoadMap, 255), "");
  EXPECT_EQ(check_payload_size(RecordType::kStats, 128), "");  // a guest from before issue 26
  EXPECT_EQ(check_payload_size(RecordType::kStats, 208), "");
  EXPECT_NE(check_payload_size(RecordType::kStats, 160), "");
  EXPECT_NE(check_payload_size(RecordType::kEpoch, 8), "");
}

TEST(RingDecode, ValidRecordsInOrder) {
  RingImage ring(0, kSmallRing);
  ring.append(RecordType::kSamples, samples_payload(entries(3)), 0);
  ring.append(RecordType::kEpoch, testing::bytes_of(EpochPayload{2, 99}), 1);
  DecodeStats stats;
  const RingDecodeResult result = decode(ring, stats);
  ASSERT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.records[0].type(), RecordType::kSamples);
  EXPECT_EQ(result.records[0].payload, samples_payload(entries(3)));
  EXPECT_EQ(result.records[1].type(), RecordType::kEpoch);
  EXPECT_EQ(result.consumed_to, ring.header.head);
  EXPECT_EQ(stats.records, 2u);
  EXPECT_EQ(stats.rejected(), 0u);
}

TEST(RingDecode, WrapsAroundAndSkipsPad) {
  RingImage ring(kSmallRing - 96, kSmallRing);  // 96 bytes to the end
  ring.append(RecordType::kEpoch, testing::bytes_of(EpochPayload{1, 5}), 10);  // 64 bytes
  ring.append(RecordType::kSamples, samples_payload(entries(2)), 11);          // 64: pad first
  DecodeStats stats;
  const RingDecodeResult result = decode(ring, stats);
  ASSERT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.records[1].header.sequence, 12u);  // the pad took 11
  EXPECT_EQ(stats.pads, 1u);
  EXPECT_EQ(stats.lost_records, 0u);
  EXPECT_EQ(result.consumed_to, ring.header.head);
  EXPECT_GT(result.consumed_to, kSmallRing);
}

TEST(RingDecode, BadMagicBadCrcAndResync) {
  RingImage ring(0, kSmallRing);
  ring.append(RecordType::kSamples, samples_payload(entries(1)), 0);
  const uint64_t second = ring.header.head;
  ring.append(RecordType::kSamples, samples_payload(entries(4)), 1);
  const uint64_t third = ring.header.head;
  ring.append(RecordType::kSamples, samples_payload(entries(2)), 2);
  ring.append(RecordType::kSamples, samples_payload(entries(1)), 3);
  ring.data[second] ^= 0xff;   // magic
  ring.data[third + 40] ^= 1;  // payload bit: CRC (found while resynchronising)
  DecodeStats stats;
  const RingDecodeResult result = decode(ring, stats);
  ASSERT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.records[0].header.sequence, 0u);
  EXPECT_EQ(result.records[1].header.sequence, 3u);
  EXPECT_EQ(stats.bad_checksum, 1u);
  EXPECT_EQ(stats.bad_magic, 1u);
  EXPECT_EQ(stats.lost_records, 2u);  // sequences 1 and 2
  EXPECT_EQ(result.consumed_to, ring.header.head);
}

TEST(RingDecode, SamplesCountInconsistentWithBytes) {
  RingImage ring(0, kSmallRing);
  std::vector<uint8_t> payload = samples_payload(entries(3));
  payload[4] = 5;  // count 5 but 3 entries of bytes; CRC still valid
  ring.append(RecordType::kSamples, payload, 0);
  DecodeStats stats;
  EXPECT_TRUE(decode(ring, stats).records.empty());
  EXPECT_EQ(stats.bad_payload_size, 1u);
}

TEST(RingDecode, OversizedAndTruncated) {
  RingImage ring(0, kSmallRing);
  ring.append(RecordType::kSamples, samples_payload(entries(1)), 0);
  // A header claiming more than fits before the end of the ring.
  RecordHeader huge{kRecordMagic, 1, 0, 16 + 16 * 1000, 0, 1, 1};
  ring.put(testing::bytes_of(huge));
  DecodeStats stats;
  EXPECT_EQ(decode(ring, stats).records.size(), 1u);
  EXPECT_EQ(stats.oversized, 1u);

  RingImage cut(0, kSmallRing);
  cut.append(RecordType::kSamples, samples_payload(entries(4)), 0);
  cut.header.head -= 32;  // head in the middle of the record
  DecodeStats cut_stats;
  const RingDecodeResult result = decode(cut, cut_stats);
  EXPECT_TRUE(result.records.empty());
  EXPECT_EQ(cut_stats.truncated, 1u);
  EXPECT_EQ(result.consumed_to, cut.header.head);  // never stuck
}

TEST(RingDecode, UnknownTypeAndDuplicates) {
  RingImage ring(0, kSmallRing);
  ring.append(RecordType::kSamples, samples_payload(entries(1)), 5);
  ring.append(static_cast<RecordType>(9), std::vector<uint8_t>(16), 6);
  ring.append(RecordType::kSamples, samples_payload(entries(1)), 5);  // replayed
  DecodeStats stats;
  EXPECT_EQ(decode(ring, stats).records.size(), 1u);
  EXPECT_EQ(stats.unknown_type, 1u);
  EXPECT_EQ(stats.duplicates, 1u);
}

TEST(StreamDecode, AnySplitOfTheStreamGivesTheSameRecords) {
  RecordStream stream;
  for (int i = 0; i < 20; ++i) stream.samples(entries(1 + i % 5), uint16_t(i % 4));
  for (size_t chunk : {1ul, 7ul, 32ul, 1000ul, stream.bytes.size()}) {
    StreamDecoder decoder;
    std::vector<TransferRecord> records;
    for (size_t at = 0; at < stream.bytes.size(); at += chunk) {
      const size_t n = std::min(chunk, stream.bytes.size() - at);
      for (auto& r : decoder.feed({stream.bytes.data() + at, n})) records.push_back(r);
    }
    for (auto& r : decoder.finish()) records.push_back(r);
    ASSERT_EQ(records.size(), 20u) << "chunk " << chunk;
    EXPECT_EQ(records[19].header.sequence, 19u);
    EXPECT_EQ(decoder.stats().rejected(), 0u);
    EXPECT_EQ(decoder.stats().skipped_bytes, 0u);
  }
}

TEST(StreamDecode, ResynchronisesAfterGarbage) {
  RecordStream a;
  a.samples(entries(2));
  std::vector<uint8_t> bytes = {'b',  'o', 'o', 't',
                                '\n', 'D', 'C', 'P'};  // includes a magic prefix
  bytes.insert(bytes.end(), a.bytes.begin(), a.bytes.end());
  const char noise[] = "kernel: hello DCPR world";
  bytes.insert(bytes.end(), noise, noise + sizeof noise);
  RecordStream b(1);
  b.samples(entries(3));
  bytes.insert(bytes.end(), b.bytes.begin(), b.bytes.end());
  StreamDecoder decoder;
  auto records = decoder.feed(bytes);
  for (auto& r : decoder.finish()) records.push_back(r);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].header.sequence, 1u);
  EXPECT_EQ(decoder.stats().bad_magic, 2u);   // at the start, after record 0
  EXPECT_GE(decoder.stats().rejected(), 3u);  // plus the fake "DCPR" candidate
  EXPECT_GT(decoder.stats().skipped_bytes, sizeof noise);
  EXPECT_EQ(decoder.stats().lost_records, 0u);
}

TEST(StreamDecode, TruncatedAtEndOfStream) {
  RecordStream stream;
  stream.samples(entries(1)).samples(entries(6));
  stream.bytes.resize(stream.bytes.size() - 40);
  StreamDecoder decoder;
  auto records = decoder.feed(stream.bytes);
  EXPECT_EQ(records.size(), 1u);
  EXPECT_GT(decoder.buffered(), 0u);  // waiting for the rest
  EXPECT_TRUE(decoder.finish().empty());
  EXPECT_EQ(decoder.stats().truncated, 1u);
  EXPECT_EQ(decoder.buffered(), 0u);
}

TEST(StreamDecode, SequenceGapCountsLostRecords) {
  RecordStream stream;
  stream.samples(entries(1));
  stream.skip_sequence();
  stream.skip_sequence();
  stream.samples(entries(1));
  StreamDecoder decoder;
  EXPECT_EQ(decoder.feed(stream.bytes).size(), 2u);
  EXPECT_EQ(decoder.stats().lost_records, 2u);
}

// Deterministic random damage (bit flips, byte runs, cuts, insertions) over
// valid streams: decoding must never crash, every returned record must be
// valid, and damage must show up in the counts.
std::vector<uint8_t> mutate(std::vector<uint8_t> bytes, std::mt19937& random) {
  std::uniform_int_distribution<int> kind(0, 3);
  std::uniform_int_distribution<size_t> at(0, bytes.size() - 1);
  switch (kind(random)) {
    case 0:
      for (int i = 0; i < 1 + int(random() % 6); ++i)
        bytes[at(random)] ^= uint8_t(1u << random() % 8);
      break;
    case 1: {
      const size_t start = at(random);
      for (size_t i = start; i < std::min(bytes.size(), start + random() % 64); ++i)
        bytes[i] = uint8_t(random());
      break;
    }
    case 2:
      bytes.resize(at(random));
      break;
    default: {
      std::vector<uint8_t> junk(1 + random() % 40);
      for (uint8_t& b : junk) b = uint8_t(random());
      bytes.insert(bytes.begin() + long(at(random)), junk.begin(), junk.end());
    }
  }
  return bytes;
}

void expect_valid(const std::vector<TransferRecord>& records) {
  for (const TransferRecord& record : records) {
    ASSERT_EQ(record.header.magic, kRecordMagic);
    ASSERT_EQ(record.payload.size(), record.header.payload_bytes);
    ASSERT_EQ(record_checksum(record.header, record.payload), record.header.checksum);
    ASSERT_EQ(check_payload(record.header, record.payload), "");
  }
}

TEST(TransferFuzz, DamagedStreamsNeverCrashAndAreCounted) {
  RecordStream stream;
  for (int i = 0; i < 30; ++i) {
    stream.samples(entries(1 + i % 9), uint16_t(i % 4));
    if (i % 7 == 0)
      stream.load(testing::load_record(LoadKind::kExec, 10 + i, 0x120000000, 0x4000, 0x120000000,
                                       "/bin/prog"));
  }
  std::mt19937 random(7);
  uint64_t damaged_runs_with_counts = 0, runs_changed = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::vector<uint8_t> bytes = mutate(stream.bytes, random);
    StreamDecoder decoder;
    std::vector<TransferRecord> records;
    const size_t chunk = 1 + random() % 300;
    for (size_t at = 0; at < bytes.size(); at += chunk)
      for (auto& r : decoder.feed({bytes.data() + at, std::min(chunk, bytes.size() - at)}))
        records.push_back(std::move(r));
    for (auto& r : decoder.finish()) records.push_back(std::move(r));
    ASSERT_NO_FATAL_FAILURE(expect_valid(records)) << "round " << round;
    const DecodeStats& s = decoder.stats();
    if (bytes != stream.bytes) {
      ++runs_changed;
      damaged_runs_with_counts +=
          (s.rejected() + s.lost_records + s.skipped_bytes > 0) || records.size() < 34;
    }
  }
  EXPECT_GT(runs_changed, 2900u);
  // Damage that leaves every record intact (e.g. a cut exactly between
  // records) is possible but rare; everything else must be visible.
  EXPECT_GT(damaged_runs_with_counts, runs_changed * 95 / 100);
}

TEST(TransferFuzz, DamagedRingWindowsNeverCrash) {
  RingImage ring(kSmallRing - 256, kSmallRing);
  for (int i = 0; i < 40; ++i)
    ring.append(RecordType::kSamples, samples_payload(entries(1 + i % 5)), uint64_t(i));
  const std::vector<uint8_t> original = ring.window();
  std::mt19937 random(11);
  uint64_t counted = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> window = mutate(original, random);
    window.resize(window.size() & ~size_t{31});  // head stays aligned, as check_ring_header ensures
    if (window.size() > kSmallRing) window.resize(kSmallRing);
    DecodeStats stats;
    SequenceTracker sequence;
    const RingDecodeResult result =
        decode_ring_window(window, ring.header.tail, kSmallRing, sequence, stats);
    ASSERT_NO_FATAL_FAILURE(expect_valid(result.records)) << "round " << round;
    ASSERT_EQ(result.consumed_to, ring.header.tail + window.size());
    counted += stats.rejected() + stats.lost_records > 0 || result.records.size() < 40;
  }
  EXPECT_GT(counted, 2800u);
}

}  // namespace
}  // namespace dcpi
