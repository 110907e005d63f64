// Guest self-tests of the DCPI driver (driver/): they run through the real
// handler, hash table, overflow buffers, flush and daemon, and print
// "DCPI-TEST ..." lines that tests/guest and tests/bench assert on. The
// guest never divides (no __divqu): ratios are computed on the host.
#include "tests/guest/selftest/driver_selftest.h"

#include "driver/driver.h"
#include "driver/percpu.h"
#include "firmware/control_block.h"
#include "firmware/record_checksum.h"
#include "kernel/console.h"
#include "kernel/palcalls.h"
#include "kernel/smp.h"
#include "tests/guest/selftest/bench_mix.h"

extern "C" {
void spread_loop(uint64_t iterations);
void callpal_loop(uint64_t iterations);
void ipl_loop(uint64_t iterations);
extern const uint32_t spread_loop_body[], spread_loop_end[];
extern const uint32_t callpal_loop_body[], callpal_loop_end[];
extern const uint32_t ipl_loop_body[], ipl_loop_end[];
}

namespace kernel::driver_selftest {
namespace {

namespace drv = dcpi::driver;

bool equals(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

uint32_t this_cpu() { return static_cast<uint32_t>(pal::whami()); }

int64_t control(dcpi::ControlCommand command, uint64_t a0 = 0, uint64_t a1 = 0) {
  const uint64_t args[3] = {a0, a1, 0};
  return drv::control_from_user(static_cast<uint32_t>(command), args);
}

// Runs `loop` on this CPU with the given variant until `samples` interrupts.
void sample_loop(void (*loop)(uint64_t), uint64_t samples, drv::Variant variant) {
  const uint32_t cpu = this_cpu();
  drv::SamplerConfig config;
  config.variant = variant;
  drv::sampler_init_cpu(cpu, 12345 + cpu, config);
  drv::sampler_start();
  while (drv::interrupts_of(cpu) < samples) loop(100'000);
  drv::sampler_stop();
}

// Samples at `pc` in this CPU's table and overflow buffers (after a stop).
uint64_t samples_at(uint32_t cpu, uint64_t pc) {
  const dcpi::SampleEntry* memory = dcpi_sample_memory[cpu];
  uint64_t n = 0;
  for (uint32_t i = 0; i < drv::kCpuEntries; ++i) n += memory[i].pc == pc ? memory[i].count : 0;
  return n;
}

// Per-instruction histogram of [begin, end) from the driver's hash table.
void print_histogram(const char* name, const uint32_t* begin, const uint32_t* end) {
  const uint32_t cpu = this_cpu();
  const drv::Census census = drv::census(cpu);
  uint64_t inside = 0;
  for (const uint32_t* insn = begin; insn < end; ++insn) {
    const uint64_t hits = samples_at(cpu, reinterpret_cast<uint64_t>(insn));
    inside += hits;
    kprintf("DCPI-TEST %s offset=%lu samples=%lu\n", name, (insn - begin) * 4ul, hits);
  }
  const uint64_t total = drv::interrupts_of(cpu);
  kprintf("DCPI-TEST %s total=%lu outside=%lu in_driver=%lu\n", name, total, total - inside,
          census.table_samples + census.buffer_samples);
}

void test_period(uint64_t samples) {
  sample_loop(spread_loop, samples, drv::Variant::kTrace);
  const drv::PeriodObservation* trace;
  const uint64_t n = drv::sampler_period_trace(this_cpu(), &trace);
  for (uint64_t i = 0; i < n; ++i)
    kprintf("DCPI-TEST period drawn=%u observed=%u\n", trace[i].drawn, trace[i].observed);
  kprintf("DCPI-TEST period count=%lu\n", n);
}

// ---------------------------------------------------------------------------
// Conservation: 4 CPUs, short periods, frequent flushes, PID churn so that
// the table misses, evicts, switches buffers and (when the daemon is late)
// drops. Every delivered interrupt must be accounted for exactly.

uint64_t stop_workers;
uint64_t workers_done[smp::kMaxCpus];
uint64_t worker_iterations[smp::kMaxCpus];

void churn_worker() {
  const uint32_t cpu = this_cpu();
  uint64_t k = 0;
  while (!__atomic_load_n(&stop_workers, __ATOMIC_ACQUIRE)) {
    drv::sampler_context_switch(static_cast<uint32_t>(1 + (k & 0xfff)));
    spread_loop(100);
    ++k;
  }
  drv::sampler_context_switch(0);
  worker_iterations[cpu] = k;
  __atomic_store_n(&workers_done[cpu], 1, __ATOMIC_RELEASE);
}

struct Totals {
  uint64_t interrupts, table, buffers, to_daemon, dropped;
};

Totals account(const char* when) {
  Totals t{};
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    if (!smp::cpus[cpu].online) continue;
    const dcpi::DriverCpuStats s = drv::read_stats(cpu);
    const drv::Census c = drv::census(cpu);
    uint64_t dropped = 0;
    for (uint64_t d : s.dropped) dropped += d;
    kprintf(
        "DCPI-TEST conservation %s cpu=%u interrupts=%lu table=%lu buffers=%lu to_daemon=%lu "
        "dropped=%lu hits=%lu misses=%lu evictions=%lu switches=%lu flushes=%lu entries=%lu "
        "table_entries=%lu gapped_buckets=%lu\n",
        when, cpu, s.interrupts, c.table_samples, c.buffer_samples, s.samples_to_daemon, dropped,
        s.hits, s.misses, s.evictions, s.overflow_switches, s.flushes, s.entries_to_daemon,
        c.table_entries, c.gapped_buckets);
    t.interrupts += s.interrupts;
    t.table += c.table_samples;
    t.buffers += c.buffer_samples;
    t.to_daemon += s.samples_to_daemon;
    t.dropped += dropped;
  }
  kprintf(
      "DCPI-TEST conservation %s total interrupts=%lu table=%lu buffers=%lu to_daemon=%lu "
      "dropped=%lu\n",
      when, t.interrupts, t.table, t.buffers, t.to_daemon, t.dropped);
  return t;
}

// Walks the ring from tail to head: magic, CRC, consecutive sequences.
void check_ring() {
  const dcpi::TransferRing& ring = dcpi_transfer_ring;
  uint64_t position = ring.header.tail, records = 0, bad = 0, samples = 0, gaps = 0;
  uint64_t expected = ~uint64_t{0};
  while (position < ring.header.head) {
    const auto* h = reinterpret_cast<const dcpi::RecordHeader*>(
        ring.data + (position & (dcpi::kTransferRingBytes - 1)));
    dcpi::RecordHeader copy = *h;
    copy.checksum = 0;
    const uint32_t sum = dcpi::record_checksum(copy, h + 1, h->payload_bytes);
    if (h->magic != dcpi::kRecordMagic || sum != h->checksum) ++bad;
    if (expected != ~uint64_t{0} && h->sequence != expected) gaps += h->sequence - expected;
    expected = h->sequence + 1;
    if (h->type == static_cast<uint16_t>(dcpi::RecordType::kSamples)) {
      const auto* payload = reinterpret_cast<const dcpi::SamplesPayload*>(h + 1);
      const auto* entries = reinterpret_cast<const dcpi::SampleEntry*>(payload + 1);
      for (uint32_t i = 0; i < payload->count; ++i) samples += entries[i].count;
    }
    ++records;
    position += dcpi::record_span(h->payload_bytes);
  }
  const drv::RingTotals totals = drv::ring_totals();
  kprintf(
      "DCPI-TEST ring records=%lu bad=%lu gaps=%lu samples_in_ring=%lu written=%lu "
      "samples_written=%lu records_dropped=%lu samples_dropped=%lu\n",
      records, bad, gaps, samples, totals.records_written, totals.samples_written,
      totals.records_dropped, totals.samples_dropped);
}

void test_conservation(uint64_t guest_instructions) {
  if (control(dcpi::ControlCommand::kSetPeriod, 1024, 1024) != dcpi::kControlOk)
    kprintf("DCPI-TEST conservation set-period failed\n");
  // 300 ms of guest time at 250 MHz: flushes this far apart leave the
  // churning CPUs' tables full long enough that their evictions fill the
  // 8 K-entry overflow buffers and switch (the path under test: ~20 a CPU
  // in 12 flushes). At 3 ms a switch needed an odd late flush (2 in a run),
  // and a faster daemon (transfer format 2's checksum) left none.
  drv::set_flush_interval(75'000'000);
  control(dcpi::ControlCommand::kStart);
  const uint64_t start = pal::rpcc();
  smp::run_on_secondaries(churn_worker);
  uint64_t steps = 0;
  while (pal::rpcc() - start < guest_instructions) {
    drv::daemon_step();
    spread_loop(1000);
    ++steps;
  }
  // Stop every counter first, then the workers; nothing is in flight after.
  drv::stop_all();
  __atomic_store_n(&stop_workers, 1, __ATOMIC_RELEASE);
  for (uint32_t cpu = 1; cpu < smp::kMaxCpus; ++cpu)
    while (smp::cpus[cpu].online && !__atomic_load_n(&workers_done[cpu], __ATOMIC_ACQUIRE)) {
    }
  const uint64_t elapsed = pal::rpcc() - start;
  kprintf("DCPI-TEST conservation elapsed_cycles=%lu daemon_steps=%lu\n", elapsed, steps);
  for (uint32_t cpu = 1; cpu < smp::kMaxCpus; ++cpu)
    kprintf("DCPI-TEST conservation worker cpu=%u iterations=%lu\n", cpu, worker_iterations[cpu]);
  account("stopped");
  drv::flush_all();
  account("flushed");
  check_ring();
}

// ---------------------------------------------------------------------------
// Control path: refusals and the degenerate mux (only cycles is countable).

void test_control() {
  using dcpi::ControlCommand;
  const uint64_t imiss = dcpi::event_bit(dcpi::Event::kIMiss);
  const uint64_t cycles = dcpi::event_bit(dcpi::Event::kCycles);
  kprintf("DCPI-TEST control events=imiss status=%ld\n",
          control(ControlCommand::kSetEvents, imiss));
  kprintf("DCPI-TEST control events=cycles+imiss mux=1 status=%ld\n",
          control(ControlCommand::kSetEvents, cycles | imiss, 1));
  kprintf("DCPI-TEST control period=100 status=%ld\n", control(ControlCommand::kSetPeriod, 100, 0));
  kprintf("DCPI-TEST control period=65000+4096 status=%ld\n",
          control(ControlCommand::kSetPeriod, 65000, 4096));
  kprintf("DCPI-TEST control command=99 status=%ld\n", control(static_cast<ControlCommand>(99)));
  kprintf("DCPI-TEST control events=cycles mux=1 status=%ld\n",
          control(ControlCommand::kSetEvents, cycles, 1));
  // Mux with cycles only: the mux variant runs and rotates among one event.
  control(ControlCommand::kSetPeriod, 4096, 1024);
  control(ControlCommand::kStart);
  const uint32_t cpu = this_cpu();
  while (drv::interrupts_of(cpu) < 500) spread_loop(1000);
  control(ControlCommand::kStop);
  const dcpi::DriverCpuStats s = drv::read_stats(cpu);
  kprintf("DCPI-TEST control mux interrupts=%lu to_daemon=%lu variant=%u event=%u\n", s.interrupts,
          s.samples_to_daemon, static_cast<uint32_t>(drv::variant_of(cpu)),
          drv::cpu_hot(cpu).event);
  // The same through the control block, as the host would do it.
  dcpi::ControlBlock& block = dcpi_control;
  block.command = static_cast<uint32_t>(ControlCommand::kSetEvents);
  block.args[0] = imiss;
  block.args[1] = 0;
  block.args[2] = 0;  // every mode
  __atomic_store_n(&block.request_sequence, block.request_sequence + 1, __ATOMIC_RELEASE);
  drv::daemon_step();
  kprintf("DCPI-TEST control block done=%lu requested=%lu status=%ld\n", block.done_sequence,
          block.request_sequence, block.status);
}

// ---------------------------------------------------------------------------
// Benchmark (tests/bench/bench_driver.py): the same work with the counter off
// and on; under icount the difference in RPCC cycles is the exact number of
// extra instructions sampling cost.

uint64_t bench_done[smp::kMaxCpus];
uint64_t bench_iterations;
uint64_t bench_profiled;

void mix_worker() {
  const uint32_t cpu = this_cpu();
  if (bench_profiled) drv::sampler_start();
  uint64_t sink = cpu;
  for (uint64_t i = 0; i < bench_iterations; ++i) sink = bench_mix::iteration(cpu, sink);
  drv::sampler_stop();
  __atomic_store_n(&bench_done[cpu], 1, __ATOMIC_RELEASE);
  if (cpu != 0) pal::wripir(0);  // wake the boot CPU waiting in wtint
}

// The mix on every online CPU; returns elapsed cycles until all finished.
uint64_t run_mix_everywhere(bool profiled) {
  bench_profiled = profiled;
  for (uint64_t& d : bench_done) d = 0;
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu)
    if (smp::cpus[cpu].online) drv::sampler_init_cpu(cpu, 777 + cpu, drv::SamplerConfig{});
  const uint64_t start = pal::rpcc();
  smp::run_on_secondaries(mix_worker);
  mix_worker();
  // Halted, not spinning, while the others finish: the virtual clock then
  // advances only by instructions that the workload (and sampling) executed.
  const uint64_t ipl = pal::swpipl(IPL_IPI);
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu)
    while (smp::cpus[cpu].online && !__atomic_load_n(&bench_done[cpu], __ATOMIC_ACQUIRE))
      pal::wtint();
  const uint64_t elapsed = pal::rpcc() - start;
  pal::swpipl(ipl);
  return elapsed;
}

// A synthetic loop on this CPU: spread_loop chunks, optionally with a new PID
// before each chunk (every sample then misses).
void synthetic(uint64_t chunks, bool churn) {
  for (uint64_t k = 0; k < chunks; ++k) {
    if (churn) drv::sampler_context_switch(static_cast<uint32_t>(1 + (k & 0x7fff)));
    spread_loop(1000);
  }
  drv::sampler_context_switch(0);
}

void bench_synthetic(const char* name, uint64_t chunks, bool churn, bool pal_records) {
  const uint32_t cpu = this_cpu();
  drv::SamplerConfig config{};
  config.pal_records = pal_records;
  drv::sampler_init_cpu(cpu, 99, config);
  uint64_t start = pal::rpcc();
  synthetic(chunks, churn);
  const uint64_t off = pal::rpcc() - start;
  drv::sampler_init_cpu(cpu, 99, config);
  start = pal::rpcc();
  drv::sampler_start();
  synthetic(chunks, churn);
  drv::sampler_stop();
  const uint64_t on = pal::rpcc() - start;
  const dcpi::DriverCpuStats s = drv::read_stats(cpu);
  kprintf(
      "DCPI-TEST bench synthetic=%s off=%lu on=%lu interrupts=%lu hits=%lu misses=%lu "
      "evictions=%lu handler_cycles=%lu\n",
      name, off, on, s.interrupts, s.hits, s.misses, s.evictions, s.handler_cycles);
}

void test_bench(uint64_t iterations) {
  const uint32_t cpus = static_cast<uint32_t>(smp::online_count());
  // Hit and miss paths, measured on one CPU with the others idle. A tick
  // more or less in the profiled run moves the mean by ~580 instructions
  // over the whole run: 50 chunks (~6 interrupts) an iteration keep that
  // under 0.4 an interrupt at 300 iterations.
  const uint64_t chunks = 50 * iterations;
  bench_synthetic("hit", chunks, false, true);
  bench_synthetic("miss", chunks, true, true);
  // The same samples recorded by the handler's assembly fast path (the
  // other variants' way) instead of PALcode.
  bench_synthetic("hit_handler", chunks, false, false);
  bench_synthetic("miss_handler", chunks, true, false);
  // The kernel mix on every CPU, unprofiled then profiled (default period).
  bench_iterations = iterations;
  const uint64_t off = run_mix_everywhere(false);
  const uint64_t on = run_mix_everywhere(true);
  drv::flush_all();
  dcpi::DriverCpuStats total{};
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    if (!smp::cpus[cpu].online) continue;
    const dcpi::DriverCpuStats s = drv::read_stats(cpu);
    total.interrupts += s.interrupts;
    total.hits += s.hits;
    total.misses += s.misses;
    total.evictions += s.evictions;
    total.handler_cycles += s.handler_cycles;
    total.samples_to_daemon += s.samples_to_daemon;
    total.entries_to_daemon += s.entries_to_daemon;
    total.overflow_switches += s.overflow_switches;
    for (uint32_t d = 0; d < dcpi::kDropReasons; ++d) total.dropped[d] += s.dropped[d];
  }
  kprintf(
      "DCPI-TEST bench mix cpus=%u iterations=%lu off=%lu on=%lu interrupts=%lu hits=%lu "
      "misses=%lu evictions=%lu handler_cycles=%lu samples_to_daemon=%lu "
      "entries_to_daemon=%lu switches=%lu dropped=%lu\n",
      cpus, iterations, off, on, total.interrupts, total.hits, total.misses, total.evictions,
      total.handler_cycles, total.samples_to_daemon, total.entries_to_daemon,
      total.overflow_switches, total.dropped[dcpi::kDropBothBuffersFull]);
}

