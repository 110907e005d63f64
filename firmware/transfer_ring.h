// The transfer ring: how profile data leaves the guest (DESIGN §6).
// The in-kernel daemon appends records; hostdump reads them through the GDB
// stub (kernel symbol `dcpi_transfer_ring`) or receives the same bytes on the
// second serial port. One record format for both transports, written once
// for the guest (writer) and the host (reader). Documented in
// docs/transfer-format.md.
#pragma once
#include <cstddef>
#include <cstdint>

#include "firmware/events.h"
#include "firmware/memory_map.h"

namespace dcpi {

// One sample aggregate: a hash-table entry (DCPI §4.2.1: PID, PC, EVENT and a
// count in 16 bytes). count == 0 marks an empty hash-table slot.
struct SampleEntry {
  uint64_t pc;
  uint32_t count;
  uint16_t pid;    // the running thread's id (its process's for the first thread;
                   // load map kThread records name the process); 0 = kernel / idle
  uint16_t event;  // dcpi::Event
};
static_assert(sizeof(SampleEntry) == 16);

inline constexpr uint64_t kTransferRingMagic = 0x474e495249504344ull;  // "DCPIRING"
// 2: records carry RecordChecksum (firmware/record_checksum.h); 1: CRC-32C.
inline constexpr uint32_t kTransferFormatVersion = 2;
inline constexpr uint64_t kTransferRingBytes = uint64_t{2} << 20;
inline constexpr uint32_t kRecordMagic = 0x52504344u;  // "DCPR"
inline constexpr uint32_t kRecordAlignment = 32;       // records never straddle the end

enum class RecordType : uint16_t {
  kPad = 0,      // fills the space up to the end of the ring; skip it
  kSamples = 1,  // SamplesPayload + SampleEntry[count]
  kLoadMap = 2,  // one LoadMapRecord (firmware/load_map.h)
  kStats = 3,    // one StatsPayload (one DriverCpuStats from a guest before issue 26)
  kEpoch = 4,    // EpochPayload: a new epoch begins with the next record
  kValues = 5,   // value-sampling tuples (seed 001 §2; format owned by that issue)
  kChains = 6,   // sampled call chains: registers + stack slices (firmware/call_chains.h)
};

// 32 bytes; payload follows; the whole record is padded to kRecordAlignment.
struct RecordHeader {
  uint32_t magic;          // kRecordMagic
  uint16_t type;           // RecordType
  uint16_t cpu;            // originating CPU, 0xffff if none
  uint32_t payload_bytes;  // bytes after the header (before padding)
  uint32_t checksum;       // record_checksum (firmware/record_checksum.h): header, then payload
  uint64_t sequence;       // 0, 1, 2, ... in write order; a gap means lost records
  uint64_t epoch;          // epoch the payload belongs to
};
static_assert(sizeof(RecordHeader) == 32);

enum class SamplesReason : uint32_t {
  kOverflowBuffer = 1,  // a full overflow buffer handed to the daemon (DCPI §4.2.2)
  kFlush = 2,           // hash table and partial buffer emptied by a flush (DCPI §4.2.3)
};

struct SamplesPayload {
  uint32_t reason;  // SamplesReason
  uint32_t count;   // SampleEntry records that follow
  uint64_t reserved;
};
static_assert(sizeof(SamplesPayload) == 16);

struct EpochPayload {
  uint64_t epoch;
  uint64_t time;  // RPCC when it began
};

enum DropReason : uint32_t {
  kDropBothBuffersFull = 0,  // the daemon had not drained the other overflow buffer
  kDropUncountedEvent = 1,   // overflow for an event the configuration does not record
  kDropProfileMe = 2,        // ProfileMe entries (issue 27) both buffers had no room for
  kDropReasons = 4,
};

// Per-CPU driver statistics (DESIGN §5), sent as a kStats record; also the
// in-kernel counters themselves. Samples are counts (sums of entry counts).
struct DriverCpuStats {
  uint64_t cpu;
  uint64_t interrupts;             // counter overflows delivered to the handler: read_stats()
                                   // derives it as hits + misses + flushing_samples (every
                                   // interrupt records exactly one sample, in exactly one of
                                   // the three ways); 0 in dcpi_driver_stats itself
  uint64_t hits;                   // samples that incremented an existing entry
  uint64_t misses;                 // samples that needed a new entry
  uint64_t evictions;              // entries moved from the table to an overflow buffer
  uint64_t overflow_switches;      // overflow buffer full -> switched to the other
  uint64_t samples_to_daemon;      // samples handed to the daemon (buffers + flushes)
  uint64_t entries_to_daemon;      // entries handed to the daemon
  uint64_t dropped[kDropReasons];  // samples lost, by DropReason
  uint64_t handler_cycles;         // RPCC cycles inside the handler (= instructions on QEMU)
  uint64_t flushes;                // IPI-synchronized flushes of this CPU's table
  uint64_t flushing_samples;       // samples recorded while the table was being flushed
  // The sampling period this CPU draws from (DCPI §4.1.1): uniform in
  // [period_base, period_base + period_range), period_base when the range is 0.
  // Zero in a record from a guest that predates these fields (then: unknown).
  uint32_t period_base;
  uint16_t period_range;  // ≤ kMaxPeriod - kMinPeriod (driver/driver.h), fits 16 bits
  uint16_t period_flags;  // PeriodFlags
};
static_assert(sizeof(DriverCpuStats) == 128);
static_assert(offsetof(DriverCpuStats, flushing_samples) == 112);
static_assert(offsetof(DriverCpuStats, period_base) == 120);
static_assert(offsetof(DriverCpuStats, period_range) == 124);
static_assert(offsetof(DriverCpuStats, period_flags) == 126);

// Issue 26 (R10000 paper §3: each event's share of time when the events
// outnumber the counters): the RPCC cycles each event had counter 2 while the
// mux variant rotated it, cumulative per CPU since boot, by dcpi::Event.
// Booked at each rotation (driver/event_counters.cpp), so the turn in
// progress is not yet in (under one rotation: kMuxEvery counter-0 periods).
// All zero when counter 2 did not rotate: one event, or none, had it all the
// time.
// Events 0..7 here; the later ones (counter 1's loads and stores) in
// StatsPayload::counted_more, appended so that older records keep their
// layout.
inline constexpr uint32_t kCountedCyclesFirst = 8;
struct EventCountedCycles {
  uint64_t cycles[kCountedCyclesFirst];
};
static_assert(sizeof(EventCountedCycles) == 64);
// counted_more holds events 8-15, counted_extra 16-23.
static_assert(DCPI_EVENT_COUNT <= 3 * kCountedCyclesFirst, "counted_extra holds 8 more events");

// A kStats record's payload. A 128-byte payload (a DriverCpuStats alone)
// comes from a guest built before issue 26 and records no counted cycles.
struct StatsPayload {
  DriverCpuStats stats;
  EventCountedCycles counted;
  // ProfileMe's mean interval in fetched instructions (issue 27; each drawn
  // from an exponential distribution, 1 + floor(mean · E)); 0 when off.
  uint32_t profileme_mean;
  // Paired sampling's window W (seed 004 §5.2.2): each record then has a
  // partner 1..W fetches away and one stands for half a mean interval; 0:
  // single records (and every guest before it).
  uint32_t profileme_pair_window;
  // The kill bits counters 1 and 2 sampled with (issue 26: dcpi run
  // --events imiss:u; EV5_KILL_USER/KERNEL/PAL, firmware/ev5_counters.h);
  // 0: every mode (and every guest before the modifiers, whose word here
  // was reserved and zero).
  uint32_t event_kill;
  uint32_t reserved;
  // Events kCountedCyclesFirst.. (counter 1's loads and stores, issue 26):
  // absent from a 208-byte payload (a guest from before them).
  uint64_t counted_more[kCountedCyclesFirst];
  // Events 2 * kCountedCyclesFirst.. (counter 2's PC mispredicts, issue
  // 26): absent from a 272-byte payload (a guest from before them).
  uint64_t counted_extra[kCountedCyclesFirst];
  // Under -icount every CPU's cycle counter is one virtual clock that all of
  // them advance (docs/qemu-deviations.md), so while k CPUs run threads
  // each retires a k-th of the cycles its samples count. The kernel's
  // scheduler accounts for it (kernel/cpu_time.h), since the epoch began:
  // the cycles this CPU ran a thread other than its idle loop, and those
  // cycles each divided by the number of CPUs running threads at the time
  // (its share of the clock: its own cycles). Both 0 in a 336-byte payload
  // (a guest from before them): then unknown.
  uint64_t thread_cycles;
  uint64_t own_cycles;
};
static_assert(sizeof(StatsPayload) == 352);
inline constexpr size_t kStatsPayloadBeforeCounter1 = 208;
inline constexpr size_t kStatsPayloadBeforePcMispredicts = 272;
inline constexpr size_t kStatsPayloadBeforeCpuTime = 336;
static_assert(offsetof(StatsPayload, counted) == 128);
static_assert(offsetof(StatsPayload, profileme_mean) == 192);
static_assert(offsetof(StatsPayload, profileme_pair_window) == 196);
static_assert(offsetof(StatsPayload, event_kill) == 200);
static_assert(offsetof(StatsPayload, counted_more) == kStatsPayloadBeforeCounter1);
static_assert(offsetof(StatsPayload, counted_extra) == kStatsPayloadBeforePcMispredicts);
static_assert(offsetof(StatsPayload, thread_cycles) == kStatsPayloadBeforeCpuTime);

// Event `event`'s counted cycles in a payload.
inline uint64_t counted_cycles_of(const StatsPayload& payload, uint32_t event) {
  if (event < kCountedCyclesFirst) return payload.counted.cycles[event];
  if (event < 2 * kCountedCyclesFirst) return payload.counted_more[event - kCountedCyclesFirst];
  return payload.counted_extra[event - 2 * kCountedCyclesFirst];
}

// DriverCpuStats::period_flags.
enum PeriodFlags : uint16_t {
  // The CPU took samples since its previous kStats record, all of them with
  // this period: the daemon flushes every CPU before it applies a new period
  // (kSetPeriod), so no shipped interval mixes two periods (up to the sample
  // or two in flight on each CPU while the new period is being installed).
  kPeriodSampled = 1,
};

// At symbol `dcpi_transfer_ring`. Positions are byte counts since boot; the
// offset in data[] is position % kTransferRingBytes. The guest only writes
// head (after the record is complete); the host only writes tail (with the
// VM stopped). A record the daemon cannot fit is dropped and counted.
struct alignas(64) TransferRingHeader {
  uint64_t magic;  // kTransferRingMagic once initialised
  uint32_t version;
  uint32_t header_bytes;  // sizeof(TransferRingHeader)
  uint64_t capacity;      // kTransferRingBytes
  uint64_t head;
  uint64_t tail;
  uint64_t next_sequence;
  uint64_t records_dropped;  // records refused because the ring was full
  uint64_t samples_dropped;  // samples inside those records
};
static_assert(sizeof(TransferRingHeader) == 64);

struct TransferRing {
  TransferRingHeader header;
  alignas(64) uint8_t data[kTransferRingBytes];
};

inline constexpr uint64_t record_span(uint32_t payload_bytes) {
  return (sizeof(RecordHeader) + payload_bytes + kRecordAlignment - 1) &
         ~uint64_t{kRecordAlignment - 1};
}

}  // namespace dcpi
