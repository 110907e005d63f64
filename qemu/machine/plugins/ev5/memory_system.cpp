#include "qemu/machine/plugins/ev5/memory_system.h"

#include <algorithm>

namespace dcpi::ev5 {

static_assert(Arrival::kChunks * Arrival::kChunkBytes == Machine::kL2LineBytes,
              "a system fill moves one S-/B-cache line");

MemorySystem::MemorySystem(const Machine& machine)
    : machine_(machine),
      icache_(Machine::kIcacheBytes, Machine::kIcacheWays, Machine::kL1LineBytes),
      dcache_(Machine::kDcacheBytes, Machine::kDcacheWays, Machine::kL1LineBytes),
      scache_(Machine::kScacheBytes, Machine::kScacheWays, Machine::kL2LineBytes),
      bcache_(machine.bcache_bytes, 1, Machine::kL2LineBytes) {}

void MemorySystem::join(Coherence* coherence, size_t cpu) {
  coherence_ = coherence;
  cpu_ = cpu;
  if (coherence) coherence->attach(cpu, this);
}

void MemorySystem::invalidate(uint64_t address) {
  const uint64_t line = address & ~uint64_t{Machine::kL2LineBytes - 1};
  bool held = dcache_.invalidate(line, Machine::kL2LineBytes);
  held |= scache_.invalidate(line, Machine::kL2LineBytes);
  held |= bcache_.invalidate(line, Machine::kL2LineBytes);
  if (held) ++events_.invalidated;
}

uint64_t MemorySystem::bus_start(uint64_t now) {
  const uint64_t start = std::max(now, bus_free_);
  bus_free_ = start + machine_.memory_bus_cycles;
  return start;
}

Arrival MemorySystem::fill_from_beyond(uint64_t address, uint64_t now) {
  const CacheAccess s = scache_.lookup(address, now);
  if (!s.hit) return fill_missing_scache(address, now);
  const uint64_t served = now + machine_.scache_latency;
  // A line still arriving in the S-cache serves the miss as its data come;
  // a chunk that is there already, as a hit does (its arrival can be
  // before `now`: the latency went negative, -17 cycles at an I-cache
  // refill seen by linux_contexts_ev5).
  if (s.arrival.last() > served && s.arrival.of(address) > served) return s.arrival;
  return {served, static_cast<uint32_t>(address / Arrival::kChunkBytes), 0};
}

Arrival MemorySystem::fill_missing_scache(uint64_t address, uint64_t now) {
  const auto chunk = static_cast<uint32_t>(address / Arrival::kChunkBytes);
  ++events_.scache_miss;
  Arrival arrival{now + machine_.bcache_latency, chunk, 0};
  if (!bcache_.lookup(address, now).hit) {
    ++events_.bcache_miss;
    arrival = {bus_start(now) + machine_.memory_latency, chunk, machine_.fill_chunk_cycles};
    if (coherence_ && coherence_->fill(cpu_, address)) {  // the owner's cache supplies it
      ++events_.interventions;
      arrival.first += machine_.intervention;
    }
    bcache_.fill(address, arrival);
  }
  scache_.fill(address, arrival);
  return arrival;
}

uint64_t MemorySystem::load_miss(uint64_t address, uint64_t now) {
  ++events_.dcache_miss;
  // With all miss address file entries busy a new miss waits for the first
  // to complete; the miss then takes that entry (found once: nothing
  // below changes the entries before it is written).
  uint64_t& entry = *std::min_element(outstanding_.begin(), outstanding_.end());
  const uint64_t start = std::max(now, entry);
  const uint64_t scache_misses = events_.scache_miss, bcache_misses = events_.bcache_miss;
  const Arrival arrival = fill_from_beyond(address, start);
  last_miss_scache_ = events_.scache_miss != scache_misses;
  last_miss_bcache_ = events_.bcache_miss != bcache_misses;
  const uint64_t ready = arrival.of(address);
  entry = ready;
  dcache_.fill(address, arrival);
  return ready;
}

uint64_t MemorySystem::store(uint64_t address, uint64_t now) {
  if (coherence_) coherence_->store(cpu_, address);
  if (write_buffer_.merges_into_newest(address, now)) return 0;
  const uint64_t wait = write_buffer_.wait(address, now);
  if (wait) ++events_.wbuf_full;
  const uint64_t at = now + wait;
  // The D-cache is write-through without allocation; the entry's write needs
  // the line in the (write-back) S-cache, fetched first if it is missing.
  uint64_t retire = machine_.wbuf_retire;
  if (!scache_.lookup(address, at).hit) {
    // A miss changes no cache: the line is fetched without looking again.
    retire += fill_missing_scache(address, at).of(address) - at;
    bus_start(at);  // the line's write-back, some time later
  }
  write_buffer_.store(address, at, retire);
  return wait;
}

uint64_t MemorySystem::fetch(uint64_t address, uint64_t now) {
  if (icache_.lookup(address, now).hit) return 0;
  ++events_.icache_miss;
  const uint64_t latency = fill_latency(address, now);
  icache_.fill(address, now);
  return latency;
}

}  // namespace dcpi::ev5
