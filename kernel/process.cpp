#include "kernel/process.h"

#include "firmware/load_map.h"
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/elf_loader.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/load_map_writer.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/profiler.h"
#include "kernel/scheduler.h"
#include "kernel/syscalls.h"
#include "kernel/text.h"

extern "C" {
void user_thread_start();
void kernel_thread_start();
}

namespace kernel {
namespace {

constexpr uint32_t kMaxProcesses = 64;
constexpr uint64_t kSwitchFrameBytes = 64;  // kernel/switch.S
constexpr uint64_t kFpcrDynNormal = 0x0800000000000000ull;
constexpr uint64_t kMaxArgBytes = 16384;
constexpr int64_t kWnohang = 1;

// Linux/Alpha auxiliary vector tags (what glibc's start-up and ld.so read).
constexpr uint64_t kAtNull = 0, kAtPhdr = 3, kAtPhent = 4, kAtPhnum = 5, kAtPagesz = 6, kAtBase = 7,
                   kAtFlags = 8, kAtEntry = 9, kAtUid = 11, kAtEuid = 12, kAtGid = 13, kAtEgid = 14,
                   kAtClktck = 17, kAtSecure = 23, kAtRandom = 25, kAtExecfn = 31;

Process table[kMaxProcesses];
uint32_t next_pid = 1;
uint32_t init_pid = 0;
uint64_t init_started = 0;  // clock::cycles() when init was spawned
bool halt_after_init = false;

// A free slot with a kernel stack, marked blocked (not yet runnable).
Process* allocate_slot() {
  const uint64_t stack = pages::allocate(kKernelStackPages);
  if (stack == 0) return nullptr;
  IrqLockGuard guard(sched::lock);
  for (Process& p : table) {
    if (p.state != ProcessState::kFree) continue;
    p = Process{};
    p.state = ProcessState::kBlocked;
    p.kernel_stack = stack;
    return &p;
  }
  pages::release(stack, kKernelStackPages);
  return nullptr;
}

void release_slot(Process* p) {
  address_space_destroy(p->space);
  if (p->kernel_stack) pages::release(p->kernel_stack, kKernelStackPages);
  p->kernel_stack = 0;
  p->state = ProcessState::kFree;
}

uint64_t stack_top(const Process* p) {
  return p->kernel_stack + (kKernelStackPages << pages::kPageShift);
}

// Switch frame (s0-s6, ra) at `at`: the thread starts in `start`.
void build_switch_frame(Process* p, uint64_t at, void (*start)(), uint64_t s0, uint64_t s1) {
  auto* frame = reinterpret_cast<uint64_t*>(at);
  for (int i = 0; i < 8; ++i) frame[i] = 0;
  frame[0] = s0;
  frame[1] = s1;
  frame[7] = reinterpret_cast<uint64_t>(start);
  p->pcb.ksp = at;
}

// Linux/Alpha initial stack: argc, argv[], NULL, envp[] (none), NULL, auxv
// pairs ending with AT_NULL; the strings (and AT_RANDOM's 16 bytes) above.
// Returns the user sp or 0.
struct StartInfo {
  const LoadedImage* program;
  const LoadedImage* interpreter;  // nullptr for a static program
  const char* path;
};

uint64_t build_user_stack(Process* p, const char* const* argv, uint64_t argc,
                          const StartInfo& start) {
  static char strings[kMaxArgBytes];  // under spawn_lock
  const uint64_t path_bytes = string_length(start.path) + 1;
  uint64_t string_bytes = 16 + path_bytes;  // AT_RANDOM, AT_EXECFN
  for (uint64_t i = 0; i < argc; ++i) string_bytes += string_length(argv[i]) + 1;
  if (string_bytes > kMaxArgBytes) return 0;
  const uint64_t strings_va = (kUserStackTop - string_bytes) & ~uint64_t{15};
  const uint64_t random[2] = {clock::random_word(), clock::random_word()};
  __builtin_memcpy(strings, random, 16);
  __builtin_memcpy(strings + 16, start.path, path_bytes);
  uint64_t vector[2 + 64 + 40];
  uint64_t n = 0, offset = 16 + path_bytes;
  vector[n++] = argc;
  for (uint64_t i = 0; i < argc; ++i) {
    vector[n++] = strings_va + offset;
    const uint64_t length = string_length(argv[i]) + 1;
    __builtin_memcpy(strings + offset, argv[i], length);
    offset += length;
  }
  vector[n++] = 0;  // end of argv
  vector[n++] = 0;  // end of envp
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
  if (!copy_to_user(p->space, strings_va, strings, string_bytes) ||
      !copy_to_user(p->space, sp, vector, n * 8))
    return 0;
  return sp;
}

SpinLock spawn_lock;  // the argument staging buffer

}  // namespace

namespace sched {
void reap_locked(Process* p) { release_slot(p); }
}  // namespace sched

void set_init_pid(uint32_t pid, bool halt_when_done) {
  init_started = clock::cycles();
  init_pid = pid;
  halt_after_init = halt_when_done;
}

bool is_init(uint32_t pid) { return pid != 0 && pid == init_pid; }

uint32_t spawn_kernel_thread(void (*fn)(void*), void* arg, const char* name) {
  Process* p = allocate_slot();
  if (p == nullptr) return 0;
  p->kernel_thread = true;
  p->pcb.ptbr = sched::kernel_ptbr();
  copy_name(p->name, sizeof p->name, name);
  build_switch_frame(p, stack_top(p) - kSwitchFrameBytes, kernel_thread_start,
                     reinterpret_cast<uint64_t>(fn), reinterpret_cast<uint64_t>(arg));
  IrqLockGuard guard(sched::lock);
  p->pid = next_pid++;
  p->parent_pid = 0;
  sched::make_ready_locked(p);
  return p->pid;
}

namespace {

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

// Loads the program and, for a dynamically linked one, its interpreter
// (PT_INTERP, e.g. /lib/ld-linux.so.2) at kMmapBase. 0 or a positive errno;
// the console says why a program could not run.
int load_program(Process* p, const char* path, const initrd::File& file, LoadedImage* program,
                 LoadedImage* interpreter) {
  int error =
      load_elf(p->space, reinterpret_cast<const uint8_t*>(file.data), file.size, kPieBase, program);
  if (error != 0) {
    kprintf("dcpi-kernel: cannot run %s: %s\n", path, program->failure);
    return error;
  }
  p->mmap_next = kMmapBase;
  if (program->interpreter[0] == 0) return 0;
  initrd::File interp;
  if (!initrd::find(program->interpreter, &interp)) {
    kprintf("dcpi-kernel: cannot run %s: its interpreter %s is not in the initrd\n", path,
            program->interpreter);
    return ENOENT;
  }
  error = load_elf(p->space, reinterpret_cast<const uint8_t*>(interp.data), interp.size, kMmapBase,
                   interpreter);
  if (error != 0) {
    kprintf("dcpi-kernel: cannot run %s: interpreter %s: %s\n", path, program->interpreter,
            interpreter->failure);
    return error;
  }
  const uint64_t end = interpreter->high + interpreter->bias;
  p->mmap_next = (end + pages::kPageBytes - 1) & ~(pages::kPageBytes - 1);
  return 0;
}

}  // namespace

int64_t spawn_user(const char* path, const char* const* argv, uint64_t argc, uint32_t parent) {
  initrd::File file;
  if (!initrd::find(path, &file)) return -ENOENT;
  if (argc > 64) return -E2BIG;
  Process* p = allocate_slot();
  if (p == nullptr) return -EAGAIN;
  LoadedImage image, interpreter;
  int error = address_space_create(p->space) ? 0 : ENOMEM;
  if (error == 0) error = load_program(p, path, file, &image, &interpreter);
  const bool dynamic = error == 0 && image.interpreter[0] != 0;
  for (uint64_t va = kUserStackTop - kUserStackBytes; error == 0 && va < kUserStackTop;
       va += pages::kPageBytes)
    if (map_user_page(p->space, va, true) == 0) error = ENOMEM;
  uint64_t usp = 0;
  if (error == 0) {
    LockGuard guard(spawn_lock);
    usp =
        build_user_stack(p, argv, argc, StartInfo{&image, dynamic ? &interpreter : nullptr, path});
    if (usp == 0) error = E2BIG;
  }
  if (error != 0) {
    IrqLockGuard guard(sched::lock);
    release_slot(p);
    return -error;
  }
  const uint64_t image_end = image.high + image.bias;
  p->brk_start = p->brk = (image_end + pages::kPageBytes - 1) & ~(pages::kPageBytes - 1);
  p->files[0].kind = p->files[1].kind = p->files[2].kind = OpenFile::kConsole;
  copy_name(p->name, sizeof p->name, path);
  p->fp[32] = kFpcrDynNormal;
  p->pcb.ptbr = p->space.l1_phys;
  p->pcb.usp = usp;
  p->pcb.fen = 1;  // newlib code uses the FPU; FP state is switched with the process

  // The user context it starts in: a trap frame that returns to the entry
  // (the dynamic loader's for a dynamically linked program).
  const uint64_t entry = dynamic ? interpreter.entry : image.entry;
  const uint64_t frame_at = stack_top(p) - sizeof(TrapFrame);
  auto* frame = reinterpret_cast<TrapFrame*>(frame_at);
  *frame = TrapFrame{};
  frame->ps = PS_USER_MODE;
  frame->pc = entry;
  frame->reg(27) = entry;
  build_switch_frame(p, frame_at - kSwitchFrameBytes, user_thread_start, 0, 0);

  uint32_t pid;
  {
    IrqLockGuard guard(sched::lock);
    pid = p->pid = next_pid++;
    p->parent_pid = parent;
  }
  append_image_record(dcpi::LoadKind::kExec, pid, parent, image, path);
  if (dynamic)
    append_image_record(dcpi::LoadKind::kMap, pid, parent, interpreter, image.interpreter);
  {
    IrqLockGuard guard(sched::lock);
    sched::make_ready_locked(p);
  }
  return pid;
}

void exit_current(int64_t wait_status) {
  Process* self = current();
  if (self->idle) panic("the idle thread tried to exit");
  dcpi::LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(dcpi::LoadKind::kExit);
  record.pid = self->pid;
  record.parent_pid = self->parent_pid;
  record.exit_status = wait_status;
  copy_name(record.path, sizeof record.path, self->name);
  load_map_append(record);
  if (self->pid == init_pid && init_pid != 0) {
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
    kprintf("DCPI-DONE\n");
    if (halt_after_init) pal::halt();
  }
  IrqLockGuard guard(sched::lock);
  for (Process& child : table) {
    if (child.state == ProcessState::kFree || child.parent_pid != self->pid || &child == self)
      continue;
    child.parent_pid = 0;
    if (child.state == ProcessState::kZombie) release_slot(&child);
  }
  self->wait_status = wait_status;
  self->state = ProcessState::kZombie;
  for (Process& parent : table) {
    if (parent.state == ProcessState::kBlocked && parent.waiting &&
        parent.pid == self->parent_pid) {
      parent.waiting = false;
      sched::make_ready_locked(&parent);
    }
  }
  sched::schedule_locked();
  panic("a zombie ran again");
}

void kill_current(int signal, const char* what, const char* label, uint64_t value, uint64_t pc) {
  Process* self = current();
  kprintf("dcpi-kernel: pid %u (%s) killed: %s at %s 0x%lx pc 0x%lx\n", self->pid, self->name, what,
          label, value, pc);
  exit_current(signal);
}

bool grow_user_stack(uint64_t address, uint64_t mmcsr) {
  constexpr uint64_t kTranslationNotValid = 0;
  Process* self = current();
  if (mmcsr != kTranslationNotValid || self->kernel_thread || address >= kUserStackTop ||
      address < kUserStackTop - kUserStackLimit)
    return false;
  const uint64_t page = address & ~(pages::kPageBytes - 1);
  if (user_page_kseg(self->space, page) != 0) return false;
  return map_fresh_user_page(self->space, page, UserAccess::kReadWrite) != 0;
}

bool process_exists(uint32_t pid) {
  IrqLockGuard guard(sched::lock);
  for (const Process& p : table)
    if (p.state != ProcessState::kFree && p.pid == pid) return true;
  return false;
}

int64_t wait_child(int64_t pid, int64_t* status, uint64_t options) {
  Process* self = current();
  IrqLockGuard guard(sched::lock);
  for (;;) {
    bool any = false;
    for (Process& child : table) {
      if (child.state == ProcessState::kFree || child.parent_pid != self->pid || child.pid == 0)
        continue;
      if (pid != -1 && static_cast<int64_t>(child.pid) != pid) continue;
      any = true;
      if (child.state != ProcessState::kZombie) continue;
      const int64_t reaped = child.pid;
      *status = child.wait_status;
      self->child_cycles += child.run_cycles + child.child_cycles;
      release_slot(&child);
      return reaped;
    }
    if (!any) return -ECHILD;
    if (options & kWnohang) return 0;
    self->waiting = true;
    self->state = ProcessState::kBlocked;
    sched::schedule_locked();
  }
}

}  // namespace kernel