// ---------------------------------------------------------------------------
// Counter semantics on several busy CPUs (docs/qemu-deviations.md): counter 0
// rides on the virtual-clock ALARM, and under round-robin icount the virtual
// clock advances with every CPU's instructions. Each CPU runs spread_loop
// chunks (8 instructions an iteration, 1000 iterations a chunk) with the
// counter on for the same stretch of virtual time and reports its chunks
// (its own instructions), the RPCC (virtual time) elapsed and its
// interrupts; the host compares both per interrupt with the period.

uint64_t mp_duration;
uint64_t mp_arrived;
uint64_t mp_chunks[smp::kMaxCpus];
uint64_t mp_elapsed[smp::kMaxCpus];

void mp_worker() {
  const uint32_t cpu = this_cpu();
  // Every CPU busy over the same stretch of virtual time: start together.
  __atomic_add_fetch(&mp_arrived, 1, __ATOMIC_ACQ_REL);
  while (__atomic_load_n(&mp_arrived, __ATOMIC_ACQUIRE) != smp::online_count()) {
  }
  drv::sampler_start();
  const uint64_t start = pal::rpcc();
  uint64_t chunks = 0;
  while (pal::rpcc() - start < mp_duration) {
    spread_loop(1000);
    ++chunks;
  }
  mp_elapsed[cpu] = pal::rpcc() - start;
  drv::sampler_stop();
  mp_chunks[cpu] = chunks;
  __atomic_store_n(&bench_done[cpu], 1, __ATOMIC_RELEASE);
  if (cpu != 0) pal::wripir(0);
}

