// The in-kernel daemon (DCPI §4.3.1; DESIGN §6): drains full overflow
// buffers and periodic IPI-synchronized flushes of every CPU's hash table
// into the transfer ring, forwards image-load records, emits per-CPU
// statistics and epoch markers, and performs control commands. One pass is
// daemon_step(); today the boot CPU's idle loop runs it, later a kernel
// thread can. Everything here runs at IPL < 5 under one lock.
#include "driver/chain_sampler.h"
#include "driver/driver.h"
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "driver/profileme_table.h"
#include "driver/ring_writer.h"
#include "driver/value_sampler.h"
#include "firmware/control_block.h"
#include "firmware/ev5_counters.h"
#include "firmware/load_map.h"

extern "C" {
alignas(64) dcpi::TransferRing dcpi_transfer_ring;  // declared in driver/driver.h
alignas(64) dcpi::ControlBlock dcpi_control;
// Defined by the kernel's loader when it exists; forwarding is skipped if not.
extern dcpi::LoadMap dcpi_load_map __attribute__((weak));
}

namespace dcpi::driver {
namespace {

// Samples records carry at most this many entries (16 KB), so a flush is a
// run of small records and a full ring loses little at a time.
constexpr uint32_t kRecordEntries = 1024;

struct alignas(64) DaemonCounts {  // written by the daemon only
  uint64_t samples_to_daemon;
  uint64_t entries_to_daemon;
  uint64_t flushes;
  uint64_t interrupts_reported;      // interrupts in the last kStats record the ring took
  kernel::sched::CpuTimes at_epoch;  // the CPU's times when the epoch began
  uint64_t reserved[2];
};
static_assert(sizeof(DaemonCounts) == 64);
// DriverCpuStats::period_range is 16 bits wide.
static_assert(kMaxPeriod - kMinPeriod <= 0xffff);

struct Daemon {
  SpinLock lock;
  uint32_t cpu_count = 0;
  uint64_t epoch = 0;
  uint64_t flush_interval = kDefaultFlushIntervalCycles;
  uint64_t last_flush = 0;
  uint64_t load_map_forwarded = 0;
  uint64_t samples_written = 0;
  DaemonCounts counts[kMaxCpus] = {};
  SampleEntry staging[kRecordEntries] = {};
};

constinit Daemon daemon;

// The daemon's lock is held at IPL 0 across requests to the other CPUs
// (they must take the IPIs): its holder is kept from being preempted
// instead (kernel_services.h preemption_off says what that prevented).
class DaemonLockGuard {
 public:
  DaemonLockGuard() {
    kernel::sched::preemption_off();
    daemon.lock.lock();
  }
  ~DaemonLockGuard() {
    daemon.lock.unlock();
    kernel::sched::preemption_on();
  }
  DaemonLockGuard(const DaemonLockGuard&) = delete;
  DaemonLockGuard& operator=(const DaemonLockGuard&) = delete;
};
constinit RingWriter ring(dcpi_transfer_ring);
// A quarter of the ring is kept for samples, load map and statistics
// records: value runs and call chains, which can wait in their per-CPU
// buffers, do not fill it (-g on 4 CPUs dropped up to 9 % of the samples
// between two host pulls when chains could take the whole ring).
constexpr uint64_t kRingReserve = kTransferRingBytes / 4;

bool initialised(uint32_t cpu) { return cpu < daemon.cpu_count && g_aux[cpu].initialised; }

// DCPI §4.3.1: the records that name a thread's process and images go
// into the ring before samples of it. Called before every record that holds
// samples: a thread's record was appended before it could run, so it is in
// the load map by the time its samples have been taken off its CPU (a
// forward only once per daemon pass let a flush carry samples of a thread
// born after that pass's forward: unknown samples on 4 CPUs).
void forward_load_map() {
  if (&dcpi_load_map == nullptr) return;
  const LoadMap& map = dcpi_load_map;
  if (__atomic_load_n(&map.magic, __ATOMIC_ACQUIRE) != kLoadMapMagic) return;
  static_assert((kLoadMapCapacity & (kLoadMapCapacity - 1)) == 0);
  const uint64_t count = __atomic_load_n(&map.count, __ATOMIC_ACQUIRE);
  if (count - daemon.load_map_forwarded > kLoadMapCapacity)
    daemon.load_map_forwarded = count - kLoadMapCapacity;  // overwritten before we saw them
  for (; daemon.load_map_forwarded < count; ++daemon.load_map_forwarded) {
    const LoadMapRecord& record = map.records[daemon.load_map_forwarded & (kLoadMapCapacity - 1)];
    uint8_t* payload = ring.begin(RecordType::kLoadMap, 0xffff, sizeof record, daemon.epoch, 0);
    if (payload == nullptr) continue;
    __builtin_memcpy(payload, &record, sizeof record);
    ring.commit();
  }
}

// Sends `count` entries in records of kRecordEntries.
void emit_samples(uint32_t cpu, SamplesReason reason, const SampleEntry* entries, uint64_t count) {
  forward_load_map();
  for (uint64_t done = 0; done < count;) {
    const uint32_t n =
        count - done < kRecordEntries ? static_cast<uint32_t>(count - done) : kRecordEntries;
    uint64_t samples = 0;
    for (uint32_t i = 0; i < n; ++i) samples += entries[done + i].count;
    const uint32_t bytes = sizeof(SamplesPayload) + n * sizeof(SampleEntry);
    uint8_t* payload =
        ring.begin(RecordType::kSamples, static_cast<uint16_t>(cpu), bytes, daemon.epoch, samples);
    if (payload != nullptr) {
      const SamplesPayload head{static_cast<uint32_t>(reason), n, 0};
      __builtin_memcpy(payload, &head, sizeof head);
      __builtin_memcpy(payload + sizeof head, entries + done, n * sizeof(SampleEntry));
      ring.commit();
      daemon.samples_written += samples;
    }
    DaemonCounts& counts = daemon.counts[cpu];
    counts.samples_to_daemon += samples;
    counts.entries_to_daemon += n;
    done += n;
  }
}

// Copies the buffers the mailbox says are the daemon's; returns their mask.
// Call only after a request round trip (the mailbox is then current).
uint32_t copy_full_buffers(uint32_t cpu, SamplesReason reason) {
  const CpuMailbox& mailbox = g_mailbox[cpu];
  const CpuHot& hot = cpu_hot(cpu);
  const uint32_t mask = mailbox.full_mask;
  for (uint32_t b = 0; b < 2; ++b)
    if (mask & (1u << b)) emit_samples(cpu, reason, buffer_base(hot, b), mailbox.filled[b]);
  return mask;
}

void drain_full_buffers(uint32_t cpu) {
  if (__atomic_load_n(&g_mailbox[cpu].full_mask, __ATOMIC_RELAXED) == 0) return;
  if (!request(cpu, 0, 0)) return;  // round trip: the buffer contents are visible
  const uint32_t mask = copy_full_buffers(cpu, SamplesReason::kOverflowBuffer);
  if (mask != 0) request(cpu, kOpRelease, mask);
}

// DCPI §4.2.3: IPI to set the flushing flag, copy the table out, IPI to
// clear it; the partial overflow buffer is handed off the same way.
void flush_cpu(uint32_t cpu) {
  if (!request(cpu, kOpFlushBegin, 0)) return;
  const uint32_t released = copy_full_buffers(cpu, SamplesReason::kOverflowBuffer);
  SampleEntry* table = cpu_hot(cpu).table;
  uint32_t staged = 0;
  for (uint32_t i = 0; i < kTableEntries; ++i) {
    if (table[i].count == 0) continue;
    daemon.staging[staged++] = table[i];
    table[i] = SampleEntry{};
    if (staged == kRecordEntries) {
      emit_samples(cpu, SamplesReason::kFlush, daemon.staging, staged);
      staged = 0;
    }
  }
  // ProfileMe's aggregates (driver/profileme_table.h), each expanded into
  // the pm_* entries its records stand for.
  PmEntry* pm = pm_table(cpu);
  for (uint32_t i = 0; i < kPmEntries; ++i) {
    if (pm[i].count == 0) continue;
    if (staged + kPmMaxExpansion > kRecordEntries) {
      emit_samples(cpu, SamplesReason::kFlush, daemon.staging, staged);
      staged = 0;
    }
    pm_expand(pm[i], [&](const SampleEntry& e) { daemon.staging[staged++] = e; });
    pm[i] = PmEntry{};
  }
  emit_samples(cpu, SamplesReason::kFlush, daemon.staging, staged);
  if (!request(cpu, kOpRelease | kOpFlushEnd | kOpSwap, released)) return;
  // What the swap handed off, and a buffer the samples and records taken
  // while the table was copied filled (handed off then: the swap above
  // found it pending and left the partial one). Copied and released, then
  // one more swap: a stop's flush is the last (ProfileMe off first,
  // profileme_stop), and a full buffer left here lost its records (traps,
  // ev5, 1 CPU: ~19,000 of 177,000 ProfileMe records, docs/profileme.md
  // "Every record taken").
  for (uint32_t round = 0; round < 2; ++round) {
    const uint32_t full = copy_full_buffers(cpu, SamplesReason::kFlush);
    if (full == 0) break;
    if (!request(cpu, kOpRelease | (round == 0 ? uint32_t{kOpSwap} : 0u), full)) return;
  }
  ++daemon.counts[cpu].flushes;
}

void emit_stats(uint32_t cpu) {
  StatsPayload stats{};
  stats.stats = read_stats(cpu);
  stats.profileme_mean = profileme_interval();
  stats.profileme_pair_window = profileme_pair_window();
  stats.event_kill = g_config.event_kill;
  add_event_counted_cycles(cpu, stats);
  const kernel::sched::CpuTimes times = kernel::sched::cpu_times(cpu);
  stats.thread_cycles = times.thread_cycles - daemon.counts[cpu].at_epoch.thread_cycles;
  stats.own_cycles = times.own_cycles - daemon.counts[cpu].at_epoch.own_cycles;
  uint8_t* payload =
      ring.begin(RecordType::kStats, static_cast<uint16_t>(cpu), sizeof stats, daemon.epoch, 0);
  if (payload == nullptr) return;
  __builtin_memcpy(payload, &stats, sizeof stats);
  ring.commit();
  daemon.counts[cpu].interrupts_reported = stats.stats.interrupts;
}

void emit_epoch() {
  for (uint32_t cpu = 0; cpu < daemon.cpu_count; ++cpu)
    daemon.counts[cpu].at_epoch = kernel::sched::cpu_times(cpu);
  const EpochPayload epoch{daemon.epoch, kernel::clock::cycles()};
  uint8_t* payload = ring.begin(RecordType::kEpoch, 0xffff, sizeof epoch, daemon.epoch, 0);
  if (payload == nullptr) return;
  __builtin_memcpy(payload, &epoch, sizeof epoch);
  ring.commit();
}

// What waits in a CPU's per-CPU buffer as one record per pass: value runs
// (seed 001 §2.4: tuple sequences go to the user-mode side, here the ring
// then hostdump, for reduction) and call chains (issue 28: registers and
// stack slices the host unwinds). Either can wait in its buffer, which
// counts what it must drop, rather than take the ring's reserve from the
// samples: no record, no sequence gap, no loss in the ring. One copy,
// straight from the buffer into the record, checksummed on the way.
using TakeWords = void (*)(uint32_t cpu, uint8_t* payload, uint32_t words, RecordChecksum& sum);
void emit_waiting(uint32_t cpu, RecordType type, uint32_t header_bytes, uint32_t words,
                  bool dropped_since, TakeWords take) {
  if (words == 0 && !dropped_since) return;
  const uint32_t bytes = header_bytes + words * sizeof(uint64_t);
  forward_load_map();
  if (!ring.fits_leaving(bytes, kRingReserve)) return;
  uint8_t* payload = ring.begin(type, static_cast<uint16_t>(cpu), bytes, daemon.epoch, 0);
  if (payload == nullptr) return;
  RecordChecksum sum = ring.begun_sum();
  take(cpu, payload, words, sum);
  ring.commit(sum);
}

void emit_values(uint32_t cpu) {
  bool dropped_since = false;
  const uint32_t words = value_pending_words(cpu, &dropped_since);
  emit_waiting(cpu, RecordType::kValues, sizeof(ValuesPayload), words, dropped_since, value_take);
}

void emit_chains(uint32_t cpu) {
  bool dropped_since = false;
  const uint32_t words = chain_pending_words(cpu, &dropped_since);
  emit_waiting(cpu, RecordType::kChains, sizeof(ChainsPayload), words, dropped_since, chain_take);
}

void flush_all_locked() {
  for (uint32_t cpu = 0; cpu < daemon.cpu_count; ++cpu)
    if (initialised(cpu)) emit_values(cpu), emit_chains(cpu);
  for (uint32_t cpu = 0; cpu < daemon.cpu_count; ++cpu)
    if (initialised(cpu)) flush_cpu(cpu);
  for (uint32_t cpu = 0; cpu < daemon.cpu_count; ++cpu)
    if (initialised(cpu)) emit_stats(cpu);
  daemon.last_flush = kernel::clock::cycles();
}

void request_all(uint32_t ops) {
  for (uint32_t cpu = 0; cpu < daemon.cpu_count; ++cpu)
    if (initialised(cpu)) request(cpu, ops, 0);
}

// Seed 001 §3.4: interpret N instructions on every k-th interrupt; N = 0
// goes back to the cycles variant.
int64_t set_values(uint64_t length, uint64_t every) {
  if (length > kMaxValueLength || every == 0 || every > kMaxValueEvery) return kControlBadArgument;
  value_configure(static_cast<uint32_t>(length), static_cast<uint32_t>(every));
  g_config.base_variant = length == 0 ? Variant::kCycles : Variant::kValue;
  request_all(kOpConfigure);
  return kControlOk;
}

// Issue 28: copy `stack_bytes` of stack with every sample (0: chains off).
// Chains and value sampling are separate variants: one replaces the other.
int64_t set_chains(uint64_t stack_bytes) {
  if (stack_bytes > kMaxChainStackBytes || (stack_bytes & 7) != 0) return kControlBadArgument;
  chain_configure(static_cast<uint32_t>(stack_bytes));
  g_config.base_variant = stack_bytes == 0 ? Variant::kCycles : Variant::kChain;
  request_all(kOpConfigure);
  return kControlOk;
}

// Every CPU's generators from the run's seed (0: the built-in ones), then
// the configuration again so counters 1 and 2's first periods are drawn
// from it too.
int64_t set_seed(uint64_t seed) {
  if (seed > 0xffffffffu) return kControlBadArgument;
  g_config.seed = static_cast<uint32_t>(seed);
  request_all(kOpReseed | kOpConfigure);
  return kControlOk;
}

int64_t set_period(uint64_t base, uint64_t range) {
  if (base < kMinPeriod || range > kMaxPeriod || base + range > kMaxPeriod)
    return kControlBadArgument;
  // Ship everything sampled with the old period, and a kStats record saying
  // which period that was, before the new one applies: no interval between
  // two kStats records of a CPU mixes two periods (docs/transfer-format.md).
  if (base != g_config.period_base || range != g_config.period_range) flush_all_locked();
  g_config.period_base = static_cast<uint32_t>(base);
  g_config.period_range = static_cast<uint32_t>(range);
  request_all(kOpConfigure);
  return kControlOk;
}

// The events of `events` in `set`, in event order, into `list`; false when
// more than kMaxMuxEvents.
bool list_events(uint64_t events, EventSet set, uint8_t (&list)[kMaxMuxEvents], uint32_t& n) {
  n = 0;
  for (uint32_t e = 0; e < static_cast<uint32_t>(Event::kCount); ++e) {
    if (!(events & set & (uint64_t{1} << e))) continue;
    if (n == kMaxMuxEvents) return false;
    list[n++] = static_cast<uint8_t>(e);
  }
  return true;
}

// DCPI's configurations: "cycles" (one event), "default" (cycles + imiss),
// "mux" (cycles + a rotation of others on a second counter, §4.1). Counter
// 0 counts cycles (or issues on QEMU, where they are equal); loads and
// stores are counter 1's, the misses and mispredicts counter 2's, which
// only the ev5 machine has (firmware/events.h kCountableOnEv5). Anything
// else is refused, never faked. `kill`: the 21164's kill bits for counters 1
// and 2 (one set for all its counters, HRM PMCTR; dcpi run --events
// imiss:u), 0 = every mode; all three would count nothing.
int64_t set_events(uint64_t events, uint64_t mux, uint64_t kill) {
  if (events == 0 || events >> static_cast<uint32_t>(Event::kCount) != 0)
    return kControlBadArgument;
  if ((kill & ~uint64_t{EV5_KILL_MASK}) != 0 || kill == EV5_KILL_MASK) return kControlBadArgument;
  const uint64_t counters12 = events & ~uint64_t{kCountableOnQemu};
  if (counters12 & ~uint64_t{kCountableOnEv5}) return kControlUncountableEvent;
  if (counters12 && !machine_has_event_counters()) return kControlUncountableEvent;
  // Counter 0's cycles is PALcode's clock, which counts in every mode.
  if (kill != 0 && counters12 == 0) return kControlUncountableEvent;
  constexpr EventSet kOn[kEventCounters] = {kCounter1Events, kCounter2Events};
  uint32_t n = 0, n12[kEventCounters] = {};
  uint8_t list[kMaxMuxEvents] = {}, list12[kEventCounters][kMaxMuxEvents] = {};
  if (!list_events(events, kCountableOnQemu, list, n)) return kControlBadArgument;
  for (uint32_t k = 0; k < kEventCounters; ++k)
    if (!list_events(counters12, kOn[k], list12[k], n12[k])) return kControlBadArgument;
  if (n == 0) list[n++] = static_cast<uint8_t>(Event::kCycles);  // counter 0 always runs
  // One counter counts one event at a time: several without mux cannot be done.
  if ((n > 1 || n12[0] > 1 || n12[1] > 1) && !mux) return kControlUncountableEvent;
  g_config.events = static_cast<EventSet>(events);
  g_config.event_kill = static_cast<uint32_t>(kill);
  g_config.mux = mux ? 1 : 0;
  g_config.mux_count = n;
  for (uint32_t i = 0; i < kMaxMuxEvents; ++i) g_config.mux_events[i] = i < n ? list[i] : list[0];
  for (uint32_t k = 0; k < kEventCounters; ++k) {
    g_config.counter_count[k] = n12[k];
    for (uint32_t i = 0; i < kMaxMuxEvents; ++i)
      g_config.counter_events[k][i] = i < n12[k] ? list12[k][i] : 0;
  }
  request_all(kOpConfigure);
  return kControlOk;
}

int64_t perform_locked(uint32_t command, const uint64_t args[3]) {
  switch (static_cast<ControlCommand>(command)) {
    case ControlCommand::kNone:
      return kControlOk;
    case ControlCommand::kStart:
      request_all(kOpConfigure | kOpStart);
      return kControlOk;
    case ControlCommand::kStop:
      request_all(kOpStop);
      flush_all_locked();
      return kControlOk;
    case ControlCommand::kFlush:
      flush_all_locked();
      return kControlOk;
    case ControlCommand::kNewEpoch:
      flush_all_locked();
      daemon.epoch = args[0] != 0 ? args[0] : daemon.epoch + 1;
      emit_epoch();
      return kControlOk;
    case ControlCommand::kSetPeriod:
      return set_period(args[0], args[1]);
    case ControlCommand::kSetEvents:
      return set_events(args[0], args[1], args[2]);
    case ControlCommand::kSetValues:
      return set_values(args[0], args[1]);
    case ControlCommand::kSetChains:
      return set_chains(args[0]);
    case ControlCommand::kSetSeed:
      return set_seed(args[0]);
  }
  return kControlUnknownCommand;
}

void poll_control_block() {
  ControlBlock& block = dcpi_control;
  const uint64_t requested = __atomic_load_n(&block.request_sequence, __ATOMIC_ACQUIRE);
  if (requested == block.done_sequence) return;
  const uint64_t args[3] = {block.args[0], block.args[1], block.args[2]};
  block.status = perform_locked(block.command, args);
  __atomic_store_n(&block.done_sequence, requested, __ATOMIC_RELEASE);
}

}  // namespace

void driver_init(uint32_t cpu_count, uint32_t daemon_cpu) {
  daemon.cpu_count = cpu_count < kMaxCpus ? cpu_count : kMaxCpus;
  g_daemon_cpu = daemon_cpu;
  for (uint32_t cpu = 0; cpu < daemon.cpu_count; ++cpu)
    sampler_init_cpu(cpu, start_seed(kPeriodSeed + 977 * cpu), SamplerConfig{});
  ring.init();
  emit_epoch();
  dcpi_control.request_sequence = dcpi_control.done_sequence = 0;
  dcpi_control.status = kControlOk;
  __atomic_store_n(&dcpi_control.magic, kControlMagic, __ATOMIC_RELEASE);
  daemon.last_flush = kernel::clock::cycles();
}

void daemon_step() {
  DaemonLockGuard guard;
  poll_control_block();
  forward_load_map();
  for (uint32_t cpu = 0; cpu < daemon.cpu_count; ++cpu)
    if (initialised(cpu)) {
      drain_full_buffers(cpu);
      emit_values(cpu);
      emit_chains(cpu);
    }
  if (daemon.flush_interval != 0 &&
      kernel::clock::cycles() - daemon.last_flush >= daemon.flush_interval)
    flush_all_locked();
}

void set_flush_interval(uint64_t cycles) {
  DaemonLockGuard guard;
  daemon.flush_interval = cycles;
  daemon.last_flush = kernel::clock::cycles();
}

void flush_all() {
  DaemonLockGuard guard;
  flush_all_locked();
}

void start_all() {
  DaemonLockGuard guard;
  request_all(kOpConfigure | kOpStart);
}

void stop_all() {
  DaemonLockGuard guard;
  request_all(kOpStop);
}

int64_t control_from_user(uint32_t command, const uint64_t args[3]) {
  DaemonLockGuard guard;
  return perform_locked(command, args);
}

DriverCpuStats read_stats(uint32_t cpu) {
  DriverCpuStats stats = dcpi_driver_stats[cpu];
  stats.cpu = cpu;
  stats.interrupts = interrupts_of(cpu);
  stats.samples_to_daemon = daemon.counts[cpu].samples_to_daemon;
  stats.entries_to_daemon = daemon.counts[cpu].entries_to_daemon;
  stats.flushes = daemon.counts[cpu].flushes;
  const CpuHot& hot = cpu_hot(cpu);
  stats.period_base = hot.period_base;
  stats.period_range = static_cast<uint16_t>(hot.period_range);
  stats.period_flags =
      stats.interrupts != daemon.counts[cpu].interrupts_reported ? kPeriodSampled : 0;
  return stats;
}

RingTotals ring_totals() {
  const TransferRingHeader& h = dcpi_transfer_ring.header;
  return RingTotals{ring.records_written(), daemon.samples_written, h.records_dropped,
                    h.samples_dropped};
}

void ring_consume_all() {
  __atomic_store_n(&dcpi_transfer_ring.header.tail, dcpi_transfer_ring.header.head,
                   __ATOMIC_RELEASE);
}

namespace {
// The serial transport: every record the daemon commits to the ring goes
// out on COM2 verbatim (a pad as its header alone) (docs/transfer-format.md "Serial
// stream"); the ring then only stages it, so the daemon consumes it at once
// (the host does not pull the ring in this mode and it never fills).
void send_on_com2(const uint8_t* record, uint64_t bytes) {
  kernel::uart2_write_bytes(record, bytes);
  ring_consume_all();
}
}  // namespace

void set_serial_transport(bool on) {
  ring.set_mirror(on ? send_on_com2 : nullptr);
  if (!on) return;
  // Records committed before (the boot epoch record): send them first.
  TransferRingHeader& h = dcpi_transfer_ring.header;
  for (uint64_t at = h.tail; at != h.head;) {
    const auto* header = reinterpret_cast<const RecordHeader*>(dcpi_transfer_ring.data +
                                                               (at & (kTransferRingBytes - 1)));
    const uint64_t span = record_span(header->payload_bytes);
    RingWriter::mirror_record(*header, span,
                              header->type == static_cast<uint16_t>(RecordType::kPad),
                              kernel::uart2_write_bytes);
    at += span;
  }
  ring_consume_all();
}

}  // namespace dcpi::driver
