#include "kernel/process.h"

#include "firmware/load_map.h"
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/elf_loader.h"
#include "kernel/files.h"
#include "kernel/fp_completion.h"
#include "kernel/futex.h"
#include "kernel/host_output.h"
#include "kernel/irq_lock.h"
#include "kernel/job_control.h"
#include "kernel/linux_errno.h"
#include "kernel/load_map_writer.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/posix_timers.h"
#include "kernel/process_build.h"
#include "kernel/process_parts.h"
#include "kernel/profiler.h"
#include "kernel/record_locks.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/syscalls.h"
#include "kernel/text.h"

extern "C" {
void user_thread_start();
void kernel_thread_start();
}

namespace kernel {
namespace {

// Threads and processes alive at once (Linux's threads-max is far higher;
// a program with a thread per task may want hundreds).
constexpr uint32_t kMaxProcesses = 512;
constexpr uint64_t kMaxArgBytes = 16384;

// Linux/Alpha auxiliary vector tags (what glibc's start-up and ld.so read).
constexpr uint64_t kAtNull = 0, kAtPhdr = 3, kAtPhent = 4, kAtPhnum = 5, kAtPagesz = 6, kAtBase = 7,
                   kAtFlags = 8, kAtEntry = 9, kAtUid = 11, kAtEuid = 12, kAtGid = 13, kAtEgid = 14,
                   kAtClktck = 17, kAtSecure = 23, kAtRandom = 25, kAtExecfn = 31;

Process table[kMaxProcesses];
// Slots from here on have never been used (allocation takes the lowest free
// one): the table's scans stop here, so a run with few threads pays for few.
uint32_t slots_end = 0;

// The slots in use so far, for range-for scans (with sched::lock, or a
// snapshot that may miss a slot allocated meanwhile).
struct UsedSlots {
  Process* begin() const { return table; }
  Process* end() const { return table + __atomic_load_n(&slots_end, __ATOMIC_ACQUIRE); }
};
constexpr UsedSlots used_slots{};
uint32_t next_pid = 1;
uint32_t init_pid = 0;
uint64_t init_started = 0;  // clock::cycles() when init was spawned
bool halt_after_init = false;

// Linux/Alpha initial stack: argc, argv[], NULL, envp[], NULL, auxv pairs
// ending with AT_NULL; the strings (and AT_RANDOM's 16 bytes) above.
// Returns the user sp or 0.
struct StartInfo {
  const LoadedImage* program;
  const LoadedImage* interpreter;  // nullptr for a static program
  const char* path;
};

struct Strings {
  const char* const* list;
  uint64_t count;
};

uint64_t build_user_stack(AddressSpace& space, Strings args, Strings env, const StartInfo& start) {
  static char strings[kMaxArgBytes];  // under spawn_lock
  const uint64_t path_bytes = string_length(start.path) + 1;
  uint64_t string_bytes = 16 + path_bytes;  // AT_RANDOM, AT_EXECFN
  const Strings both[2] = {args, env};
  for (const Strings& s : both)
    for (uint64_t i = 0; i < s.count; ++i) string_bytes += string_length(s.list[i]) + 1;
  if (string_bytes > kMaxArgBytes) return 0;
  const uint64_t strings_va = (kUserStackTop - string_bytes) & ~uint64_t{15};
  const uint64_t random[2] = {clock::random_word(), clock::random_word()};
  __builtin_memcpy(strings, random, 16);
  __builtin_memcpy(strings + 16, start.path, path_bytes);
  uint64_t vector[3 + build::kMaxArgs + build::kMaxEnv + 40];
  uint64_t n = 0, offset = 16 + path_bytes;
  vector[n++] = args.count;
  for (const Strings& s : both) {
    for (uint64_t i = 0; i < s.count; ++i) {
      vector[n++] = strings_va + offset;
      const uint64_t length = string_length(s.list[i]) + 1;
      __builtin_memcpy(strings + offset, s.list[i], length);
      offset += length;
    }
    vector[n++] = 0;  // end of argv, then of envp
  }
  const LoadedImage& program = *start.program;
  const uint64_t base = start.interpreter ? start.interpreter->bias : 0;
  const uint64_t aux[][2] = {{kAtPhdr, program.phdr},
                             {kAtPhent, 56},
                             {kAtPhnum, program.phnum},
                             {kAtPagesz, pages::kPageBytes},
                             {kAtBase, base},
                             {kAtFlags, 0},
                             {kAtEntry, program.entry},
                             {kAtUid, 0},
                             {kAtEuid, 0},
                             {kAtGid, 0},
                             {kAtEgid, 0},
                             {kAtClktck, sys::kTicksPerSecond},
                             {kAtSecure, 0},
                             {kAtRandom, strings_va},
                             {kAtExecfn, strings_va + 16},
                             {kAtNull, 0}};
  for (const auto& pair : aux) {
    vector[n++] = pair[0];
    vector[n++] = pair[1];
  }
  const uint64_t sp = (strings_va - n * 8) & ~uint64_t{15};
  if (!copy_to_user(space, strings_va, strings, string_bytes) ||
      !copy_to_user(space, sp, vector, n * 8))
    return 0;
  return sp;
}

SpinLock spawn_lock;  // the argument staging buffer

// Loads the program and, for a dynamically linked one, its interpreter
// (PT_INTERP, e.g. /lib/ld-linux.so.2) at kMmapBase. 0 or a positive errno;
// the console says why a program could not run.
int load_program(Mm* mm, const char* path, const initrd::File& file, LoadedImage* program,
                 LoadedImage* interpreter) {
  int error = load_elf(mm->space, reinterpret_cast<const uint8_t*>(file.data), file.size, kPieBase,
                       program);
  if (error != 0) {
    kprintf("dcpi-kernel: cannot run %s: %s\n", path, program->failure);
    return error;
  }
  mm->mmap_next = kMmapBase;
  if (program->interpreter[0] == 0) return 0;
  initrd::File interp;
  if (!initrd::find(program->interpreter, &interp)) {
    kprintf("dcpi-kernel: cannot run %s: its interpreter %s is not in the initrd\n", path,
            program->interpreter);
    return ENOENT;
  }
  error = load_elf(mm->space, reinterpret_cast<const uint8_t*>(interp.data), interp.size, kMmapBase,
                   interpreter);
  if (error != 0) {
    kprintf("dcpi-kernel: cannot run %s: interpreter %s: %s\n", path, program->interpreter,
            interpreter->failure);
    return error;
  }
  const uint64_t end = interpreter->high + interpreter->bias;
  mm->mmap_next = (end + pages::kPageBytes - 1) & ~(pages::kPageBytes - 1);
  return 0;
}

// The group's end (its last thread left): the kExit record, init's report,
// orphans handed to the kernel (process groups left orphaned with a stopped
// process hung up), the leader a zombie for its parent, who gets its exit
// signal and is woken. With sched::lock held.
void end_group_locked(Process* leader, int64_t wait_status) {
  for (Process& child : used_slots) {
    if (child.state == ProcessState::kFree || child.parent_pid != leader->tgid || &child == leader)
      continue;
    child.parent_pid = 0;
    if (child.state == ProcessState::kZombie && child.group && child.group->ended) {
      build::release_slot(&child);
      continue;
    }
    if (child.pid == child.tgid) jobs::hang_up_orphans_locked(&child, leader);
    if (child.pid == child.tgid && child.group && child.group->parent_death_signal != 0 &&
        child.group->threads != 0)  // prctl(PR_SET_PDEATHSIG)
      signals::send_group_locked(&child, static_cast<int>(child.group->parent_death_signal));
  }
  leader->wait_status = wait_status;
  leader->group->ended = true;
  posix_timers::release_group_locked(leader->group);
  Process* parent = leader->parent_pid ? find_process_locked(leader->parent_pid) : nullptr;
  if (parent != nullptr) jobs::hang_up_orphans_locked(leader, parent);
  if (parent != nullptr && leader->exit_signal != 0) {
    const SignalSource child = signals::child_end(leader->tgid, wait_status);
    signals::send_group_locked(parent, static_cast<int>(leader->exit_signal), &child);
  }
}

// Wakes the parent's threads blocked in wait4 once `leader` can be reaped:
// its group ended and it is a zombie. Whichever of the two comes last wakes
// them (the leader need not be the last thread to leave), so the wake-up
// never comes while wait_child would still find nothing. With sched::lock.
void wake_reaper_locked(const Process* leader) {
  if (leader->state != ProcessState::kZombie || !leader->group->ended) return;
  if (leader->parent_pid != 0) wake_waiters_locked(leader->parent_pid);
}

// What init's end prints before DCPI-DONE (outside every lock).
void report_init_exit(int64_t wait_status) {
  // Elapsed guest cycles of the whole workload, profiling included: the
  // overhead benchmark compares it with a profile=0 run (tests/bench).
  const uint64_t elapsed = clock::cycles() - init_started;
  profiler::finish();  // the whole profile into the transfer ring before DCPI-DONE
  kprintf("dcpi-kernel: init ran %lu cycles\n", elapsed);
  sys::report_unimplemented();
  const int64_t code = (wait_status & 0x7f) ? wait_status & 0x7f : (wait_status >> 8) & 0xff;
  kprintf("dcpi-kernel: init exited with status %ld%s\n", code,
          (wait_status & 0x7f) ? " (killed by a signal)" : "");
  kprintf("dcpi-kernel: %lu of %lu pages free\n", pages::free_count(), pages::total_count());
  host_output::send();  // dcpi run --output's files, before the end marker
  kprintf("DCPI-DONE\n");
  if (halt_after_init) pal::halt();
}

// Counting mode (issue 26 item 4): the process's virtual counters, own and
// its waited-for children's, for the host (firmware/load_map.h kCounts):
// kCountSlots events a record, the rest in a kCountsContinued one after it.
void append_counts_record(const Process* leader) {
  if (!dcpi::driver::counting_active() || leader->group == nullptr) return;
  const ThreadGroup& group = *leader->group;
  uint16_t events[dcpi::kCountEvents];
  const uint32_t slots = dcpi::driver::counting_events(events);
  uint32_t first = 0;
  do {
    dcpi::CountsRecord record{};
    record.kind = static_cast<uint32_t>(dcpi::LoadKind::kCounts);
    record.pid = leader->tgid;
    record.parent_pid = leader->parent_pid;
    record.slots = static_cast<uint16_t>(slots - first < dcpi::kCountSlots ? slots - first
                                                                           : dcpi::kCountSlots);
    for (uint32_t i = 0; i < record.slots; ++i) {
      const uint32_t slot = first + i;
      record.events[i] = events[slot];
      record.slot[i] = {group.counts.count[slot], group.counts.counted_cycles[slot],
                        group.child_counts.count[slot], group.child_counts.counted_cycles[slot]};
    }
    if (first != 0) record.flags |= dcpi::kCountsContinued;
    if (dcpi::driver::counting_instructions()) {
      record.flags |= dcpi::kCountsInstructions;
      record.instructions = {group.counts.instructions, group.counts.cycles,
                             group.child_counts.instructions, group.child_counts.cycles};
    }
    record.cycles = group.counts.cycles;
    record.child_cycles = group.child_counts.cycles;
    record.children = group.counted_children;
    dcpi::LoadMapRecord as_load_map;
    __builtin_memcpy(&as_load_map, &record, sizeof record);
    load_map_append(as_load_map);
    first += record.slots;
  } while (first < slots);
}

// IRIX's rule: a reaped child's totals, its own and its children's, go to
// its parent's children totals.
void add_child_counts(ThreadGroup& parent, const ThreadGroup& child) {
  for (uint32_t i = 0; i < dcpi::kCountEvents; ++i) {
    parent.child_counts.count[i] += child.counts.count[i] + child.child_counts.count[i];
    parent.child_counts.counted_cycles[i] +=
        child.counts.counted_cycles[i] + child.child_counts.counted_cycles[i];
  }
  parent.child_counts.cycles += child.counts.cycles + child.child_counts.cycles;
  parent.child_counts.instructions += child.counts.instructions + child.child_counts.instructions;
  parent.counted_children += 1 + child.counted_children;
}

void append_exit_record(const Process* leader, int64_t wait_status) {
  dcpi::LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(dcpi::LoadKind::kExit);
  record.pid = leader->tgid;
  record.parent_pid = leader->parent_pid;
  record.exit_status = wait_status;
  copy_name(record.path, sizeof record.path, leader->name);
  load_map_append(record);
}

// `dcpi run -- PROGRAM < FILE`: the host put FILE in the initrd as
// /etc/dcpi/stdin; the programs init starts read it as their fd 0 (init
// keeps the console).
void give_host_stdin(FdTable* fds) {
  constexpr char kHostStdin[] = "/etc/dcpi/stdin";
  OpenFile input{};
  if (!initrd::find(kHostStdin, &input.file)) return;
  input.kind = OpenFile::kInitrd;
  copy_name(input.path, sizeof input.path, kHostStdin);
  if (OpenFile* description = new_description(input)) install_file_at(fds, 0, description, false);
}

[[noreturn]] void exit_kernel_thread() {
  Process* self = current();
  IrqLockGuard guard(sched::lock);
  self->state = ProcessState::kZombie;  // parent 0: reaped once switched out
  sched::schedule_locked();
  panic("a zombie ran again");
}

}  // namespace

namespace build {

Process* allocate_slot() {
  const uint64_t stack = pages::allocate(kKernelStackPages);
  if (stack == 0) return nullptr;
  IrqLockGuard guard(sched::lock);
  for (Process& p : table) {
    if (p.state != ProcessState::kFree) continue;
    const auto index = static_cast<uint32_t>(&p - table);
    if (index >= slots_end) __atomic_store_n(&slots_end, index + 1, __ATOMIC_RELEASE);
    p = Process{};
    p.state = ProcessState::kBlocked;
    p.kernel_stack = stack;
    return &p;
  }
  pages::release(stack, kKernelStackPages);
  return nullptr;
}

void release_slot(Process* p) {
  parts::mm_release(p->mm);
  parts::fds_release(p->fds);
  parts::group_release(p->group);
  p->mm = nullptr;
  p->fds = nullptr;
  p->group = nullptr;
  if (p->kernel_stack) pages::release(p->kernel_stack, kKernelStackPages);
  p->kernel_stack = 0;
  p->state = ProcessState::kFree;
}

uint64_t stack_top(const Process* p) {
  return p->kernel_stack + (kKernelStackPages << pages::kPageShift);
}

void build_switch_frame(Process* p, uint64_t at, void (*start)(), uint64_t s0, uint64_t s1) {
  auto* frame = reinterpret_cast<uint64_t*>(at);
  for (int i = 0; i < 8; ++i) frame[i] = 0;
  frame[0] = s0;
  frame[1] = s1;
  frame[7] = reinterpret_cast<uint64_t>(start);
  p->pcb.ksp = at;
}

uint32_t next_pid_locked() { return next_pid++; }

int load_image(Mm* mm, const char* path, const char* const* argv, uint64_t argc,
               const char* const* envp, uint64_t envc, Image* image) {
  initrd::File file;
  if (!initrd::find(path, &file)) return ENOENT;
  if (argc > kMaxArgs || envc > kMaxEnv) return E2BIG;
  int error = load_program(mm, path, file, &image->program, &image->interpreter);
  image->dynamic = error == 0 && image->program.interpreter[0] != 0;
  for (uint64_t va = kUserStackTop - kUserStackBytes; error == 0 && va < kUserStackTop;
       va += pages::kPageBytes)
    if (map_user_page(mm->space, va, true) == 0) error = ENOMEM;
  if (error != 0) return error;
  {
    LockGuard guard(spawn_lock);
    image->usp = build_user_stack(
        mm->space, Strings{argv, argc}, Strings{envp, envc},
        StartInfo{&image->program, image->dynamic ? &image->interpreter : nullptr, path});
  }
  if (image->usp == 0) return E2BIG;
  const uint64_t image_end = image->program.high + image->program.bias;
  mm->brk_start = mm->brk = (image_end + pages::kPageBytes - 1) & ~(pages::kPageBytes - 1);
  // The dynamic loader's entry runs first for a dynamically linked program.
  image->entry = image->dynamic ? image->interpreter.entry : image->program.entry;
  return 0;
}

void start_in_user_mode(Process* p, uint64_t entry) {
  const uint64_t frame_at = stack_top(p) - sizeof(TrapFrame);
  auto* frame = reinterpret_cast<TrapFrame*>(frame_at);
  *frame = TrapFrame{};
  frame->ps = PS_USER_MODE;
  frame->pc = entry;
  frame->reg(27) = entry;
  build_switch_frame(p, frame_at - kSwitchFrameBytes, user_thread_start, 0, 0);
}

void append_image_record(dcpi::LoadKind kind, uint32_t pid, uint32_t parent,
                         const LoadedImage& image, const char* path) {
  dcpi::LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(kind);
  record.pid = pid;
  record.parent_pid = parent;
  record.load_address = image.low + image.bias;
  record.link_address = image.low;
  record.size = image.high - image.low;
  record.build_id_bytes = image.build_id_bytes;
  for (uint32_t i = 0; i < image.build_id_bytes; ++i) record.build_id[i] = image.build_id[i];
  copy_name(record.path, sizeof record.path, path);
  load_map_append(record);
}

}  // namespace build

namespace sched {
void reap_locked(Process* p) {
  if (p->group != nullptr && p->pid != p->tgid) p->group->reaped_thread_cycles += p->run_cycles;
  build::release_slot(p);
}
}  // namespace sched

uint64_t thread_cycles(const Process* p) {
  const uint64_t running =
      p->state == ProcessState::kRunning ? clock::cycles() - p->switched_in : 0;
  return p->run_cycles + running;
}

uint64_t group_cycles_locked(const ThreadGroup* group) {
  uint64_t cycles = group->reaped_thread_cycles;
  for (const Process& p : used_slots)
    if (p.state != ProcessState::kFree && p.group == group && !p.kernel_thread)
      cycles += thread_cycles(&p);
  return cycles;
}

void make_other_threads_leave_locked(const Process* self) {
  for_each_thread(self->group, [self](Process& p) {
    if (&p == self) return;
    if (p.state == ProcessState::kBlocked && p.interruptible) sched::make_ready_locked(&p);
    if (p.state == ProcessState::kRunning) sched::kick_locked(&p);
  });
  jobs::release_locked(self->group);  // threads parked in a stop leave too
}

Process* process_slots() { return table; }
uint32_t process_slot_count() { return __atomic_load_n(&slots_end, __ATOMIC_ACQUIRE); }

Process* find_process_locked(uint32_t tgid) {
  for (Process& p : used_slots)
    if (p.state != ProcessState::kFree && p.pid == tgid && p.tgid == tgid && !p.kernel_thread)
      return &p;
  return nullptr;
}

Process* find_thread_locked(uint32_t tid) {
  for (Process& p : used_slots)
    if (p.state != ProcessState::kFree && p.state != ProcessState::kZombie && p.pid == tid &&
        !p.kernel_thread)
      return &p;
  return nullptr;
}

void set_init_pid(uint32_t pid, bool halt_when_done) {
  init_started = clock::cycles();
  init_pid = pid;
  halt_after_init = halt_when_done;
}

bool is_init(uint32_t pid) { return pid != 0 && pid == init_pid; }

uint32_t spawn_kernel_thread(void (*fn)(void*), void* arg, const char* name) {
  Process* p = build::allocate_slot();
  if (p == nullptr) return 0;
  p->kernel_thread = true;
  p->pcb.ptbr = sched::kernel_ptbr();
  copy_name(p->name, sizeof p->name, name);
  copy_name(p->comm, sizeof p->comm, name);
  build::build_switch_frame(p, build::stack_top(p) - build::kSwitchFrameBytes, kernel_thread_start,
                            reinterpret_cast<uint64_t>(fn), reinterpret_cast<uint64_t>(arg));
  IrqLockGuard guard(sched::lock);
  p->pid = p->tgid = next_pid++;
  p->parent_pid = 0;
  sched::make_ready_locked(p);
  return p->pid;
}

namespace {
// A spawned program joins its spawner's process group and session (init's,
// as the commands of a shell script without job control do: not a group
// leader, so setsid() succeeds as under qemu-alpha started by a harness);
// init, spawned by the kernel, starts both. With sched::lock.
void join_spawner_session_locked(Process* p, uint32_t parent) {
  const Process* spawner = parent != 0 ? find_process_locked(parent) : nullptr;
  const bool join = spawner != nullptr && spawner->group != nullptr;
  p->group->pgid = join ? spawner->group->pgid : p->tgid;
  p->group->sid = join ? spawner->group->sid : p->tgid;
}
}  // namespace

int64_t spawn_user(const char* path, const char* const* argv, uint64_t argc,
                   const char* const* envp, uint64_t envc, uint32_t parent) {
  initrd::File file;
  if (!initrd::find(path, &file)) return -ENOENT;
  if (argc > build::kMaxArgs || envc > build::kMaxEnv) return -E2BIG;
  Process* p = build::allocate_slot();
  if (p == nullptr) return -EAGAIN;
  p->mm = parts::mm_create();
  p->fds = parts::fds_create();
  p->group = parts::group_create();
  build::Image image;
  int error = p->mm && p->fds && p->group ? 0 : ENOMEM;
  if (error == 0) error = build::load_image(p->mm, path, argv, argc, envp, envc, &image);
  if (error != 0) {
    IrqLockGuard guard(sched::lock);
    build::release_slot(p);
    return -error;
  }
  if (parent != 0) give_host_stdin(p->fds);
  copy_name(p->name, sizeof p->name, path);
  set_comm_from_path(p, path);
  p->fp[32] = fp::initial_fpcr();
  p->pcb.ptbr = p->mm->space.l1_phys;
  p->pcb.usp = image.usp;
  p->user_stack_base = image.usp;
  p->pcb.fen = 1;  // newlib code uses the FPU; FP state is switched with the process
  p->exit_signal = signals::kSigChld;
  build::start_in_user_mode(p, image.entry);

  uint32_t pid;
  {
    IrqLockGuard guard(sched::lock);
    pid = p->pid = p->tgid = next_pid++;
    p->parent_pid = parent;
    join_spawner_session_locked(p, parent);
  }
  build::append_image_record(dcpi::LoadKind::kExec, pid, parent, image.program, path);
  if (image.dynamic)
    build::append_image_record(dcpi::LoadKind::kMap, pid, parent, image.interpreter,
                               image.program.interpreter);
  record_thread(dcpi::LoadKind::kThreadName, p, 0);
  record_command(p, argc > 0 ? argv[0] : path);
  {
    IrqLockGuard guard(sched::lock);
    sched::make_ready_locked(p);
  }
  return pid;
}

void exit_current(int64_t wait_status) {
  Process* self = current();
  if (self->idle) panic("the idle thread tried to exit");
  if (self->kernel_thread) exit_kernel_thread();
  {
    // exit_group: every other thread leaves on its way back to user mode
    // (signals::deliver); sleeping ones are woken for it.
    IrqLockGuard guard(sched::lock);
    ThreadGroup* group = self->group;
    if (!group->exiting) {
      group->exiting = true;
      group->exit_status = wait_status;
    }
    make_other_threads_leave_locked(self);
  }
  exit_thread(wait_status);
}

void exit_thread(int64_t wait_status) {
  Process* self = current();
  if (self->kernel_thread) exit_kernel_thread();
  // pthread_join waits for this word to become 0 (CLONE_CHILD_CLEARTID).
  if (self->clear_child_tid != 0) {
    const uint32_t zero = 0;
    if (copy_to_user(self->space(), self->clear_child_tid, &zero, sizeof zero))
      futex::wake(self, self->clear_child_tid, 1);
  }
  build::release_vfork_parent(self);
  // Descriptors close at exit, not when reaped: a reader of a pipe this
  // process writes sees end of file now.
  parts::fds_release(self->fds);
  self->fds = nullptr;
  ThreadGroup* group = self->group;
  bool last;
  int64_t status;
  Process* leader;
  sched::CpuTimes times;
  {
    IrqLockGuard guard(sched::lock);
    sched::take_counts(self);  // its last user events, before its process's kCounts
    last = --group->threads == 0;
    status = group->exiting ? group->exit_status : wait_status;
    leader = find_process_locked(self->tgid);
    times = cpu_time::read_thread_locked(self->cpu_time, clock::cycles());
  }
  // The thread's end for the process table (before its process's kExit).
  record_thread(dcpi::LoadKind::kThreadExit, self, status, &times);
  if (last) locks::release(nullptr, self->tgid);  // its record locks, on every file
  if (last && leader != nullptr) {
    append_counts_record(leader);
    append_exit_record(leader, status);
    if (is_init(self->tgid)) report_init_exit(status);
  }
  IrqLockGuard guard(sched::lock);
  if (last && leader != nullptr) end_group_locked(leader, status);
  // A thread other than the leader is nobody's child: reaped once switched
  // out. The leader stays a zombie until its parent reaps the group.
  if (self->pid != self->tgid || self->parent_pid == 0) self->parent_pid = 0;
  self->state = ProcessState::kZombie;
  // Only the last thread and the leader itself may look at the leader here:
  // once both are done, its parent may reap it at any moment.
  if (leader != nullptr && (last || leader == self)) {
    wake_reaper_locked(leader);
    // An orphan leader that switched out before its group ended was left
    // for this thread (sched::finish_switch reaps only ended groups).
    if (leader != self && leader->state == ProcessState::kZombie && leader->parent_pid == 0)
      build::release_slot(leader);
  }
  sched::schedule_locked();
  panic("a zombie ran again");
}

void kill_current(int signal, const char* what, const char* label, uint64_t value, uint64_t pc) {
  Process* self = current();
  kprintf("dcpi-kernel: pid %u (%s) killed: %s at %s 0x%lx pc 0x%lx\n", self->tgid, self->name,
          what, label, value, pc);
  exit_current(signals::death_status(self, signal));
}

// entMM's MMCSR for a translation fault (the page is not valid).
constexpr uint64_t kTranslationNotValid = 0;

bool fault_in_demand_zero(uint64_t address, uint64_t mmcsr, uint64_t cause) {
  constexpr uint64_t kStore = 1;  // entMM's cause: -1 fetch, 0 load, 1 store
  Process* self = current();
  if (mmcsr != kTranslationNotValid || self->kernel_thread) return false;
  return populate_demand_zero(self->space(), address, cause == kStore);
}

bool grow_user_stack(uint64_t address, uint64_t mmcsr) {
  Process* self = current();
  if (mmcsr != kTranslationNotValid || self->kernel_thread || address >= kUserStackTop ||
      address < kUserStackTop - kUserStackLimit)
    return false;
  const uint64_t page = address & ~(pages::kPageBytes - 1);
  LockGuard guard(self->mm->lock);
  if (user_page_kseg(self->space(), page) != 0) return true;  // another thread grew it
  return map_fresh_user_page(self->space(), page, UserAccess::kReadWrite) != 0;
}

bool process_exists(uint32_t pid) {
  IrqLockGuard guard(sched::lock);
  return find_process_locked(pid) != nullptr;
}

int64_t wait_child(WaitFor who, int64_t* status, uint64_t options) {
  Process* self = current();
  IrqLockGuard guard(sched::lock);
  for (;;) {
    bool any = false;
    for (Process& child : used_slots) {
      // Children belong to the process: any of its threads may reap them.
      if (child.state == ProcessState::kFree || child.parent_pid != self->tgid ||
          child.pid != child.tgid || child.kernel_thread)
        continue;
      if (who.kind == WaitFor::kPid && child.pid != who.id) continue;
      if (who.kind == WaitFor::kGroup && (child.group == nullptr || child.group->pgid != who.id))
        continue;
      any = true;
      if (child.state != ProcessState::kZombie || !child.group->ended) {
        // Alive: maybe stopped or continued since the last wait.
        const int64_t job = child.group ? jobs::take_report_locked(&child, options) : 0;
        if (job == 0) continue;
        *status = job;
        return child.pid;
      }
      if (!(options & kWaitExited)) continue;
      const int64_t reaped = child.pid;
      *status = child.wait_status;
      if (options & kWaitNowait) return reaped;  // still a zombie, for the next wait
      self->child_cycles +=
          (child.group ? group_cycles_locked(child.group) : child.run_cycles) + child.child_cycles;
      if (self->group != nullptr && child.group != nullptr)
        add_child_counts(*self->group, *child.group);
      build::release_slot(&child);
      return reaped;
    }
    if (!any) return -ECHILD;
    if (options & kWaitNohang) return 0;
    if (signals::interrupted(self)) return -EINTR;
    self->waiting = true;
    self->interruptible = true;
    self->state = ProcessState::kBlocked;
    sched::schedule_locked();
    self->waiting = false;
    self->interruptible = false;
  }
}

void wake_waiters_locked(uint32_t tgid) {
  for (Process& p : used_slots) {
    if (p.state == ProcessState::kBlocked && p.waiting && p.tgid == tgid) {
      p.waiting = false;
      sched::make_ready_locked(&p);
    }
  }
}

bool group_orphaned_locked(uint32_t pgid) {
  for (const Process& p : used_slots) {
    if (p.state == ProcessState::kFree || p.pid != p.tgid || p.kernel_thread ||
        p.group == nullptr || p.group->ended || p.group->pgid != pgid)
      continue;
    // Init's group (which a program dcpi run starts joins) stands for the
    // group of a shell or harness whose parent is outside it, as with
    // qemu-alpha run from one: never orphaned.
    if (is_init(p.tgid)) return false;
    if (p.parent_pid == 0 || is_init(p.parent_pid)) continue;
    const Process* parent = find_process_locked(p.parent_pid);
    if (parent != nullptr && parent->group != nullptr && parent->group->pgid != pgid &&
        parent->group->sid == p.group->sid)
      return false;
  }
  return true;
}

bool group_in_session_locked(uint32_t pgid, uint32_t sid) {
  for (const Process& p : used_slots)
    if (p.state != ProcessState::kFree && p.pid == p.tgid && !p.kernel_thread &&
        p.group != nullptr && p.group->pgid == pgid && (sid == 0 || p.group->sid == sid))
      return true;
  return false;
}

int64_t signal_process_group(Process* self, int64_t pgid, int sig) {
  IrqLockGuard guard(sched::lock);
  const uint32_t group = pgid == 0 ? self->group->pgid : static_cast<uint32_t>(pgid);
  bool found = false;
  for (Process& p : used_slots) {
    if (p.state == ProcessState::kFree || p.pid != p.tgid || p.kernel_thread ||
        p.group == nullptr || p.group->threads == 0)
      continue;
    if (pgid == -1 ? (p.tgid == 1 || p.tgid == self->tgid) : p.group->pgid != group) continue;
    found = true;
    if (sig != 0) signals::send_group_locked(&p, sig);
  }
  return found ? 0 : -ESRCH;
}

}  // namespace kernel
