#include "kernel/profiler.h"

#include "driver/driver.h"
#include "firmware/profileme.h"
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/irq_lock.h"
#include "kernel/palcalls.h"
#include "kernel/process.h"
#include "kernel/scheduler.h"
#include "kernel/smp.h"

// Guest cycles since boot (= instructions of all CPUs together under
// icount), refreshed every tick, for the host's progress display.
extern "C" {
volatile uint64_t dcpi_guest_cycles = 0;
}

namespace kernel::profiler {

namespace {
uint32_t value_length_ = 0;  // value sampling configured at boot (values=N/k)
}  // namespace
namespace {

// The daemon looks at the control block and the periodic flush at least this
// often (scheduler ticks of 10 ms of guest time); full overflow buffers wake
// it at once through the handler's IPI.
constexpr uint64_t kWakeEveryTicks = 5;

Process* daemon_thread = nullptr;  // guarded by sched::lock
bool wake_pending = false;
bool running = false;
uint64_t ticks = 0;

void daemon_main(void*) {
  for (;;) {
    dcpi::driver::daemon_step();
    IrqLockGuard guard(sched::lock);
    if (!wake_pending) {
      Process* self = current();
      daemon_thread = self;
      self->state = ProcessState::kBlocked;
      sched::schedule_locked();
    }
    wake_pending = false;
  }
}

}  // namespace

void configure(const Options& options) {
  if (options.seed != 0) {
    const uint64_t args[3] = {options.seed, 0, 0};
    const int64_t status = dcpi::driver::control_from_user(
        static_cast<uint32_t>(dcpi::ControlCommand::kSetSeed), args);
    if (status != dcpi::kControlOk)
      kprintf("dcpi-kernel: seed %u refused (status %ld)\n", options.seed, status);
  }
  if (options.period_base != 0) {
    const uint64_t args[3] = {options.period_base, options.period_range, 0};
    const int64_t status = dcpi::driver::control_from_user(
        static_cast<uint32_t>(dcpi::ControlCommand::kSetPeriod), args);
    if (status != dcpi::kControlOk)
      kprintf("dcpi-kernel: period %u+%u refused (status %ld); keeping the default\n",
              options.period_base, options.period_range, status);
  }
  if (options.events != 0) {
    const uint64_t args[3] = {options.events, options.events_mux ? 1u : 0u, options.event_kill};
    const int64_t status = dcpi::driver::control_from_user(
        static_cast<uint32_t>(dcpi::ControlCommand::kSetEvents), args);
    if (status != dcpi::kControlOk)
      kprintf("dcpi-kernel: events %#x (kill bits %#x) refused (status %ld); sampling cycles\n",
              options.events, options.event_kill, status);
  }
  if (options.count_events != 0) {  // dcpi stat (issue 26 item 4)
    const int64_t status = dcpi::driver::counting_configure(options.count_events);
    if (status == dcpi::kControlOk)
      kprintf("dcpi-kernel: counting events 0x%x per process\n", options.count_events);
    else
      kprintf("dcpi-kernel: count=0x%x refused (status %ld): not counting\n", options.count_events,
              status);
  }
  if (options.profileme != 0) {  // issue 27: 1 = firmware/profileme.h's mean
    const uint32_t mean = options.profileme > 1 ? options.profileme : PROFILEME_INTERVAL_MEAN;
    const int64_t status = dcpi::driver::profileme_configure(mean, options.profileme_pair);
    if (status == dcpi::kControlOk)
      kprintf(
          "dcpi-kernel: ProfileMe every %u fetched instructions (mean, exponential), pair "
          "window %u\n",
          mean, options.profileme_pair);
    else
      kprintf("dcpi-kernel: profileme refused (status %ld): only the ev5 machine has it\n", status);
  }
  if (options.serial) dcpi::driver::set_serial_transport(true);
  if (options.value_capture_bad)
    kprintf("dcpi-kernel: vcapture= not understood; capturing the default (tor)\n");
  if (options.value_length != 0) {
    dcpi::driver::value_set_capture(options.value_capture);
    const uint64_t args[3] = {options.value_length, options.value_every, 0};
    const int64_t status = dcpi::driver::control_from_user(
        static_cast<uint32_t>(dcpi::ControlCommand::kSetValues), args);
    if (status == dcpi::kControlOk) {
      value_length_ = options.value_length;
      kprintf("dcpi-kernel: value sampling %u instructions on every %u-th interrupt\n",
              options.value_length, options.value_every);
    } else {
      kprintf("dcpi-kernel: values=%u/%u refused (status %ld)\n", options.value_length,
              options.value_every, status);
    }
  }
  if (options.chain_stack_bytes != 0) {  // issue 28: sampled call chains
    const uint64_t args[3] = {options.chain_stack_bytes, 0, 0};
    const int64_t status = dcpi::driver::control_from_user(
        static_cast<uint32_t>(dcpi::ControlCommand::kSetChains), args);
    if (status == dcpi::kControlOk)
      kprintf("dcpi-kernel: call chains with %u bytes of stack per sample\n",
              options.chain_stack_bytes);
    else
      kprintf("dcpi-kernel: chains=%u refused (status %ld)\n", options.chain_stack_bytes, status);
  }
}

void start(const Options& options) {
  if (spawn_kernel_thread(daemon_main, nullptr, "dcpid") == 0) panic("cannot start dcpid");
  if (options.enabled) dcpi::driver::start_all();
  __atomic_store_n(&running, true, __ATOMIC_RELEASE);
  kprintf("dcpi-kernel: profiler %s\n", options.enabled ? "sampling on every CPU" : "off");
}

void wake() {
  if (!__atomic_load_n(&running, __ATOMIC_ACQUIRE)) return;
  IrqLockGuard guard(sched::lock);
  wake_pending = true;
  if (daemon_thread != nullptr && daemon_thread->state == ProcessState::kBlocked) {
    sched::make_ready_locked(daemon_thread);
  }
}

void ipi() {
  // Only the driver's requests: wake() takes the scheduler lock, and most
  // IPIs to this CPU are the scheduler's own.
  if (pal::whami() == kDaemonCpu && dcpi::driver::take_daemon_signal()) wake();
}

void tick() {
  dcpi::driver::counting_tick();  // counting mode's multiplexing (every CPU)
  if (pal::whami() != kDaemonCpu) return;
  dcpi_guest_cycles = clock::cycles();  // also keeps the 64-bit extension fresh
  if (++ticks % kWakeEveryTicks == 0) wake();
}

void finish() {
  if (!__atomic_exchange_n(&running, false, __ATOMIC_ACQ_REL)) return;  // no more wake-ups
  dcpi::driver::stop_all();
  // The run is over: no periodic flushes of empty tables while the guest
  // idles (with sleep=off idle virtual time races ahead of the host).
  dcpi::driver::set_flush_interval(0);
  // Everything the daemon would still send, here and now, before DCPI-DONE:
  // load-map records (init's own exit), full buffers, value tuples, then
  // the tables and the statistics.
  dcpi::driver::daemon_step();
  dcpi::driver::flush_all();
  for (uint32_t cpu = 0; cpu < smp::online_count(); ++cpu) {
    const dcpi::DriverCpuStats s = dcpi::driver::read_stats(cpu);
    kprintf("dcpi-kernel: cpu %u interrupts %lu hits %lu misses %lu to_daemon %lu dropped %lu\n",
            cpu, s.interrupts, s.hits, s.misses, s.samples_to_daemon,
            s.dropped[dcpi::kDropBothBuffersFull] + s.dropped[dcpi::kDropUncountedEvent]);
  }
  if (value_length_ != 0) {
    for (uint32_t cpu = 0; cpu < smp::online_count(); ++cpu) {
      const dcpi::ValueStats& v = dcpi::driver::value_stats(cpu);
      kprintf(
          "dcpi-kernel: cpu %u value runs %lu interpreted %lu kernel %lu stops call_pal %lu "
          "fault %lu unaligned %lu arith %lu stc %lu unimpl %lu tuples %lu tuples_dropped %lu\n",
          cpu, v.runs, v.interpreted, v.skipped_kernel, v.stops[1], v.stops[2], v.stops[3],
          v.stops[4], v.stops[6], v.stops[7], v.tuples, v.tuples_dropped);
    }
  }
  const dcpi::driver::RingTotals ring = dcpi::driver::ring_totals();
  kprintf("dcpi-kernel: ring records %lu samples %lu dropped records %lu samples %lu\n",
          ring.records_written, ring.samples_written, ring.records_dropped, ring.samples_dropped);
}

}  // namespace kernel::profiler
