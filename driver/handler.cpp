// The counter-overflow interrupt handler (DCPI §4.2.1–§4.2.3), IPL 6.
//
// Lines the cycles variant touches on a hash hit: this CPU's CpuHot line, one
// 64-byte bucket, and this CPU's DriverCpuStats (two lines, written by no
// other CPU). A miss that evicts adds one overflow-buffer line. Nothing is
// shared with another CPU; no locks, no memory barriers (DCPI §4.2.3): the
// daemon synchronizes with the handler only through IPIs (driver/sync.cpp).
#include "driver/chain_sampler.h"
#include "driver/driver.h"
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "driver/value_sampler.h"
#include "firmware/ev5_counters.h"
#include "firmware/park_miller.h"

extern "C" {
// The variants' entries (driver/fast_handler.S).
void dcpi_entry_cycles();
void dcpi_entry_mux();
void dcpi_entry_value();
void dcpi_entry_trace();
void dcpi_entry_chain();
void dcpi_entry_chain_flushing();
void dcpi_entry_cycles_flushing();
void dcpi_entry_value_flushing();
void dcpi_entry_mux_flushing();
// dcpi_cpu_slots and dcpi_driver_stats are defined in driver/fast_handler.S,
// adjacent (HOT_TO_STATS).
alignas(64) dcpi::SampleEntry dcpi_sample_memory[dcpi::kMaxCpus][dcpi::driver::kCpuEntries];
}