// `millions`: virtual cycles to run, in units of 2^20.
void test_mpcounter(uint64_t millions) {
  mp_duration = millions << 20;
  mp_arrived = 0;
  for (uint64_t& d : bench_done) d = 0;
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu)
    if (smp::cpus[cpu].online) drv::sampler_init_cpu(cpu, 4242 + cpu, drv::SamplerConfig{});
  smp::run_on_secondaries(mp_worker);
  mp_worker();
  const uint64_t ipl = pal::swpipl(IPL_IPI);
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu)
    while (smp::cpus[cpu].online && !__atomic_load_n(&bench_done[cpu], __ATOMIC_ACQUIRE))
      pal::wtint();
  pal::swpipl(ipl);
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    if (!smp::cpus[cpu].online) continue;
    const dcpi::DriverCpuStats s = drv::read_stats(cpu);
    // Own instructions: 8003 a chunk (spread_loop(1000) and its call) plus
    // the loop's rpcc test (~5); the handler's are in `handler`.
    kprintf("DCPI-TEST mpcounter cpu=%u chunks=%lu elapsed=%lu interrupts=%lu handler=%lu\n", cpu,
            mp_chunks[cpu], mp_elapsed[cpu], s.interrupts, s.handler_cycles);
  }
}

}  // namespace

bool run(const char* name, uint64_t samples) {
  if (equals(name, "period")) {
    test_period(samples);
  } else if (equals(name, "spread")) {
    sample_loop(spread_loop, samples, drv::Variant::kCycles);
    print_histogram("spread", spread_loop_body, spread_loop_end);
  } else if (equals(name, "blindspot")) {
    sample_loop(callpal_loop, samples, drv::Variant::kCycles);
    print_histogram("blindspot", callpal_loop_body, callpal_loop_end);
  } else if (equals(name, "iplspot")) {
    sample_loop(ipl_loop, samples, drv::Variant::kCycles);
    print_histogram("iplspot", ipl_loop_body, ipl_loop_end);
  } else if (equals(name, "conservation")) {
    test_conservation(samples);
  } else if (equals(name, "control")) {
    test_control();
  } else if (equals(name, "mpcounter")) {
    test_mpcounter(samples);
  } else if (equals(name, "bench")) {
    test_bench(samples);
  } else {
    return false;
  }
  return true;
}

}  // namespace kernel::driver_selftest
