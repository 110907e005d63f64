#include "kernel/scheduler.h"

#include "driver/chain_layout.h"
#include "driver/driver.h"
#include "driver/kernel_services.h"
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/cpu_time.h"
#include "kernel/irq_lock.h"
#include "kernel/job_control.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/smp.h"

extern "C" {
void switch_context(kernel::Pcb* next);
void adopt_context(kernel::Pcb* self);
extern char boot_stacks[];  // kernel/entry.S: one per CPU, the idle loops' and start-up's
}

namespace kernel {
namespace sched {

SpinLock lock;

namespace {

Process idle_threads[smp::kMaxCpus];
Process* running[smp::kMaxCpus];        // what each CPU runs
uint32_t unpreemptible[smp::kMaxCpus];  // preemption_off's nesting, per CPU
bool ticked_in_kernel[smp::kMaxCpus];   // a tick left a system call running
Process* previous[smp::kMaxCpus];       // what it ran before the last switch
Process* queue_head = nullptr;
Process* queue_tail = nullptr;
uint64_t shared_kernel_ptbr = 0;
constexpr uint64_t kFlushWaitCycles = 50'000'000;  // 0.2 s: a CPU that never answers

// The CPUs some queued thread may run on (sched_setaffinity), kept with the
// queue so that an idle CPU can look without the lock.
uint64_t queued_cpus = 0;

uint64_t allowed_on(const Process* p) { return p->allowed_cpus ? p->allowed_cpus : ~uint64_t{0}; }

bool queued_for(uint32_t cpu) {
  return (__atomic_load_n(&queued_cpus, __ATOMIC_ACQUIRE) >> cpu) & 1;
}

// The first queued thread allowed on `cpu`, unlinked; nullptr if none.
Process* dequeue_locked(uint32_t cpu) {
  Process* before = nullptr;
  Process* p = queue_head;
  while (p != nullptr && !((allowed_on(p) >> cpu) & 1)) {
    before = p;
    p = p->next;
  }
  if (p == nullptr) return nullptr;
  (before ? before->next : queue_head) = p->next;
  if (queue_tail == p) queue_tail = before;
  p->next = nullptr;
  uint64_t cpus = 0;
  for (const Process* q = queue_head; q != nullptr; q = q->next) cpus |= allowed_on(q);
  __atomic_store_n(&queued_cpus, cpus, __ATOMIC_RELEASE);
  return p;
}

bool uses_fp(const Process* p) { return !p->kernel_thread && !p->idle; }

}  // namespace

void reap_locked(Process* p);  // kernel/process.cpp

uint64_t kernel_ptbr() { return shared_kernel_ptbr; }

void init_cpu(uint32_t cpu) {
  if (shared_kernel_ptbr == 0) {
    const uint64_t l1 = pages::allocate();
    if (l1 == 0) panic("no memory for the kernel page table");
    shared_kernel_ptbr = pages::kseg_to_phys(l1);
  }
  Process& idle = idle_threads[cpu];
  idle.pid = 0;
  idle.state = ProcessState::kRunning;
  idle.kernel_thread = true;
  idle.idle = true;
  idle.pcb.ptbr = shared_kernel_ptbr;
  idle.cpu_mask = uint64_t{1} << cpu;
  const char name[] = "idle";
  for (unsigned i = 0; i < sizeof name; ++i) idle.name[i] = name[i];
  running[cpu] = &idle;
  adopt_context(&idle.pcb);
}

Process* current_locked_unsafe(uint32_t cpu) { return running[cpu]; }

void make_ready_locked(Process* p) {
  if (p->stopped) return;  // parked in a group stop: jobs::release_locked wakes it
  p->state = ProcessState::kReady;
  p->next = nullptr;
  if (queue_tail != nullptr)
    queue_tail->next = p;
  else
    queue_head = p;
  queue_tail = p;
  __atomic_store_n(&queued_cpus, queued_cpus | allowed_on(p), __ATOMIC_RELEASE);
  // Wake an idle CPU it may run on rather than let it sleep until its next tick.
  const uint32_t self = static_cast<uint32_t>(pal::whami());
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    if (cpu != self && running[cpu] != nullptr && running[cpu]->idle &&
        ((allowed_on(p) >> cpu) & 1)) {
      pal::wripir(cpu);
      break;
    }
  }
}

// The second half of every switch, run by the thread switched to (lock held).
void finish_switch() {
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  Process* before = previous[cpu];
  previous[cpu] = nullptr;
  Process* self = running[cpu];
  self->switched_in = clock::cycles();
  // Nobody will wait for it (a thread, an orphan); a group's leader stays
  // while its other threads run: they still use its slot's group.
  if (before != nullptr && before->state == ProcessState::kZombie && before->parent_pid == 0 &&
      (before->pid != before->tgid || before->group == nullptr || before->group->ended))
    reap_locked(before);
  if (uses_fp(self)) fp_restore(self->fp);
}

// Counting mode (issue 26 item 4): what this CPU counted for `p` since it
// came in is saved in its process's virtual counters.
void take_counts(Process* p) {
  if (!dcpi::driver::counting_active()) return;
  dcpi::driver::counting_take(p->group != nullptr && !p->kernel_thread ? &p->group->counts
                                                                       : nullptr);
}

void schedule_locked() {
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  Process* prev = running[cpu];
  if (prev->state == ProcessState::kRunning && !prev->idle) make_ready_locked(prev);
  // The last thread of a stopping process to park or fall asleep completes its stop.
  if (prev->state == ProcessState::kBlocked && prev->group != nullptr && prev->group->stopped)
    jobs::blocked_locked(prev);
  Process* next = dequeue_locked(cpu);
  if (next == nullptr) next = prev->state == ProcessState::kRunning ? prev : &idle_threads[cpu];
  if (next == prev) {
    prev->state = ProcessState::kRunning;
    return;
  }
  const uint64_t now = clock::cycles();
  prev->run_cycles += now - prev->switched_in;
  cpu_time::switched_locked(cpu, next->idle ? nullptr : &next->cpu_time, now);
  next->state = ProcessState::kRunning;
  next->cpu_mask |= uint64_t{1} << cpu;
  running[cpu] = next;
  previous[cpu] = prev;
  if (uses_fp(prev)) fp_save(prev->fp);
  take_counts(prev);
  // Samples name the thread (DCPI §4.2.1's PID key holds the tid, issue 29):
  // the load map's kThread records tell the host its process.
  dcpi::driver::sampler_context_switch(next->pid);
  switch_context(&next->pcb);
  finish_switch();
}

namespace {
uint64_t earliest_deadline = 0;  // of any sleeper; 0: none

// Sleepers whose deadline passed become ready (they see wake_at != 0 and
// know they timed out). At most the process table's 64 slots.
void wake_sleepers_locked(uint64_t now) {
  uint64_t earliest = 0;
  for (uint32_t i = 0; i < process_slot_count(); ++i) {
    Process* p = &process_slots()[i];
    if (p->state != ProcessState::kBlocked || p->wake_at == 0) continue;
    if (p->wake_at <= now)
      make_ready_locked(p);
    else if (earliest == 0 || p->wake_at < earliest)
      earliest = p->wake_at;
  }
  earliest_deadline = earliest;
}
}  // namespace

void sleep_locked(uint64_t deadline) {
  Process* self = running[pal::whami()];
  self->wake_at = deadline;
  if (deadline != 0 && (earliest_deadline == 0 || deadline < earliest_deadline))
    earliest_deadline = deadline;
  self->interruptible = true;
  self->state = ProcessState::kBlocked;
  schedule_locked();
  self->interruptible = false;
  self->wake_at = 0;
}

// At IPL_HIGH: the tick cannot move the thread between its reading of the
// CPU number and the count's update; once the count is up it stays put.
void preemption_off() {
  const uint64_t ipl = pal::swpipl(IPL_HIGH);
  ++unpreemptible[pal::whami()];
  pal::swpipl(ipl);
}

void preemption_on() {
  const uint64_t ipl = pal::swpipl(IPL_HIGH);
  --unpreemptible[pal::whami()];
  pal::swpipl(ipl);
}

namespace {
// Switches to the queue's head, if anything is queued (the tick, a put-off
// preemption, an idle CPU).
void run_queued() {
  IrqLockGuard guard(lock);
  if (queued_for(static_cast<uint32_t>(pal::whami()))) schedule_locked();
}
}  // namespace

void tick(const TrapFrame* frame) {
  const uint64_t deadline = __atomic_load_n(&earliest_deadline, __ATOMIC_RELAXED);
  if (deadline != 0 && clock::cycles() >= deadline) {
    IrqLockGuard guard(lock);
    wake_sleepers_locked(clock::cycles());
  }
  if ((frame->ps & PS_IPL_MASK) != 0) return;  // never preempt raised-IPL code
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  if (__atomic_load_n(&unpreemptible[cpu], __ATOMIC_RELAXED) != 0) return;
  // A user process's system call or trap (kernel mode, IPL 0) runs on to
  // its return to user mode, which preempts it then (preempt_if_ticked):
  // preempted inside, it could resume on another CPU between reading
  // whami() and that CPU's state, and current() handed it another CPU's
  // process (callpal's getxpid once returned another pid on 4 CPUs).
  // Kernel threads and idle loops stay preemptible where they run.
  const Process* self = running[cpu];
  if ((frame->ps & PS_USER_MODE) == 0 && self != nullptr && !self->kernel_thread && !self->idle) {
    ticked_in_kernel[cpu] = true;
    return;
  }
  run_queued();
}

void preempt_if_ticked() {
  const uint32_t cpu = static_cast<uint32_t>(pal::whami());
  if (!ticked_in_kernel[cpu]) return;
  ticked_in_kernel[cpu] = false;
  run_queued();
}

void idle_step() {
  // Look before taking the lock: an idle CPU woken by a counter interrupt
  // (every ~62K cycles while profiling) mostly finds nothing to run, and
  // under QEMU's round-robin vCPUs a CPU spinning on a lock whose holder is
  // descheduled burns its whole time slice -- virtual time for everyone.
  if (!queued_for(static_cast<uint32_t>(pal::whami()))) return;
  run_queued();
}

void idle_loop() {
  for (;;) {
    idle_step();
    // Check and sleep with interrupts masked: a wake-up IPI that arrives in
    // between stays pending and WTINT returns at once (QEMU wakes a halted
    // CPU on any pending interrupt, masked or not), so none is lost; it is
    // taken when the IPL drops.
    const uint64_t ipl = pal::swpipl(IPL_HIGH);
    if (!queued_for(static_cast<uint32_t>(pal::whami()))) pal::wtint();
    pal::swpipl(ipl);
  }
}

CpuTimes cpu_times(uint32_t cpu) {
  IrqLockGuard guard(lock);
  return cpu_time::read_locked(cpu, clock::cycles());
}

void kick_locked(const Process* p) {
  const uint32_t self = static_cast<uint32_t>(pal::whami());
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu)
    if (cpu != self && running[cpu] == p) pal::wripir(cpu);
}