namespace dcpi::driver {

alignas(64) CpuAux g_aux[kMaxCpus];
uint32_t g_daemon_signal;  // a handler asked for the daemon (signal_daemon)

namespace {

// Bucket of (PID, PC, EVENT) (DCPI §4.2.1). Consecutive instructions of one
// process fall in consecutive buckets; the PID and EVENT are spread by an
// odd multiplier so that processes running the same image do not collide.
// The fast path adds the cached CpuHot::pe_hash instead of multiplying;
// only the low 24 bits of h matter, so both agree.
inline uint32_t bucket_of(uint64_t pc, uint32_t pid_event) {
  uint64_t h = (pc >> 2) + uint64_t{pid_event} * kHashMultiplier;
  h ^= h >> 12;
  return static_cast<uint32_t>(h) & (kBuckets - 1);
}

// PID and EVENT as one 32-bit word (SampleEntry bytes 12..15).
inline uint32_t pid_event_of(const SampleEntry& e) {
  uint32_t word;
  __builtin_memcpy(&word, &e.pid, sizeof word);
  return word;
}

// Appends one entry to the active overflow buffer; false (and nothing
// stored) when it is full and the daemon still holds the other one.
inline bool append(CpuHot& hot, DriverCpuStats& stats, const SampleEntry& entry) {
  if (hot.cursor == hot.limit) [[unlikely]] {
    if (hot.other_pending) return false;
    hand_off_active(hot, kBufferEntries);
    ++stats.overflow_switches;
  }
  *hot.cursor++ = entry;
  return true;
}

// Records one sample of `event` at `pc` for the running process.
[[gnu::always_inline]] inline void record(CpuHot& hot, uint64_t pc, uint32_t event) {
  DriverCpuStats& stats = dcpi_driver_stats[hot.cpu];
  const uint32_t pid_event = hot.pid | event << 16;
  if (hot.flushing) [[unlikely]] {
    // DCPI §4.2.3: while the daemon copies the table, go straight to the buffer.
    const SampleEntry entry{pc, 1, hot.pid, static_cast<uint16_t>(event)};
    ++stats.flushing_samples;  // interrupts = hits + misses + flushing_samples
    if (!append(hot, stats, entry)) ++stats.dropped[kDropBothBuffersFull];
    return;
  }
  SampleEntry* bucket = hot.table + (bucket_of(pc, pid_event) << 2);
  for (uint32_t i = 0; i < kBucketEntries; ++i) {
    if (bucket[i].pc == pc && pid_event_of(bucket[i]) == pid_event) {
      ++bucket[i].count;
      ++stats.hits;
      return;
    }
    if (bucket[i].count == 0) {  // the bucket's first free way: the rest are free too
      ++stats.misses;
      bucket[i] = SampleEntry{pc, 1, hot.pid, static_cast<uint16_t>(event)};
      return;
    }
  }
  // Miss in a full bucket: the mod-4 round-robin counter picks the victim
  // (DCPI §4.2.1).
  ++stats.misses;
  SampleEntry& victim = bucket[hot.evict];
  if (!append(hot, stats, victim)) {
    ++stats.dropped[kDropBothBuffersFull];
    return;
  }
  ++stats.evictions;
  hot.evict = (hot.evict + 1) & (kBucketEntries - 1);
  victim = SampleEntry{pc, 1, hot.pid, static_cast<uint16_t>(event)};
}

// DCPI §4.1.1: a fresh pseudo-random period on every interrupt.
[[gnu::always_inline]] inline uint32_t reload(CpuHot& hot) {
  hot.seed = park_miller_next(hot.seed);
  const uint32_t period = hot.period_base + scale_to_range(hot.seed, hot.period_range);
  const uint64_t reset_value = (uint64_t{1} << PERFMON_CTR0_WIDTH) - period;
  pal::wrperfmon(PERFMON_WRITE, reset_value << PERFMON_CTR0_SHIFT);
  return period;
}

}  // namespace

// One ProfileMe entry appended to the active overflow buffer (an evicted
// or flushing-time aggregate, driver/profileme_table.cpp); one that cannot
// be stored is counted in dropped[kDropProfileMe].
void append_profileme(CpuHot& hot, const SampleEntry& entry) {
  DriverCpuStats& stats = dcpi_driver_stats[hot.cpu];
  if (!append(hot, stats, entry)) ++stats.dropped[kDropProfileMe];
}

// ProfileMe's entries (issue 27): `count` added to (pid, pc, event) in the
// same table and overflow buffers, outside the interrupt statistics
// (hits + misses + flushing samples = counter-0 interrupts); one that
// cannot be stored is counted in dropped[kDropProfileMe].
void record_sum(CpuHot& hot, uint64_t pc, uint16_t pid, uint16_t event, uint32_t count) {
  DriverCpuStats& stats = dcpi_driver_stats[hot.cpu];
  const SampleEntry entry{pc, count, pid, event};
  if (hot.flushing) {
    if (!append(hot, stats, entry)) ++stats.dropped[kDropProfileMe];
    return;
  }
  const uint32_t pid_event = pid | uint32_t{event} << 16;
  SampleEntry* bucket = hot.table + (bucket_of(pc, pid_event) << 2);
  for (uint32_t i = 0; i < kBucketEntries; ++i) {
    if (bucket[i].pc == pc && pid_event_of(bucket[i]) == pid_event &&
        bucket[i].count <= ~0u - count) {
      bucket[i].count += count;
      return;
    }
    if (bucket[i].count == 0) {  // as record(): the first free way
      bucket[i] = entry;
      return;
    }
  }
  SampleEntry& victim = bucket[hot.evict];
  if (!append(hot, stats, victim)) {
    ++stats.dropped[kDropProfileMe];
    return;
  }
  hot.evict = (hot.evict + 1) & (kBucketEntries - 1);
  victim = entry;
}

namespace {

// The C++ form of dcpi_entry_cycles (driver/fast_handler.S); the fast path
// hands it the samples it does not do itself (flushing, full buffer).
void cycles_handler(CpuHot& hot, uint64_t pc, uint64_t, uint64_t, TrapFrame*) {
  record(hot, pc, hot.event);
  reload(hot);
}

// Time multiplexing (DCPI §4.1): the sample belongs to the event that was
// counting; on every kMuxEvery-th interrupt counter 0 moves on to the next
// event of the list and counter 2 to its next. The assembly entry counts
// the other interrupts down and takes the cycles fast path for them (every
// interrupt in C++ cost `--events mux` 1.4 % on one CPU; bench_mux.py);
// while flushing every interrupt comes here.
void mux_handler(CpuHot& hot, uint64_t pc, uint64_t, uint64_t, TrapFrame*) {
  record(hot, pc, hot.event);
  if (hot.value_countdown > 1) {
    --hot.value_countdown;
    reload(hot);
    return;
  }
  hot.value_countdown = static_cast<uint8_t>(kMuxEvery);
  uint32_t next = hot.mux_index + 1u;
  if (next == hot.mux_count) next = 0;
  hot.mux_index = static_cast<uint8_t>(next);
  const uint16_t event = hot.mux_events[next];
  if (event != hot.event) {
    pal::wrperfmon(PERFMON_MUX, mux_code(event));
    set_pid_event(hot, hot.pid, event);
  }
  event_counters_rotate(hot);
  reload(hot);
}

// Seed 001 §2.1.2: the cycles path, then on every k-th interrupt the
// interpreter runs the next N instructions of the interrupted user context
// (driver/value_sampler.cpp), which resumes at the advanced PC. The
// assembly entry counts the other interrupts down; while flushing, every
// interrupt comes here.
void value_handler(CpuHot& hot, uint64_t pc, uint64_t, uint64_t, TrapFrame* frame) {
  record(hot, pc, hot.event);
  reload(hot);
  if (hot.value_countdown > 1) {
    --hot.value_countdown;
    return;
  }
  value_sample(hot, frame);  // also restarts the countdown
}

// For the guest self-tests only (test=period, tests/guest/selftest): the
// cycles path plus the drawn/observed period trace, which checks DCPI
// §4.1.1's uniform period and PALcode's constant delivery latency.
void trace_handler(CpuHot& hot, uint64_t pc, uint64_t, uint64_t observed, TrapFrame*) {
  record(hot, pc, hot.event);
  CpuAux& aux = g_aux[hot.cpu];
  if (aux.traced < kTraceCapacity) {
    aux.trace[aux.traced++] = PeriodObservation{aux.last_period, static_cast<uint32_t>(observed)};
  }
  aux.last_period = reload(hot);
}

// Issue 28 item 2: the cycles path, then the registers and the stack slice
// the host unwinds (driver/chain_sampler.cpp), on every interrupt.
void chain_handler(CpuHot& hot, uint64_t pc, uint64_t, uint64_t, TrapFrame* frame) {
  record(hot, pc, hot.event);
  reload(hot);
  // perfframe switched to the kernel stack: a user sp is PALcode's usp.
  chain_sample(
      hot, frame,
      (frame->ps & PS_USER_MODE) != 0 ? pal::rdusp() : reinterpret_cast<uint64_t>(frame + 1));
}

constexpr Handler kHandlers[] = {cycles_handler, mux_handler, value_handler, trace_handler,
                                 chain_handler};
static_assert(sizeof(kHandlers) / sizeof(kHandlers[0]) == static_cast<uint32_t>(Variant::kCount));
// What CpuHot::handler points at, by Variant (DCPI §4.2 "specialized versions").
constexpr HandlerEntry kEntries[] = {dcpi_entry_cycles, dcpi_entry_mux, dcpi_entry_value,
                                     dcpi_entry_trace, dcpi_entry_chain};
static_assert(sizeof(kEntries) / sizeof(kEntries[0]) == static_cast<uint32_t>(Variant::kCount));

// What PALcode records (wrperfmon PERFMON_PAL_RECORDS): the cycles
// variant's every sample (the table, a KSEG address: bit 63 set), the value
// and mux variants' all but every k-th (bit 63 clear: PALcode counts
// value_countdown down as their entries do), nothing while flushing or for
// the trace and chain variants (0).
uint64_t pal_records_word(const CpuHot& hot) {
  const auto table = reinterpret_cast<uint64_t>(hot.table);
  constexpr uint64_t kEveryOne = uint64_t{1} << 63;
  if (!g_config.pal_records || (table & kEveryOne) == 0) return 0;
  if (hot.handler == dcpi_entry_cycles) return table;
  if (hot.handler == dcpi_entry_value || hot.handler == dcpi_entry_mux) return table & ~kEveryOne;
  return 0;
}

// PALcode's register is this CPU's: only set on hot's own CPU (driver_init
// configures every CPU from the boot CPU; counter_start runs on each).
void hand_pal_the_table(CpuHot& hot) {
  if (pal::whami() == hot.cpu) pal::wrperfmon(PERFMON_PAL_RECORDS, pal_records_word(hot));
}

void select_variant_entry(CpuHot& hot) {
  if (hot.flushing && hot.handler == dcpi_entry_cycles) hot.handler = dcpi_entry_cycles_flushing;
  if (!hot.flushing && hot.handler == dcpi_entry_cycles_flushing) hot.handler = dcpi_entry_cycles;
  if (hot.flushing && hot.handler == dcpi_entry_value) hot.handler = dcpi_entry_value_flushing;
  if (!hot.flushing && hot.handler == dcpi_entry_value_flushing) hot.handler = dcpi_entry_value;
  if (hot.flushing && hot.handler == dcpi_entry_mux) hot.handler = dcpi_entry_mux_flushing;
  if (!hot.flushing && hot.handler == dcpi_entry_mux_flushing) hot.handler = dcpi_entry_mux;
  if (hot.flushing && hot.handler == dcpi_entry_chain) hot.handler = dcpi_entry_chain_flushing;
  if (!hot.flushing && hot.handler == dcpi_entry_chain_flushing) hot.handler = dcpi_entry_chain;
}

}  // namespace

// DCPI §4.2: "we switch dynamically among specialized versions". While the
// table is being flushed the cycles variant's entry is the full-frame one
// (every sample goes to the overflow buffer, in C++), so the assembly fast
// path never has to test the flushing flag. Called on this CPU at IPL 6
// whenever the flag or the variant changes.
//
// The cycles variant's samples are recorded by PALcode itself (wrperfmon
// PERFMON_PAL_RECORDS: the same steps, firmware/sample_table.h, without the
// jump to the handler and back); the fast path in driver/fast_handler.S
// serves the other variants and PALcode's one way out, an eviction into a
// full overflow buffer.
void select_entry(CpuHot& hot) {
  select_variant_entry(hot);
  hand_pal_the_table(hot);
}

void hand_off_active(CpuHot& hot, uint32_t entries) {
  CpuMailbox& mailbox = g_mailbox[hot.cpu];
  mailbox.filled[hot.active] = entries;
  mailbox.full_mask |= 1u << hot.active;
  hot.active ^= 1;
  hot.other_pending = 1;
  hot.cursor = buffer_base(hot, hot.active);
  hot.limit = hot.cursor + kBufferEntries;
  // Tell the daemon (DCPI §4.3.1: "the driver signals a full overflow
  // buffer"); it drains after an IPI round trip, so no barrier here.
  signal_daemon(hot.cpu, false);
}

void signal_daemon(uint32_t from_cpu, bool ipi_self) {
  __atomic_store_n(&g_daemon_signal, 1, __ATOMIC_RELEASE);
  if (ipi_self || g_daemon_cpu != from_cpu) pal::wripir(g_daemon_cpu);
}

bool take_daemon_signal() { return __atomic_exchange_n(&g_daemon_signal, 0, __ATOMIC_ACQ_REL); }

uint64_t mux_code(uint16_t event) {
  return event == static_cast<uint16_t>(Event::kIssues) ? PERFMON_MUX_CTR0_ISSUES : 0;
}

uint32_t start_seed(uint32_t builtin) {
  // golden-ratio steps: nearby run seeds far apart
  return sanitize_seed(builtin + g_config.seed * 0x9e3779b9u);
}

void reseed(CpuHot& hot) {
  hot.seed = start_seed(kPeriodSeed + 977 * hot.cpu);
  event_counters_reseed(hot);
  profileme_reseed(hot);
}

void apply_config(CpuHot& hot) {
  hot.period_base = g_config.period_base;
  hot.period_range = g_config.period_range;
  hot.mux_count = static_cast<uint8_t>(g_config.mux_count);
  for (uint32_t i = 0; i < kMaxMuxEvents; ++i) hot.mux_events[i] = g_config.mux_events[i];
  hot.mux_index = 0;
  const uint16_t event = hot.mux_events[0];
  if (event != hot.event) pal::wrperfmon(PERFMON_MUX, mux_code(event));
  set_pid_event(hot, hot.pid, event);
  value_apply(hot.cpu);
  chain_apply(hot.cpu);
  hot.value_countdown = static_cast<uint8_t>(g_config.mux ? kMuxEvery : value_every(hot.cpu));
  event_counters_apply(hot);
  const Variant variant = g_config.mux ? Variant::kMux : g_config.base_variant;
  hot.handler = kEntries[static_cast<uint32_t>(variant)];
  select_entry(hot);
}

// Counter 1 or 2 overflowed (the ev5 machine; PALcode's classic delivery at
// IPL 6, so atomic with counter 0's handler): one sample of the event each
// counts at the interrupted PC, the instruction the event belongs to (a
// load that misses can overflow both: two samples there).
void event_counter_interrupt(uint64_t overflowed, uint64_t pc) {
  if (counting_overflow(overflowed)) return;  // counting mode: no sample (event_counting.cpp)
  CpuHot& hot = cpu_hot(pal::whami());
  const CpuAux& aux = g_aux[hot.cpu];
  constexpr uint64_t kOverflowBit[kEventCounters] = {EV5_OVERFLOW_CTR1, EV5_OVERFLOW_CTR2};
  for (uint32_t k = 0; k < kEventCounters; ++k) {
    const EventCounterState& counter = aux.counter[k];
    if (!(overflowed & kOverflowBit[k]) || !counter.count) continue;
    record(hot, pc, counter.events[counter.index]);
    event_counters_reload(hot, k);
  }
  if (overflowed & EV5_OVERFLOW_PROFILEME) profileme_interrupt(hot);
}

void counter_start(CpuHot& hot) {
  // PALcode delivers this line in a1 with every overflow (palcode/README.md).
  pal::wrperfmon(PERFMON_SET_CONTEXT, reinterpret_cast<uint64_t>(&hot));
  hand_pal_the_table(hot);
  g_aux[hot.cpu].last_period = reload(hot);  // with the counter off: just loads it
  pal::wrperfmon(PERFMON_ENABLE, 1);
  profileme_start(hot);
}

}  // namespace dcpi::driver

