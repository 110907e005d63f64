// execve(2): the current process runs a new program from the initrd. The new
// address space is built beside the old one, so a program that cannot load
// leaves the caller running with ENOENT/ENOEXEC/ENOMEM; on success the old
// space is dropped (freed with its last user: a vfork parent still has it),
// handlers are reset, close-on-exec descriptors closed, the vfork parent
// released, and the load map gets a kExec (plus a kMap for the dynamic
// loader) for the same pid, as at spawn: the host starts the pid's images
// afresh (hostdump/load_map_model.h).
#include "driver/kernel_services.h"
#include "kernel/clock.h"
#include "kernel/files.h"
#include "kernel/fp_completion.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/palcalls.h"
#include "kernel/posix_timers.h"
#include "kernel/process_build.h"
#include "kernel/process_parts.h"
#include "kernel/scheduler.h"
#include "kernel/signals.h"
#include "kernel/text.h"

extern "C" void switch_context(kernel::Pcb* next);

namespace kernel {
namespace {

// Runs on the new page tables from now on: swpctx to our own PCB stores
// and reloads ksp, usp and unique unchanged and loads the new ptbr (with a
// TLB flush, PALcode's swpctx).
void switch_address_space(Process* self, Mm* mm) {
  IrqLockGuard guard(sched::lock);
  self->mm = mm;
  self->pcb.ptbr = mm->space.l1_phys;
  switch_context(&self->pcb);
}

// Descriptors: our own table (a vfork child shares its parent's), without
// the close-on-exec ones.
bool close_on_exec(Process* self) {
  if (self->fds->users > 1) {
    FdTable* own = parts::fds_copy(self->fds);
    if (own == nullptr) return false;
    parts::fds_release(self->fds);
    self->fds = own;
  }
  for (uint32_t fd = 0; fd < kMaxFiles; ++fd)
    if (self->fds->cloexec & (uint64_t{1} << fd)) close_file(self->fds, fd);
  self->fds->cloexec = 0;
  return true;
}

// Caught signals go back to their default; ignored ones stay ignored.
void reset_handlers(Process* self) {
  IrqLockGuard guard(sched::lock);
  for (SignalAction& action : self->group->actions) {
    if (action.handler != signals::kSigIgn) action = SignalAction{};
  }
}

// Linux's de_thread: the other threads of the process end before the new
// program starts (they leave at their next return to user mode, as at
// exit_group; sleeping ones are woken). Only the leader may exec from a
// threaded process here (Linux lets any thread, which takes the leader's
// pid). False if they do not all end within a second.
bool end_other_threads(Process* self) {
  constexpr uint64_t kTick = clock::kCyclesPerSecond / 100, kTries = 100;
  IrqLockGuard guard(sched::lock);
  ThreadGroup* group = self->group;
  group->exiting = true;
  group->exit_status = 0;
  make_other_threads_leave_locked(self);
  for (uint64_t tries = 0; group->threads > 1 && tries < kTries; ++tries)
    sched::sleep_locked(clock::cycles() + kTick);  // they leave by themselves
  group->exiting = false;
  return group->threads == 1;
}

}  // namespace

int64_t exec_current(TrapFrame* frame, const char* path, const char* const* argv, uint64_t argc,
                     const char* const* envp, uint64_t envc) {
  Process* self = current();
  if (self->group->threads > 1 && self->pid != self->tgid) return -EBUSY;
  Mm* mm = parts::mm_create();
  if (mm == nullptr) return -ENOMEM;
  build::Image image;
  int error = build::load_image(mm, path, argv, argc, envp, envc, &image);
  // The point of no return: the program loaded, the other threads end.
  if (error == 0 && self->group->threads > 1 && !end_other_threads(self)) error = EBUSY;
  if (error == 0 && !close_on_exec(self)) error = ENOMEM;
  if (error != 0) {
    parts::mm_release(mm);
    return -error;
  }
  Mm* old = self->mm;
  switch_address_space(self, mm);
  parts::mm_release(old);
  build::release_vfork_parent(self);
  reset_handlers(self);
  {  // POSIX timers do not survive exec (Linux's exit_itimers in begin_new_exec)
    IrqLockGuard guard(sched::lock);
    posix_timers::release_group_locked(self->group);
  }
  copy_name(self->name, sizeof self->name, path);
  set_comm_from_path(self, path);
  self->clear_child_tid = 0;
  self->ieee_fp_control = 0;
  self->altstack_sp = self->altstack_size = 0;

  // A fresh user context: every register 0, pv = entry, the new stack,
  // no TLS pointer, FP cleared with round-to-nearest.
  const uint64_t ps = frame->ps;
  *frame = TrapFrame{};
  frame->ps = ps;
  frame->pc = image.entry;
  frame->reg(27) = image.entry;
  pal::wrusp(image.usp);
  self->user_stack_base = image.usp;
  pal::wruniq(0);
  uint64_t fp[33] = {};
  fp[32] = fp::initial_fpcr();
  fp_restore(fp);

  build::append_image_record(dcpi::LoadKind::kExec, self->tgid, self->parent_pid, image.program,
                             path);
  if (image.dynamic)
    build::append_image_record(dcpi::LoadKind::kMap, self->tgid, self->parent_pid,
                               image.interpreter, image.program.interpreter);
  record_thread(dcpi::LoadKind::kThreadName, self, 0);
  record_command(self, argc > 0 ? argv[0] : "");
  return 0;
}

}  // namespace kernel
