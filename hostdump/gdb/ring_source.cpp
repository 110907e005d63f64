#include "hostdump/gdb/ring_source.h"

#include <cstring>

#include "hostdump/gdb/gdb_client.h"

namespace dcpi {

GdbRingSource::GdbRingSource(GdbClient& client, uint64_t ring_address,
                             std::optional<uint64_t> cycles_address)
    : client_(client), puller_(client, ring_address), cycles_address_(cycles_address) {}

Collected GdbRingSource::collect() {
  RingPull pull = puller_.pull();
  Collected collected;
  collected.records = std::move(pull.records);
  collected.stats = pull.stats;
  collected.delivered = true;
  if (pull.initialised) {
    collected.ring_drops = {pull.header.records_dropped, pull.header.samples_dropped};
    if (pull.header.capacity != 0)
      collected.ring_fill = static_cast<double>(pull.header.head - pull.header.tail) /
                            static_cast<double>(pull.header.capacity);
  }
  if (cycles_address_) {
    const std::vector<uint8_t> bytes = client_.read_memory(*cycles_address_, sizeof(uint64_t));
    uint64_t cycles = 0;
    std::memcpy(&cycles, bytes.data(), sizeof cycles);
    collected.guest_cycles = cycles;
  }
  return collected;
}

void GdbRingSource::acknowledge() { puller_.acknowledge(); }

void GdbRingSource::resume() { client_.resume(); }

void GdbRingSource::pause() { client_.interrupt(); }

}  // namespace dcpi
