// The checksum of every transfer record (firmware/transfer_ring.h), written
// by the guest's ring writer and checked by hostdump: written once here.
//
// Why not CRC-32C (transfer format 1): the daemon checksums every byte it
// sends, and the call-chain records (issue 28) send a few hundred bytes a
// sample; slicing-by-8 CRC-32C took ~35 instructions a quadword on Alpha,
// ~430 cycles a chain sample at the default period, more than the whole
// ordinary sample path. This is a Fletcher-style pair of 64-bit sums over
// little-endian quadwords (the last one zero-padded): a = sum of words,
// b = sum of the running a (so a word's position counts, and swapped or
// shifted words show), ~3 instructions a quadword. It catches what the
// transports can do to a record (a torn or stale read through the GDB
// stub, bytes lost or garbled on the serial stream): a change to one
// quadword always changes the pair (a, b), and the pair is mixed down to
// 32 bits so that a changed pair keeps the value about once in 2^32 (the
// tests flip every bit and swap every two quadwords of a record).
#pragma once
#include <cstddef>
#include <cstdint>

#include "firmware/transfer_ring.h"

namespace dcpi {

class RecordChecksum {
 public:
  // Adds `bytes` bytes at `data`; a tail shorter than 8 is zero-extended.
  // The ring's records are 8-byte aligned (the guest's fast path); a record
  // the host found at an odd offset of a stream is read byte by byte.
  void add(const void* data, size_t bytes) {
    using Word = uint64_t __attribute__((may_alias));
    const auto* words = static_cast<const Word*>(data);
    const size_t n = bytes / 8;
    if ((reinterpret_cast<uintptr_t>(data) & 7) != 0) return add_unaligned(data, bytes);
    uint64_t a = a_, b = b_;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {  // four a pass: the loop's own cost stays small
      a += words[i], b += a;
      a += words[i + 1], b += a;
      a += words[i + 2], b += a;
      a += words[i + 3], b += a;
    }
    for (; i < n; ++i) a += words[i], b += a;
    a_ = a, b_ = b;
    if (bytes % 8 != 0) add_bytes(static_cast<const uint8_t*>(data) + n * 8, bytes % 8);
  }

  // Up to 8 bytes as one little-endian quadword, zero-extended.
  void add_bytes(const uint8_t* bytes, size_t count) {
    uint64_t word = 0;
    for (size_t k = 0; k < count; ++k) word |= uint64_t{bytes[k]} << (8 * k);
    a_ += word, b_ += a_;
  }

  void add_unaligned(const void* data, size_t bytes) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (; bytes >= 8; p += 8, bytes -= 8) add_bytes(p, 8);
    if (bytes != 0) add_bytes(p, bytes);
  }

  // Copies n quadwords (both 8-byte aligned) and adds them, in one pass:
  // the daemon moves a per-CPU buffer into a ring record this way instead
  // of a memcpy and then a second pass to checksum it.
  void add_copy(uint64_t* to, const uint64_t* from, size_t n) {
    uint64_t a = a_, b = b_;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const uint64_t w0 = from[i], w1 = from[i + 1], w2 = from[i + 2], w3 = from[i + 3];
      to[i] = w0, to[i + 1] = w1, to[i + 2] = w2, to[i + 3] = w3;
      a += w0, b += a;
      a += w1, b += a;
      a += w2, b += a;
      a += w3, b += a;
    }
    for (; i < n; ++i) {
      const uint64_t word = from[i];
      to[i] = word;
      a += word, b += a;
    }
    a_ = a, b_ = b;
  }

  // The pair, mixed down to 32 bits by MurmurHash3's 64-bit finalizer (a
  // bijection), not folded: a linear fold let a flipped bit in a cancel the
  // same bit's echo in b (found by the exhaustive test in tests/unit).
  uint32_t value() const { return static_cast<uint32_t>(mix(a_ ^ mix(b_)) >> 32); }

 private:
  static uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
  }

  uint64_t a_ = 1;  // not 0, so that an all-zero record does not sum to 0
  uint64_t b_ = 0;
};

// A record's checksum: its header with `checksum` = 0, then its payload
// (`bytes` of it: header.payload_bytes).
inline uint32_t record_checksum(const RecordHeader& header, const void* payload, size_t bytes) {
  RecordHeader zeroed = header;
  zeroed.checksum = 0;
  RecordChecksum sum;
  sum.add(&zeroed, sizeof zeroed);
  sum.add(payload, bytes);
  return sum.value();
}

}  // namespace dcpi
