// System call dispatch (numbers in firmware/syscalls.h, semantics in
// kernel/README.md), and the calls about processes and DCPI itself.
#include "kernel/syscalls.h"

#include "driver/driver.h"
#include "firmware/control_block.h"
#include "kernel/console.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/load_map_writer.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/process.h"
#include "kernel/syscall_handlers.h"

namespace kernel::sys {
namespace {

constexpr uint64_t kMaxArgs = 64;
constexpr uint64_t kArgPages = 2;  // 16 KB of argument strings

// Calls a program made that this kernel does not implement: ENOSYS, counted
// per number and reported when init exits (report_unimplemented).
struct Unimplemented {
  uint64_t number;
  uint64_t count;
};
constexpr uint32_t kMaxUnimplemented = 32;
Unimplemented unimplemented[kMaxUnimplemented];
uint32_t unimplemented_kinds = 0;
uint64_t unimplemented_other = 0;  // calls beyond the table's capacity
SpinLock unimplemented_lock;

int64_t not_implemented(Process* self, uint64_t number) {
  bool first = false;
  {
    IrqLockGuard guard(unimplemented_lock);
    uint32_t i = 0;
    while (i < unimplemented_kinds && unimplemented[i].number != number) ++i;
    if (i == unimplemented_kinds && i < kMaxUnimplemented) {
      unimplemented[unimplemented_kinds++] = Unimplemented{number, 0};
      first = true;
    }
    if (i < kMaxUnimplemented)
      ++unimplemented[i].count;
    else
      ++unimplemented_other;
  }
  if (first)
    kprintf("dcpi-kernel: pid %u (%s): system call %lu is not implemented (ENOSYS)\n", self->pid,
            self->name, number);
  return error(ENOSYS);
}

int64_t wait_for_child(Process* self, int64_t pid, uint64_t status_va, uint64_t options) {
  if (status_va != 0 && translate_user(self->space, status_va, true) == 0) return error(EFAULT);
  int64_t status = 0;
  const int64_t reaped = wait_child(pid > 0 ? pid : -1, &status, options);
  if (reaped > 0 && status_va != 0) {
    const int32_t s = static_cast<int32_t>(status);
    if (!copy_to_user(self->space, status_va, &s, sizeof s)) return error(EFAULT);
  }
  return reaped;
}

// Copies a NULL-terminated argv into `strings`; the count, or a negative errno.
int64_t argv_from_user(Process* self, uint64_t argv_va, const char** argv, char* strings,
                       uint64_t capacity) {
  uint64_t used = 0;
  for (uint64_t argc = 0;; ++argc) {
    uint64_t pointer;
    if (!copy_from_user(self->space, &pointer, argv_va + argc * 8, 8)) return error(EFAULT);
    if (pointer == 0) return static_cast<int64_t>(argc);
    if (argc == kMaxArgs) return error(E2BIG);
    const int64_t n = string_from_user(self->space, strings + used, pointer, capacity - used);
    if (n < 0) return error(translate_user(self->space, pointer, false) ? E2BIG : EFAULT);
    argv[argc] = strings + used;
    used += static_cast<uint64_t>(n) + 1;
  }
}

}  // namespace

int64_t path_from_user(Process* self, uint64_t path_va, char (&path)[kMaxPath]) {
  const int64_t length = string_from_user(self->space, path, path_va, kMaxPath);
  if (length >= 0) return 0;
  return error(translate_user(self->space, path_va, false) ? ENAMETOOLONG : EFAULT);
}

void report_unimplemented() {
  IrqLockGuard guard(unimplemented_lock);
  if (unimplemented_kinds == 0) return;
  kprintf("dcpi-kernel: unimplemented system calls (number x calls):");
  for (uint32_t i = 0; i < unimplemented_kinds; ++i)
    kprintf(" %lu x%lu", unimplemented[i].number, unimplemented[i].count);
  if (unimplemented_other) kprintf(" others x%lu", unimplemented_other);
  kprintf("\n");
}

int64_t sys_exit(Process*, TrapFrame*, const Args& args) {
  exit_current(static_cast<int64_t>((args.a[0] & 0xff) << 8));
}

int64_t sys_exit_group(Process* self, TrapFrame* frame, const Args& args) {
  return sys_exit(self, frame, args);
}

int64_t sys_wait4(Process* self, TrapFrame*, const Args& args) {
  return wait_for_child(self, static_cast<int64_t>(args.a[0]), args.a[1], args.a[2]);
}

int64_t sys_spawn(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, args.a[0], path); e < 0) return e;
  const uint64_t buffer = pages::allocate(kArgPages);
  if (buffer == 0) return error(ENOMEM);
  const char* argv[kMaxArgs] = {path};
  int64_t argc = 1;
  if (args.a[1] != 0)
    argc = argv_from_user(self, args.a[1], argv, reinterpret_cast<char*>(buffer),
                          kArgPages << pages::kPageShift);
  const int64_t result =
      argc < 0 ? argc : spawn_user(path, argv, static_cast<uint64_t>(argc), self->pid);
  pages::release(buffer, kArgPages);
  return result;
}

