// IPI-synchronized access to a CPU's table and overflow buffers (DCPI §4.2.3).
//
// Only the owning CPU ever writes its CpuHot line and CpuMailbox: its counter
// handler (IPL 6) and its IPI handler, which performs the daemon's requests.
// The IPI arrives at IPL 5 and the counter interrupt at IPL 6, so on the
// interface our PALcode documents a counter interrupt could land in the
// middle of a request (on QEMU it cannot: the clock interrupt that carries
// the counter is only taken at IPL <= 4, but we do not rely on that). A
// request updates several words at once (flag, active buffer, cursor,
// limit, pending bit), and the handler must see either all or none of it, so
// the IPI handler raises the IPL to 6 for the request — as DCPI's did: "The
// IPI handler raises its priority level to ensure that it executes
// atomically with respect to the performance counter interrupts". A lone
// flag store would be atomic by itself; the buffer hand-off is not.
//
// Ordering: the IPI handler executes `mb` before acknowledging, and the
// requester executes `mb` after seeing the acknowledgement, so everything
// the handler stored before the request (buffer contents, table entries) is
// visible to the daemon, and the daemon's stores (zeroed table) are visible
// to the handler after the next request. The handler itself never needs a
// barrier.
#include "driver/driver.h"
#include "driver/internal.h"
#include "driver/kernel_services.h"
#include "driver/profileme_table.h"
#include "firmware/park_miller.h"

namespace dcpi::driver {

GlobalConfig g_config = {kDefaultPeriodBase,
                         kDefaultPeriodRange,
                         event_bit(Event::kCycles),
                         0,
                         Variant::kCycles,
                         1,  // PALcode records the cycles variant's samples
                         1,
                         {0, 0, 0, 0},
                         {0, 0},
                         {},
                         0,   // kill bits: every mode
                         0};  // seed: the built-in one
alignas(64) CpuMailbox g_mailbox[kMaxCpus];
alignas(64) CpuRequest g_request[kMaxCpus];
uint32_t g_daemon_cpu = 0;

namespace {

constexpr uint64_t kAckTimeoutCycles = 200'000'000;  // 0.8 s of guest time

// Performs `ops` on this CPU's structures. Caller: this CPU at IPL 6.
void perform(CpuHot& hot, uint32_t ops, uint32_t release_mask) {
  CpuMailbox& mailbox = g_mailbox[hot.cpu];
  if (ops & kOpRelease) {
    for (uint32_t b = 0; b < 2; ++b) {
      if (!(release_mask & (1u << b)) || !(mailbox.full_mask & (1u << b))) continue;
      mailbox.full_mask &= ~(1u << b);
      mailbox.filled[b] = 0;
      if (b != hot.active) hot.other_pending = 0;
    }
  }
  if (ops & kOpFlushEnd) hot.flushing = 0;
  if (ops & kOpSwap) {
    const SampleEntry* base = buffer_base(hot, hot.active);
    mailbox.swapped = 0;
    if (!hot.other_pending && hot.cursor != base) {
      hand_off_active(hot, static_cast<uint32_t>(hot.cursor - base));
      mailbox.swapped = 1;
    }
  }
  if (ops & kOpFlushBegin) hot.flushing = 1;
  select_entry(hot);
  if (ops & kOpReseed) reseed(hot);
  if (ops & kOpConfigure) apply_config(hot);
  if (ops & kOpStop) {
    pal::wrperfmon(PERFMON_DISABLE, 1);
    profileme_stop(hot);
  }
  if (ops & kOpStart) counter_start(hot);
}

}  // namespace

void sampler_ipi() {
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  const CpuRequest& request = g_request[cpu];
  CpuMailbox& mailbox = g_mailbox[cpu];
  const uint64_t sequence = __atomic_load_n(&request.sequence, __ATOMIC_ACQUIRE);
  if (sequence == mailbox.ack_sequence) return;  // an IPI for someone else
  const uint64_t ipl = pal::swpipl(IPL_PERFCTR);
  perform(cpu_hot(cpu), request.ops, request.release_mask);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);  // mb: our stores before the ack
  __atomic_store_n(&mailbox.ack_sequence, sequence, __ATOMIC_RELEASE);
  pal::wripir(request.reply_to);
  pal::swpipl(ipl);
}

