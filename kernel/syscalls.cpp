// System call dispatch (numbers in firmware/syscalls.h, semantics in
// kernel/README.md), and DCPI's own calls (spawn, dcpi_control, kinfo).
#include "kernel/syscalls.h"

#include "driver/driver.h"
#include "firmware/control_block.h"
#include "kernel/console.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/load_map_writer.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/path_walk.h"
#include "kernel/process.h"
#include "kernel/process_build.h"
#include "kernel/syscall_handlers.h"
#include "kernel/syscall_names.h"
#include "kernel/text.h"

namespace kernel::sys {
namespace {

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
    kprintf("dcpi-kernel: pid %u (%s): system call %s (%lu) is not implemented (ENOSYS)\n",
            self->tgid, self->name, syscall_name(number), number);
  return error(ENOSYS);
}

}  // namespace

int64_t raw_path_from_user(Process* self, uint64_t path_va, char (&path)[kMaxPath]) {
  const int64_t length = string_from_user(self->space(), path, path_va, kMaxPath);
  if (length < 0)
    return error(translate_user(self->space(), path_va, false) ? ENAMETOOLONG : EFAULT);
  return 0;
}

int64_t resolve_in(const char* directory, char (&path)[kMaxPath], FollowLast follow_last) {
  if (path[0] == 0) return 0;  // ENOENT, or AT_EMPTY_PATH's own file: the caller's
  char resolved[kMaxPath];
  if (const int e = walk_path(directory, path, follow_last, resolved, kMaxPath)) return error(e);
  copy_name(path, kMaxPath, resolved);
  return 0;
}

void follow_self_exe(const Process* self, char (&path)[kMaxPath], FollowLast follow_last) {
  if (follow_last == kFollow && same_string(path, "/proc/self/exe"))
    copy_name(path, kMaxPath, self->name);  // the program's path as exec'd
}

int64_t path_from_user(Process* self, uint64_t path_va, char (&path)[kMaxPath],
                       FollowLast follow_last) {
  if (const int64_t e = raw_path_from_user(self, path_va, path); e < 0) return e;
  // Relative to "/" (the file systems' own rule) unless a chdir moved the
  // working directory: then made absolute here, once, for every call.
  if (const int64_t e = resolve_in(self->group ? self->group->cwd : "", path, follow_last); e < 0)
    return e;
  follow_self_exe(self, path, follow_last);
  return 0;
}

void report_unimplemented() {
  IrqLockGuard guard(unimplemented_lock);
  if (unimplemented_kinds == 0) return;
  kprintf("dcpi-kernel: unimplemented system calls (name (number) x calls):");
  for (uint32_t i = 0; i < unimplemented_kinds; ++i)
    kprintf(" %s (%lu) x%lu", syscall_name(unimplemented[i].number), unimplemented[i].number,
            unimplemented[i].count);
  if (unimplemented_other) kprintf(" others x%lu", unimplemented_other);
  kprintf("\n");
}

// spawn(path, argv, envp): a new process running `path` (no fork and exec:
// init's children). NULL argv: just the path; NULL envp: no environment.
int64_t sys_spawn(Process* self, TrapFrame*, const Args& args) {
  char path[kMaxPath];
  if (const int64_t e = path_from_user(self, args.a[0], path); e < 0) return e;
  const uint64_t buffer = pages::allocate(kArgPages);
  if (buffer == 0) return error(ENOMEM);
  auto* strings = reinterpret_cast<char*>(buffer);
  const uint64_t capacity = kArgPages << pages::kPageShift;
  const char* argv[build::kMaxArgs] = {path};
  const char* envp[build::kMaxEnv];
  uint64_t used = 0;
  int64_t argc = 1;
  if (args.a[1] != 0)
    argc = vector_from_user(self, args.a[1], argv, build::kMaxArgs, strings, capacity, &used);
  const int64_t envc =
      argc < 0 ? 0
               : vector_from_user(self, args.a[2], envp, build::kMaxEnv, strings, capacity, &used);
  int64_t result = argc < 0 ? argc : envc;
  if (result >= 0)
    result = spawn_user(path, argv, static_cast<uint64_t>(argc), envp, static_cast<uint64_t>(envc),
                        self->tgid);
  pages::release(buffer, kArgPages);
  return result;
}

int64_t sys_dcpi_control(Process* self, TrapFrame*, const Args& args) {
  dcpi::ControlBlock request;
  if (!copy_from_user(self->space(), &request, args.a[0], sizeof request)) return error(EFAULT);
  // The driver's exact status goes back in the block (firmware/control_block.h);
  // the call's result is 0 or the nearest errno.
  request.status = dcpi::driver::control_from_user(request.command, request.args);
  request.done_sequence = request.request_sequence;
  if (!copy_to_user(self->space(), args.a[0], &request, sizeof request)) return error(EFAULT);
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
  self->restart_number = 0;             // only the call just made may be restarted
  if (result == kRegistersSet) return;  // sigreturn, execve
  if (result < 0) {
    // A call a signal interrupted: restarted if the handler has SA_RESTART
    // (signals::deliver needs the number and a3, which the result overwrites).
    self->restart_number = result == error(EINTR) ? static_cast<uint64_t>(number) : 0;
    self->restart_a3 = args.a[3];
    frame->reg(0) = static_cast<uint64_t>(-result);
    frame->reg(19) = 1;
  } else {
    frame->reg(0) = static_cast<uint64_t>(result);
    frame->reg(19) = 0;
  }
}
#pragma GCC diagnostic pop

}  // namespace kernel::sys