int64_t sys_dcpi_control(Process* self, TrapFrame*, const Args& args) {
  dcpi::ControlBlock request;
  if (!copy_from_user(self->space, &request, args.a[0], sizeof request)) return error(EFAULT);
  // The driver's exact status goes back in the block (firmware/control_block.h);
  // the call's result is 0 or the nearest errno.
  request.status = dcpi::driver::control_from_user(request.command, request.args);
  request.done_sequence = request.request_sequence;
  if (!copy_to_user(self->space, args.a[0], &request, sizeof request)) return error(EFAULT);
  switch (request.status) {
    case dcpi::kControlOk:
      return 0;
    case dcpi::kControlUncountableEvent:
      return error(EOPNOTSUPP);  // the machine cannot count it: not a bad request
    default:
      return error(EINVAL);
  }
}

int64_t sys_kinfo(Process* self, TrapFrame*, const Args& args) {
  switch (args.a[0]) {
    case DCPI_KINFO_FREE_PAGES:
      return static_cast<int64_t>(pages::free_count());
    case DCPI_KINFO_CPU:
      return static_cast<int64_t>(pal::whami());
    case DCPI_KINFO_CPUS_RUNNING_USER:
      return static_cast<int64_t>(cpus_running_user());
    case DCPI_KINFO_LOAD_MAP_COUNT:
      return static_cast<int64_t>(load_map_count());
    case DCPI_KINFO_PRINT_LOAD_MAP:
      load_map_print();
      return static_cast<int64_t>(load_map_count());
    case DCPI_KINFO_CPU_MASK:
      return static_cast<int64_t>(self->cpu_mask);
    default:
      return error(EINVAL);
  }
}

// kill: no signal delivery between processes in this kernel. Signal 0 tests
// that a process exists; a process may kill itself (it ends with that
// signal as its wait status: abort() and raise() work); anything else is EPERM.
int64_t sys_kill(Process* self, TrapFrame*, const Args& args) {
  constexpr int64_t kMaxSignal = 31;
  const auto pid = static_cast<int64_t>(args.a[0]), signal = static_cast<int64_t>(args.a[1]);
  if (signal < 0 || signal > kMaxSignal) return error(EINVAL);
  if (pid <= 0 || !process_exists(static_cast<uint32_t>(pid))) return error(ESRCH);
  if (signal == 0) return 0;
  if (static_cast<uint32_t>(pid) != self->pid) return error(EPERM);
  exit_current(signal);
}

// tgkill(tgid, tid, signal): one thread per process, so tid = pid.
int64_t sys_tgkill(Process* self, TrapFrame* frame, const Args& args) {
  if (args.a[0] != args.a[1]) return error(ESRCH);
  return sys_kill(self, frame, Args{{args.a[1], args.a[2]}});
}

int64_t sys_getxpid(Process* self, TrapFrame* frame, const Args&) {
  frame->reg(20) = self->parent_pid;  // a4
  return self->pid;
}
int64_t sys_getppid(Process* self, TrapFrame*, const Args&) { return self->parent_pid; }
int64_t sys_gettid(Process* self, TrapFrame*, const Args&) { return self->pid; }
// No threads: nobody is woken at exit, so the address is not kept.
int64_t sys_set_tid_address(Process* self, TrapFrame*, const Args&) { return self->pid; }

// One case per number of firmware/syscalls.h's table (-Wswitch-enum).
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch-enum"
void dispatch(TrapFrame* frame) {
  Process* self = current();
  const auto number = static_cast<dcpi_syscall>(frame->reg(0));
  // a0-a2 come from the PALcode's part of the frame, a3-a5 are r19-r21.
  const Args args{
      {frame->a0, frame->a1, frame->a2, frame->reg(19), frame->reg(20), frame->reg(21)}};
  int64_t result;
  switch (number) {
#define DCPI_SYSCALL_CASE(name, value)      \
  case SYS_##name:                          \
    result = sys_##name(self, frame, args); \
    break;
    DCPI_SYSCALLS(DCPI_SYSCALL_CASE)
#undef DCPI_SYSCALL_CASE
    default:
      result = not_implemented(self, frame->reg(0));
      break;
  }
  if (result < 0) {
    frame->reg(0) = static_cast<uint64_t>(-result);
    frame->reg(19) = 1;
  } else {
    frame->reg(0) = static_cast<uint64_t>(result);
    frame->reg(19) = 0;
  }
}
#pragma GCC diagnostic pop

}  // namespace kernel::sys
