// The daemon's move of a per-CPU buffer (value runs, chain samples: single
// producer, the CPU's handler; single consumer, the daemon) into a begun
// ring record: `words` quadwords from `tail` on, copied and added to the
// record's checksum in one pass (RecordChecksum::add_copy), then the tail
// released to the handler. Guest only; value_sampler.cpp and
// chain_sampler.cpp's.
#pragma once
#include <cstdint>

#include "firmware/record_checksum.h"

namespace dcpi::driver {

// `buffer` holds `capacity` quadwords (a power of two); `tail` is the
// consumer's position, advanced past what was moved.
inline void move_buffer_words(const uint64_t* buffer, uint64_t capacity, uint64_t& tail,
                              uint64_t* out, uint32_t words, RecordChecksum& sum) {
  __asm__ volatile("mb" ::: "memory");  // the handler's words before our reads (head was read)
  const uint64_t from = tail;
  const auto offset = static_cast<uint32_t>(from & (capacity - 1));
  const uint32_t first =
      words < capacity - offset ? words : static_cast<uint32_t>(capacity - offset);
  sum.add_copy(out, buffer + offset, first);
  sum.add_copy(out + first, buffer, words - first);
  __asm__ volatile("mb" ::: "memory");
  __atomic_store_n(&tail, from + words, __ATOMIC_RELEASE);
}

// The record's payload: its fixed `header` (ValuesPayload, ChainsPayload),
// then the buffer's `words` quadwords, all added to `sum`.
template <class PayloadHeader>
void move_into_record(uint8_t* payload, const PayloadHeader& header, const uint64_t* buffer,
                      uint64_t capacity, uint64_t& tail, uint32_t words, RecordChecksum& sum) {
  __builtin_memcpy(payload, &header, sizeof header);
  sum.add(&header, sizeof header);
  move_buffer_words(buffer, capacity, tail, reinterpret_cast<uint64_t*>(payload + sizeof header),
                    words, sum);
}

}  // namespace dcpi::driver