void flush_tlb(const Mm* mm) {
  pal::tbia();
  const uint32_t self = static_cast<uint32_t>(pal::whami());
  bool asked[smp::kMaxCpus] = {};
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    const Process* p = __atomic_load_n(&running[cpu], __ATOMIC_ACQUIRE);
    if (cpu == self || p == nullptr || p->mm != mm) continue;
    __atomic_store_n(&smp::cpus[cpu].flush_tlb, 1, __ATOMIC_RELEASE);
    pal::wripir(cpu);
    asked[cpu] = true;
  }
  // A CPU that switched away meanwhile flushed anyway (swpctx changes ptbr).
  const uint64_t start = clock::cycles();
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu)
    while (asked[cpu] && __atomic_load_n(&smp::cpus[cpu].flush_tlb, __ATOMIC_ACQUIRE) &&
           clock::cycles() - start < kFlushWaitCycles) {
    }
}

}  // namespace sched

// No PAL call beyond whami: a user process's system call is not preempted
// (tick), so it cannot move to another CPU between the two reads.
Process* current() { return sched::current_locked_unsafe(static_cast<uint32_t>(pal::whami())); }
uint32_t current_pid() { return current()->pid; }

// For the driver's value sampler (driver/kernel_services.h).
const AddressSpace* current_user_space() {
  const Process* process = current();
  static const AddressSpace none;  // kernel threads and idle loops: no user memory
  return process == nullptr || process->mm == nullptr ? &none : &process->mm->space;
}

