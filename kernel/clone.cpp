// clone(2) with the flags glibc uses: NPTL's pthread_create (CLONE_VM |
// CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
// CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID), fork (SIGCHLD |
// CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID) and posix_spawn's vfork
// (CLONE_VM | CLONE_VFORK | SIGCHLD). The child returns from the same trap
// with v0 = 0 and a4 = 1 (Linux/Alpha's copy_thread: the OSF/1 fork
// convention), the parent with the child's tid and a4 = 0.
#include "driver/kernel_services.h"
#include "kernel/irq_lock.h"
#include "kernel/linux_errno.h"
#include "kernel/load_map_writer.h"
#include "kernel/palcalls.h"
#include "kernel/process_build.h"
#include "kernel/process_parts.h"
#include "kernel/scheduler.h"
#include "kernel/text.h"

extern "C" void user_thread_start();

namespace kernel {
namespace {

// linux/sched.h
constexpr uint64_t kCloneVm = 0x100, kCloneFs = 0x200, kCloneFiles = 0x400, kCloneSighand = 0x800,
                   kCloneVfork = 0x4000, kCloneParent = 0x8000, kCloneThread = 0x10000,
                   kCloneSysvsem = 0x40000, kCloneSettls = 0x80000, kCloneParentSettid = 0x100000,
                   kCloneChildCleartid = 0x200000, kCloneDetached = 0x400000,
                   kCloneChildSettid = 0x1000000;
constexpr uint64_t kSignalMask = 0xff;
constexpr uint64_t kSupported = kSignalMask | kCloneVm | kCloneFs | kCloneFiles | kCloneSighand |
                                kCloneVfork | kCloneParent | kCloneThread | kCloneSysvsem |
                                kCloneSettls | kCloneParentSettid | kCloneChildCleartid |
                                kCloneDetached | kCloneChildSettid;

// Linux's own rules (kernel/fork.c copy_process).
bool flags_valid(uint64_t flags) {
  if (flags & ~kSupported) return false;
  if ((flags & kCloneThread) && !(flags & kCloneSighand)) return false;
  if ((flags & kCloneSighand) && !(flags & kCloneVm)) return false;
  if ((flags & kCloneThread) && (flags & kSignalMask)) return false;
  return (flags & kSignalMask) <= kSignals;
}

// The child's mm, descriptors and thread group: shared or copied.
bool take_parts(Process* self, Process* child, uint64_t flags) {
  if (flags & kCloneVm) {
    parts::mm_hold(self->mm);
    child->mm = self->mm;
  } else {
    child->mm = parts::mm_copy(self->mm);
  }
  if (flags & kCloneFiles) {
    parts::fds_hold(self->fds);
    child->fds = self->fds;
  } else {
    child->fds = parts::fds_copy(self->fds);
  }
  if (flags & kCloneThread) {
    child->group = self->group;
    IrqLockGuard guard(sched::lock);
    parts::group_hold(self->group);
    ++self->group->threads;
  } else {
    child->group = parts::group_copy(self->group);
  }
  return child->mm && child->fds && child->group;
}

// The child's registers: the parent's at the trap, v0 = 0, a3 = 0 (no
// error), a4 = 1; its own user sp, TLS pointer and FP state.
void copy_context(Process* self, Process* child, const TrapFrame* frame,
                  const CloneRequest& request) {
  const uint64_t frame_at = build::stack_top(child) - sizeof(TrapFrame);
  auto* child_frame = reinterpret_cast<TrapFrame*>(frame_at);
  *child_frame = *frame;
  child_frame->reg(0) = 0;
  child_frame->reg(19) = 0;
  child_frame->reg(20) = 1;
  build::build_switch_frame(child, frame_at - build::kSwitchFrameBytes, user_thread_start, 0, 0);
  child->pcb.ptbr = child->mm->space.l1_phys;
  child->pcb.usp = request.stack ? request.stack : pal::rdusp();
  child->user_stack_base = request.stack ? request.stack : self->user_stack_base;
  child->pcb.unique = (request.flags & kCloneSettls) ? request.tls : pal::rduniq();
  child->pcb.fen = 1;
  fp_save(child->fp);
  fp_restore(child->fp);  // fp_save clobbers f0; the parent's FP state is preserved
  child->ieee_fp_control = self->ieee_fp_control;
  if (!(request.flags & kCloneVm)) {  // as Linux: a thread starts without one
    child->altstack_sp = self->altstack_sp;
    child->altstack_size = self->altstack_size;
  }
  child->blocked = self->blocked;
  child->allowed_cpus = self->allowed_cpus;
  child->nice = self->nice;
  child->sched_policy = self->sched_policy;
  copy_name(child->name, sizeof child->name, self->name);
  copy_name(child->comm, sizeof child->comm, self->comm);
}

// A new process inherits its parent's images: one kFork record tells the
// host to copy the parent's mappings (hostdump/load_map_model.cpp).
void append_fork_record(const Process* child, uint32_t parent) {
  dcpi::LoadMapRecord record{};
  record.kind = static_cast<uint32_t>(dcpi::LoadKind::kFork);
  record.pid = child->tgid;
  record.parent_pid = parent;
  copy_name(record.path, sizeof record.path, child->name);
  load_map_append(record);
}

}  // namespace

namespace build {

void release_vfork_parent(Process* child) {
  IrqLockGuard guard(sched::lock);
  if (child->vfork_waiter == 0) return;
  Process* parent = find_thread_locked(child->vfork_waiter);
  child->vfork_waiter = 0;
  if (parent != nullptr && parent->state == ProcessState::kBlocked)
    sched::make_ready_locked(parent);
}

}  // namespace build

int64_t clone_current(const TrapFrame* frame, const CloneRequest& request) {
  Process* self = current();
  const uint64_t flags = request.flags;
  if (!flags_valid(flags)) return -EINVAL;
  Process* child = build::allocate_slot();
  if (child == nullptr) return -EAGAIN;
  if (!take_parts(self, child, flags)) {
    IrqLockGuard guard(sched::lock);
    if ((flags & kCloneThread) && child->group) --child->group->threads;
    build::release_slot(child);
    return -ENOMEM;
  }
  copy_context(self, child, frame, request);
  uint32_t tid;
  {
    IrqLockGuard guard(sched::lock);
    tid = child->pid = build::next_pid_locked();
    const bool thread = flags & kCloneThread;
    child->tgid = thread ? self->tgid : tid;
    // A thread is nobody's child (reaped when it exits); a process is its
    // creator's (or, with CLONE_PARENT, its creator's parent's).
    child->parent_pid = thread ? 0 : (flags & kCloneParent) ? self->parent_pid : self->tgid;
    child->exit_signal = thread ? 0 : static_cast<uint32_t>(flags & kSignalMask);
  }
  // The tid words, before the child can run.
  const uint32_t tid32 = tid;
  // As Linux, a bad pointer here is not an error (put_user's result is not checked).
  if (flags & kCloneParentSettid) (void)copy_to_user(self->space(), request.parent_tid, &tid32, 4);
  if (flags & kCloneChildSettid) (void)copy_to_user(child->space(), request.child_tid, &tid32, 4);
  if (flags & kCloneChildCleartid) child->clear_child_tid = request.child_tid;
  if (!(flags & kCloneThread)) append_fork_record(child, self->tgid);
  // The process table (issue 29): a thread's process, a new process's name.
  record_thread((flags & kCloneThread) ? dcpi::LoadKind::kThread : dcpi::LoadKind::kThreadName,
                child, 0);
  IrqLockGuard guard(sched::lock);
  if (flags & kCloneVfork) child->vfork_waiter = self->pid;
  sched::make_ready_locked(child);
  // vfork: the parent waits until the child has exec'd or exited (it
  // borrows our address space and stack until then).
  while (child->vfork_waiter == self->pid && child->pid == tid) {
    self->state = ProcessState::kBlocked;
    sched::schedule_locked();
  }
  return tid;
}

}  // namespace kernel
