// System call dispatch (numbers in firmware/syscalls.h, semantics in kernel/README.md).
#include "kernel/syscalls.h"

#include "driver/driver.h"
#include "firmware/control_block.h"
#include "kernel/clock.h"
#include "kernel/console.h"
#include "kernel/errno.h"
#include "kernel/load_map_writer.h"
#include "kernel/page_alloc.h"
#include "kernel/palcalls.h"
#include "kernel/process.h"
#include "kernel/udiv.h"

namespace kernel::sys {
namespace {

using clock::kCyclesPerSecond;  // RPCC: virtual ns / 4
constexpr uint64_t kMaxPath = 256;
constexpr uint64_t kMaxArgs = 64;
constexpr uint64_t kArgPages = 2;  // 16 KB of argument strings
constexpr uint32_t kModeCharDevice = 0020620;

int64_t error(int e) { return -static_cast<int64_t>(e); }

OpenFile* file_of(Process* self, uint64_t fd) {
  if (fd >= kMaxFiles || self->files[fd].kind == OpenFile::kNone) return nullptr;
  return &self->files[fd];
}

int64_t sys_read(Process* self, uint64_t fd, uint64_t buffer, uint64_t count) {
  OpenFile* f = file_of(self, fd);
  if (f == nullptr) return error(EBADF);
  if (f->kind == OpenFile::kConsole) return 0;  // no console input: end of file
  if (f->offset >= f->file.size) return 0;
  const uint64_t left = f->file.size - f->offset;
  if (count > left) count = left;
  if (!copy_to_user(self->space, buffer, f->file.data + f->offset, count)) return error(EFAULT);
  f->offset += count;
  return static_cast<int64_t>(count);
}

int64_t sys_write(Process* self, uint64_t fd, uint64_t buffer, uint64_t count) {
  OpenFile* f = file_of(self, fd);
  if (f == nullptr || f->kind != OpenFile::kConsole) return error(EBADF);
  char chunk[256];
  for (uint64_t done = 0; done < count;) {
    const uint64_t n = count - done < sizeof chunk ? count - done : sizeof chunk;
    if (!copy_from_user(self->space, chunk, buffer + done, n))
      return done ? static_cast<int64_t>(done) : error(EFAULT);
    console_write(chunk, n);
    done += n;
  }
  return static_cast<int64_t>(count);
}

int64_t sys_open(Process* self, uint64_t path_va, int64_t flags) {
  char path[kMaxPath];
  const int64_t length = string_from_user(self->space, path, path_va, sizeof path);
  if (length < 0) return error(translate_user(self->space, path_va, false) ? ENAMETOOLONG : EFAULT);
  initrd::File file;
  const bool found = initrd::find(path, &file);
  if ((flags & LINUX_O_ACCMODE) != 0 || (flags & (LINUX_O_CREAT | LINUX_O_TRUNC)))
    return error(found ? EROFS : EACCES);
  if (!found) return error(ENOENT);
  for (uint64_t fd = 0; fd < kMaxFiles; ++fd) {
    if (self->files[fd].kind != OpenFile::kNone) continue;
    self->files[fd] = OpenFile{OpenFile::kInitrd, file, 0};
    return static_cast<int64_t>(fd);
  }
  return error(EMFILE);
}

int64_t sys_close(Process* self, uint64_t fd) {
  OpenFile* f = file_of(self, fd);
  if (f == nullptr) return error(EBADF);
  f->kind = OpenFile::kNone;
  return 0;
}

int64_t sys_lseek(Process* self, uint64_t fd, int64_t offset, uint64_t whence) {
  OpenFile* f = file_of(self, fd);
  if (f == nullptr) return error(EBADF);
  if (f->kind == OpenFile::kConsole) return error(ESPIPE);
  int64_t base;
  switch (whence) {
    case 0:
      base = 0;
      break;
    case 1:
      base = static_cast<int64_t>(f->offset);
      break;
    case 2:
      base = static_cast<int64_t>(f->file.size);
      break;
    default:
      return error(EINVAL);
  }
  if (base + offset < 0) return error(EINVAL);
  f->offset = static_cast<uint64_t>(base + offset);
  return base + offset;
}

int64_t sys_fstat(Process* self, uint64_t fd, uint64_t buffer) {
  OpenFile* f = file_of(self, fd);
  if (f == nullptr) return error(EBADF);
  linux_alpha_stat st{};  // Linux/Alpha layout: firmware/syscalls.h
  st.st_nlink = 1;
  st.st_blksize = pages::kPageBytes;
  if (f->kind == OpenFile::kConsole) {
    st.st_mode = kModeCharDevice;
    st.st_rdev = (4 << 8) | 64;  // like /dev/ttyS0
  } else {
    st.st_mode = f->file.mode;
    st.st_size = static_cast<int64_t>(f->file.size);
    st.st_blocks = static_cast<uint32_t>((f->file.size + 511) >> 9);
    st.st_ino = static_cast<uint32_t>(reinterpret_cast<uint64_t>(f->file.data) >> 2);
  }
  if (!copy_to_user(self->space, buffer, &st, sizeof st)) return error(EFAULT);
  return 0;
}

int64_t sys_brk(Process* self, uint64_t wanted) {
  if (wanted < self->brk_start || wanted > kHeapLimit) return static_cast<int64_t>(self->brk);
  const uint64_t mask = pages::kPageBytes - 1;
  for (uint64_t va = (self->brk + mask) & ~mask; va < wanted; va += pages::kPageBytes)
    if (map_user_page(self->space, va, true) == 0) return static_cast<int64_t>(self->brk);
  self->brk = wanted;
  return static_cast<int64_t>(wanted);
}

uint64_t cycles_to_ticks(uint64_t cycles) {
  return udiv(cycles, kCyclesPerSecond / kTicksPerSecond);
}

int64_t sys_times(Process* self, uint64_t buffer) {
  const uint64_t now = clock::cycles();
  const uint64_t tms[4] = {cycles_to_ticks(self->run_cycles + (now - self->switched_in)), 0,
                           cycles_to_ticks(self->child_cycles), 0};
  if (buffer != 0 && !copy_to_user(self->space, buffer, tms, sizeof tms)) return error(EFAULT);
  return static_cast<int64_t>(cycles_to_ticks(now));
}

int64_t sys_gettimeofday(Process* self, uint64_t tv, uint64_t tz) {
  const uint64_t usec_total = udiv(clock::cycles(), kCyclesPerSecond / 1'000'000);
  uint64_t usec;
  const uint64_t sec = udiv(usec_total, 1'000'000, &usec);
  const uint64_t timeval[2] = {sec, usec};
  const uint32_t timezone[2] = {0, 0};
  if (tv != 0 && !copy_to_user(self->space, tv, timeval, sizeof timeval)) return error(EFAULT);
  if (tz != 0 && !copy_to_user(self->space, tz, timezone, sizeof timezone)) return error(EFAULT);
  return 0;
}

int64_t sys_wait4(Process* self, int64_t pid, uint64_t status_va, uint64_t options) {
  if (status_va != 0 && translate_user(self->space, status_va, true) == 0) return error(EFAULT);
  int64_t status = 0;
  const int64_t reaped = wait_child(pid > 0 ? pid : -1, &status, options);
  if (reaped > 0 && status_va != 0) {
    const int32_t s = static_cast<int32_t>(status);
    if (!copy_to_user(self->space, status_va, &s, sizeof s)) return error(EFAULT);
  }
  return reaped;
}

int64_t sys_spawn(Process* self, uint64_t path_va, uint64_t argv_va) {
  char path[kMaxPath];
  const int64_t length = string_from_user(self->space, path, path_va, sizeof path);
  if (length < 0) return error(translate_user(self->space, path_va, false) ? ENAMETOOLONG : EFAULT);
  const uint64_t buffer = pages::allocate(kArgPages);
  if (buffer == 0) return error(ENOMEM);
  char* strings = reinterpret_cast<char*>(buffer);
  const uint64_t capacity = kArgPages << pages::kPageShift;
  const char* argv[kMaxArgs];
  uint64_t argc = 0, used = 0;
  int64_t result = 0;
  if (argv_va == 0) {
    argv[argc++] = path;
  } else {
    for (;; ++argc) {
      uint64_t pointer;
      if (!copy_from_user(self->space, &pointer, argv_va + argc * 8, 8)) {
        result = error(EFAULT);
        break;
      }
      if (pointer == 0) break;
      if (argc == kMaxArgs) {
        result = error(E2BIG);
        break;
      }
      const int64_t n = string_from_user(self->space, strings + used, pointer, capacity - used);
      if (n < 0) {
        result = error(translate_user(self->space, pointer, false) ? E2BIG : EFAULT);
        break;
      }
      argv[argc] = strings + used;
      used += static_cast<uint64_t>(n) + 1;
    }
  }
  if (result == 0) result = spawn_user(path, argv, argc, self->pid);
  pages::release(buffer, kArgPages);
  return result;
}

int64_t sys_dcpi_control(Process* self, uint64_t request_va) {
  dcpi::ControlBlock request;
  if (!copy_from_user(self->space, &request, request_va, sizeof request)) return error(EFAULT);
  // The driver's exact status goes back in the block (firmware/control_block.h);
  // the call's result is 0 or the nearest errno.
  request.status = dcpi::driver::control_from_user(request.command, request.args);
  request.done_sequence = request.request_sequence;
  if (!copy_to_user(self->space, request_va, &request, sizeof request)) return error(EFAULT);
  switch (request.status) {
    case dcpi::kControlOk:
      return 0;
    case dcpi::kControlUncountableEvent:
      return error(EOPNOTSUPP);  // the machine cannot count it: not a bad request
    default:
      return error(EINVAL);
  }
}

int64_t sys_kernel_info(Process* self, uint64_t what) {
  switch (what) {
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

}  // namespace

// kill: no signal delivery between processes in this kernel. Signal 0 tests
// that a process exists; a process may kill itself (it ends with that
// signal as its wait status); anything else is EPERM.
int64_t sys_kill(Process* self, int64_t pid, int64_t signal) {
  constexpr int64_t kMaxSignal = 31;
  if (signal < 0 || signal > kMaxSignal) return error(EINVAL);
  if (pid <= 0 || !process_exists(static_cast<uint32_t>(pid))) return error(ESRCH);
  if (signal == 0) return 0;
  if (static_cast<uint32_t>(pid) != self->pid) return error(EPERM);
  exit_current(signal);
}

// One case for each number of firmware/syscalls.h's table: -Wswitch-enum
// makes a number without a case a compile error.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch-enum"
void dispatch(TrapFrame* frame) {
  Process* self = current();
  const auto number = static_cast<dcpi_syscall>(frame->reg(0));
  const uint64_t a0 = frame->a0, a1 = frame->a1, a2 = frame->a2;
  const uint64_t a3 = frame->reg(19);
  int64_t result;
  switch (number) {
    case SYS_exit:
    case SYS_exit_group:
      exit_current(static_cast<int64_t>((a0 & 0xff) << 8));
    case SYS_read:
      result = sys_read(self, a0, a1, a2);
      break;
    case SYS_write:
      result = sys_write(self, a0, a1, a2);
      break;
    case SYS_close:
      result = sys_close(self, a0);
      break;
    case SYS_brk:
      result = sys_brk(self, a0);
      break;
    case SYS_lseek:
      result = sys_lseek(self, a0, static_cast<int64_t>(a1), a2);
      break;
    case SYS_getxpid:
      frame->reg(20) = self->parent_pid;
      result = self->pid;
      break;
    case SYS_open:
      result = sys_open(self, a0, static_cast<int64_t>(a1));
      break;
    case SYS_fstat:
      result = sys_fstat(self, a0, a1);
      break;
    case SYS_times:
      result = sys_times(self, a0);
      break;
    case SYS_gettimeofday:
      result = sys_gettimeofday(self, a0, a1);
      break;
    case SYS_wait4:
      result = sys_wait4(self, static_cast<int64_t>(a0), a1, a2);
      break;
    case SYS_spawn:
      result = sys_spawn(self, a0, a1);
      break;
    case SYS_dcpi_control:
      result = sys_dcpi_control(self, a0);
      break;
    case SYS_kinfo:
      result = sys_kernel_info(self, a0);
      break;
    case SYS_kill:
      result = sys_kill(self, static_cast<int64_t>(a0), static_cast<int64_t>(a1));
      break;
    default:
      result = error(ENOSYS);
      break;
  }
  (void)a3;
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