// The counter interrupt for the C++ variants, with the full TrapFrame
// (kernel/entry.S entry_counter_full). RPCC at entry and exit: under icount
// it counts instructions exactly (handler_cycles).
extern "C" void dcpi_counter_interrupt(uint64_t variant, dcpi::driver::CpuHot* hot,
                                       uint64_t observed, dcpi::TrapFrame* frame) {
  using namespace dcpi::driver;
  const uint64_t start = dcpi::pal::rpcc();
  kHandlers[variant](*hot, frame->pc, frame->ps, observed, frame);
  dcpi::DriverCpuStats& stats = dcpi_driver_stats[hot->cpu];
  // RPCC: 32 bits. Under round-robin icount a vCPU can read the shared clock
  // a little behind its last read (the ev5 plugin's on_slept); a "negative"
  // time would wrap to ~2^32 and add seconds (seen: 4.3 G cycles on 2 CPUs
  // of an ev5 run). It counts as nothing.
  const auto spent = static_cast<uint32_t>(dcpi::pal::rpcc() - start);
  if (spent < (1u << 31)) stats.handler_cycles += spent;
}

namespace dcpi::driver {

void sampler_context_switch(uint32_t pid) {
  CpuHot& hot = cpu_hot(pal::whami());
  set_pid_event(hot, static_cast<uint16_t>(pid), hot.event);
}

uint64_t sampler_period_trace(uint32_t cpu, const PeriodObservation** trace) {
  *trace = g_aux[cpu].trace;
  return g_aux[cpu].traced;
}

Variant variant_of(uint32_t cpu) {
  for (uint32_t v = 0; v < static_cast<uint32_t>(Variant::kCount); ++v)
    if (cpu_hot(cpu).handler == kEntries[v]) return static_cast<Variant>(v);
  if (cpu_hot(cpu).handler == dcpi_entry_cycles_flushing) return Variant::kCycles;
  if (cpu_hot(cpu).handler == dcpi_entry_value_flushing) return Variant::kValue;
  if (cpu_hot(cpu).handler == dcpi_entry_mux_flushing) return Variant::kMux;
  if (cpu_hot(cpu).handler == dcpi_entry_chain_flushing) return Variant::kChain;
  return Variant::kCount;
}

}  // namespace dcpi::driver