// Requester side (the daemon, under its lock, at IPL < 5). Returns false on
// a timeout (reported; the caller skips that CPU).
bool request(uint32_t cpu, uint32_t ops, uint32_t release_mask) {
  if (cpu == pal::whami()) {
    const uint64_t ipl = pal::swpipl(IPL_PERFCTR);
    perform(cpu_hot(cpu), ops, release_mask);
    pal::swpipl(ipl);
    return true;
  }
  CpuRequest& r = g_request[cpu];
  r.ops = ops;
  r.release_mask = release_mask;
  r.reply_to = pal::whami();
  const uint64_t sequence = r.sequence + 1;
  __atomic_store_n(&r.sequence, sequence, __ATOMIC_SEQ_CST);
  // Wait with the reply IPI masked, halted in wtint: QEMU runs the vCPUs
  // round-robin, so spinning would keep the target from running for a whole
  // time slice. WTINT returns as soon as the reply is pending (even masked),
  // and the ack is stored before the reply is sent, so no wake-up is lost.
  const uint64_t ipl = pal::swpipl(IPL_IPI);
  pal::wripir(cpu);
  const uint64_t start = pal::rpcc();
  bool answered = true;
  while (__atomic_load_n(&g_mailbox[cpu].ack_sequence, __ATOMIC_ACQUIRE) != sequence) {
    if (static_cast<uint32_t>(pal::rpcc() - start) > kAckTimeoutCycles) {  // 32-bit RPCC
      answered = false;
      break;
    }
    pal::wtint();
  }
  pal::swpipl(ipl);
  if (!answered) {
    kernel::kprintf("dcpi-driver: cpu %u did not answer request %lu\n", cpu, sequence);
    return false;
  }
  __atomic_thread_fence(__ATOMIC_SEQ_CST);  // mb: its stores before our reads
  return true;
}

void sampler_init_cpu(uint32_t cpu, uint32_t seed, const SamplerConfig& config) {
  CpuHot& hot = cpu_hot(cpu);
  g_config.period_base = config.period_base;
  g_config.period_range = config.period_range;
  g_config.base_variant = config.variant;
  g_config.pal_records = config.pal_records;
  SampleEntry* memory = dcpi_sample_memory[cpu];
  for (uint32_t i = 0; i < kTableEntries; ++i) memory[i] = SampleEntry{};
  PmEntry* pm = pm_table(cpu);
  for (uint32_t i = 0; i < kPmEntries; ++i) pm[i] = PmEntry{};
  hot.table = memory;
  hot.seed = sanitize_seed(seed);
  hot.flushing = 0;
  hot.active = 0;
  hot.other_pending = 0;
  hot.evict = 0;
  hot.cpu = static_cast<uint8_t>(cpu);
  hot.cursor = buffer_base(hot, 0);
  hot.limit = hot.cursor + kBufferEntries;
  g_mailbox[cpu].full_mask = 0;
  g_mailbox[cpu].filled[0] = g_mailbox[cpu].filled[1] = 0;
  apply_config(hot);
  dcpi_driver_stats[cpu] = DriverCpuStats{};
  dcpi_driver_stats[cpu].cpu = cpu;
  CpuAux& aux = g_aux[cpu];
  aux.traced = 0;
  aux.initialised = 1;
}

void sampler_start() {
  CpuHot& hot = cpu_hot(pal::whami());
  pal::wrperfmon(PERFMON_DISABLE, 1);
  counter_start(hot);
}

void sampler_stop() { pal::wrperfmon(PERFMON_DISABLE, 1); }

Census census(uint32_t cpu) {
  Census c{};
  const CpuHot& hot = cpu_hot(cpu);
  if (hot.table == nullptr) return c;
  for (uint32_t i = 0; i < kTableEntries; ++i) {
    c.table_samples += hot.table[i].count;
    c.table_entries += hot.table[i].count != 0;
    const bool after_free_way = i % kBucketEntries != 0 && hot.table[i - 1].count == 0;
    if (after_free_way && hot.table[i].count != 0) ++c.gapped_buckets;
  }
  auto add_buffer = [&](const SampleEntry* base, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) c.buffer_samples += base[i].count;
    c.buffer_entries += n;
  };
  const CpuMailbox& mailbox = g_mailbox[cpu];
  for (uint32_t b = 0; b < 2; ++b)
    if (mailbox.full_mask & (1u << b)) add_buffer(buffer_base(hot, b), mailbox.filled[b]);
  const SampleEntry* active = buffer_base(hot, hot.active);
  add_buffer(active, static_cast<uint64_t>(hot.cursor - active));
  return c;
}

}  // namespace dcpi::driver