// For the driver's call chains (driver/kernel_services.h).
static_assert(__builtin_offsetof(Process, mm) == PROCESS_MM &&
              __builtin_offsetof(Process, user_stack_base) == PROCESS_USER_STACK_BASE &&
              __builtin_offsetof(Mm, space) == MM_SPACE);
UserStack current_user_stack() {
  const Process* process = current();
  if (process == nullptr || process->mm == nullptr) return {current_user_space(), 0};
  return {&process->mm->space, process->user_stack_base};
}

// For the driver's call chains (driver/kernel_services.h).
KernelStack current_kernel_stack(uint64_t sp) {
  constexpr uint64_t kBootStackBytes = 16384;  // kernel/entry.S STACK_BYTES
  const Process* process = current();
  if (process != nullptr && process->kernel_stack != 0) {
    const uint64_t top = process->kernel_stack + (kKernelStackPages << pages::kPageShift);
    if (sp > process->kernel_stack && sp <= top)
      return {top, process->mm != nullptr && !process->kernel_thread};
  }
  const auto base = reinterpret_cast<uint64_t>(boot_stacks);
  if (sp > base && sp <= base + kBootStackBytes * smp::kMaxCpus)
    return {base + ((sp - base - 1) / kBootStackBytes + 1) * kBootStackBytes, false};
  return {0, false};
}

uint64_t cpus_running_user() {
  uint64_t n = 0;
  for (uint32_t cpu = 0; cpu < smp::kMaxCpus; ++cpu) {
    const Process* p = __atomic_load_n(&sched::running[cpu], __ATOMIC_RELAXED);
    n += p != nullptr && !p->kernel_thread;
  }
  return n;
}

}  // namespace kernel

// First run of a new thread, right after switch_context (kernel/switch.S).
extern "C" void user_thread_first_run() {
  kernel::sched::finish_switch();
  // A thread cloned as its process stopped runs no user code either (its
  // first return skips signals::deliver).
  kernel::Process* self = kernel::current();
  while (self->group != nullptr && kernel::jobs::must_park_locked(self))
    kernel::jobs::park_locked(self);
  kernel::sched::lock.unlock();  // IPL stays 7 until the rti to user mode
}

extern "C" void kernel_thread_main(void (*fn)(void*), void* arg) {
  kernel::sched::finish_switch();
  kernel::sched::lock.unlock();
  kernel::pal::swpipl(0);
  fn(arg);
  kernel::exit_current(0);
}

// driver/kernel_services.h: running[] for the chain fast path in assembly.
extern "C" const void* const dcpi_running_processes = kernel::sched::running;
