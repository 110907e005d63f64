/* newlib's OS layer (the libgloss-style _write, _sbrk, ...) on the DCPI
   kernel's system calls, which are Linux/Alpha's (see README.md).  The same
   binary therefore also runs under qemu-alpha user mode.  */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/types.h>

#include "firmware/pal_abi.h"
#include "linux_alpha.h"

/* Two errno variables: newlib's reentrant wrappers (_write_r, ...) clear
   the global `errno`, call _write and copy it into the reentrancy structure
   that the errno macro reads.  Functions that user code calls directly
   (dcpi_spawn, ...) must set the latter: dcpi_set_errno sets both. */
#undef errno
extern int errno;

void dcpi_set_errno(int e) {
  errno = e;
  *__errno() = e;
}

int dcpi_errno_from_linux(long e) {
  /* 1..34 agree except 11 (Alpha: EDEADLK); the rest that matter here. */
  switch (e) {
    case 11:
      return EDEADLK;
    case 35:
      return EAGAIN;
    case 62:
      return ELOOP;
    case 63:
      return ENAMETOOLONG;
    case 66:
      return ENOTEMPTY;
    case 78:
      return ENOSYS;
    default:
      return e >= 1 && e <= 34 ? (int)e : EIO;
  }
}

long dcpi_syscall(long nr, long a0, long a1, long a2, long a3) {
  struct dcpi_sysret r = dcpi_callsys(nr, a0, a1, a2, a3, 0, 0);
  if (r.error) {
    dcpi_set_errno(dcpi_errno_from_linux(r.value));
    return -1;
  }
  return r.value;
}

int _write(int fd, const void *buf, size_t n) {
  return (int)dcpi_syscall(SYS_write, fd, (long)buf, (long)n, 0);
}

int _read(int fd, void *buf, size_t n) {
  return (int)dcpi_syscall(SYS_read, fd, (long)buf, (long)n, 0);
}

int _open(const char *path, int flags, int mode) {
  long linux_flags = flags & O_ACCMODE; /* 0, 1, 2 in both */
  if (flags & O_APPEND) linux_flags |= LINUX_O_APPEND;
  if (flags & O_CREAT) linux_flags |= LINUX_O_CREAT;
  if (flags & O_TRUNC) linux_flags |= LINUX_O_TRUNC;
  if (flags & O_EXCL) linux_flags |= LINUX_O_EXCL;
  if (flags & O_NONBLOCK) linux_flags |= LINUX_O_NONBLOCK;
  return (int)dcpi_syscall(SYS_open, (long)path, linux_flags, mode, 0);
}

int _close(int fd) { return (int)dcpi_syscall(SYS_close, fd, 0, 0, 0); }

off_t _lseek(int fd, off_t offset, int whence) {
  /* SEEK_SET/CUR/END are 0/1/2 in both. */
  return (off_t)dcpi_syscall(SYS_lseek, fd, (long)offset, whence, 0);
}

int _fstat(int fd, struct stat *st) {
  struct linux_alpha_stat ls;
  if (dcpi_syscall(SYS_fstat, fd, (long)&ls, 0, 0) < 0) return -1;
  memset(st, 0, sizeof *st);
  st->st_dev = ls.st_dev;
  st->st_ino = ls.st_ino;
  st->st_mode = ls.st_mode; /* S_IF* and permission bits agree */
  st->st_nlink = ls.st_nlink;
  st->st_uid = ls.st_uid;
  st->st_gid = ls.st_gid;
  st->st_rdev = ls.st_rdev;
  st->st_size = ls.st_size;
  st->st_atim.tv_sec = (time_t)ls.st_atime_;
  st->st_mtim.tv_sec = (time_t)ls.st_mtime_;
  st->st_ctim.tv_sec = (time_t)ls.st_ctime_;
  st->st_blksize = ls.st_blksize;
  st->st_blocks = ls.st_blocks;
  return 0;
}

int _stat(const char *path, struct stat *st) {
  int fd = _open(path, O_RDONLY, 0);
  if (fd < 0) return -1;
  int r = _fstat(fd, st);
  int saved = errno;
  _close(fd);
  dcpi_set_errno(saved);
  return r;
}

/* No ioctl in the ABI: a character device is a terminal. */
int _isatty(int fd) {
  struct stat st;
  if (_fstat(fd, &st) < 0) return 0;
  if (!S_ISCHR(st.st_mode)) {
    dcpi_set_errno(ENOTTY);
    return 0;
  }
  return 1;
}

/* brk(0) returns the current break, brk(x) the new break, or the old one
   if the kernel refused. */
void *_sbrk(ptrdiff_t incr) {
  static uintptr_t current;
  if (current == 0) {
    struct dcpi_sysret r = dcpi_callsys(SYS_brk, 0, 0, 0, 0, 0, 0);
    if (r.error || r.value == 0) {
      dcpi_set_errno(ENOMEM);
      return (void *)-1;
    }
    current = (uintptr_t)r.value;
  }
  uintptr_t old = current, want = old + (uintptr_t)incr;
  if (incr == 0) return (void *)old;
  if (incr < 0 ? want > old : want < old) { /* wrapped around */
    dcpi_set_errno(ENOMEM);
    return (void *)-1;
  }
  struct dcpi_sysret r = dcpi_callsys(SYS_brk, (long)want, 0, 0, 0, 0, 0);
  if (r.error || (uintptr_t)r.value != want) {
    dcpi_set_errno(ENOMEM);
    return (void *)-1;
  }
  current = want;
  return (void *)old;
}

void _exit(int status) {
  dcpi_callsys(SYS_exit_group, status & 0xff, 0, 0, 0, 0, 0);
  dcpi_callsys(SYS_exit, status & 0xff, 0, 0, 0, 0, 0);
  for (;;)
    __asm__ volatile("call_pal %0" ::"i"(CALL_PAL_BUGCHK)); /* the kernel refused to end us */
}

int _getpid(void) {
  /* getxpid: pid in v0 (and the parent's in a4). */
  return (int)dcpi_syscall(SYS_getxpid, 0, 0, 0, 0);
}

int _kill(int pid, int sig) { return (int)dcpi_syscall(SYS_kill, pid, sig, 0, 0); }

int _gettimeofday(struct timeval *tv, void *tz) {
  (void)tz;
  struct linux_timeval lt;
  if (dcpi_syscall(SYS_gettimeofday, (long)&lt, 0, 0, 0) < 0) return -1;
  if (tv) {
    tv->tv_sec = lt.tv_sec;
    tv->tv_usec = lt.tv_usec;
  }
  return 0;
}

/* Linux counts in USER_HZ (1024 on Alpha); newlib's clock() divides by
   CLOCKS_PER_SEC (1000): the scale error is 2.4 %, acceptable for clock(). */
clock_t _times(struct tms *t) {
  struct linux_tms lt;
  struct dcpi_sysret r = dcpi_callsys(SYS_times, (long)&lt, 0, 0, 0, 0, 0);
  if (r.error) {
    dcpi_set_errno(dcpi_errno_from_linux(r.value));
    return (clock_t)-1;
  }
  if (t) {
    t->tms_utime = lt.tms_utime;
    t->tms_stime = lt.tms_stime;
    t->tms_cutime = lt.tms_cutime;
    t->tms_cstime = lt.tms_cstime;
  }
  return (clock_t)r.value;
}

/* Not in the kernel ABI: fail cleanly. */
int _link(const char *old, const char *new_) {
  (void)old;
  (void)new_;
  dcpi_set_errno(ENOSYS);
  return -1;
}

int _unlink(const char *path) {
  (void)path;
  dcpi_set_errno(ENOSYS);
  return -1;
}

int _fork(void) {
  dcpi_set_errno(ENOSYS);
  return -1;
}

int _execve(const char *path, char *const argv[], char *const envp[]) {
  (void)path;
  (void)argv;
  (void)envp;
  dcpi_set_errno(ENOSYS);
  return -1;
}

int _wait(int *status) {
  /* wait4(-1, status, 0, NULL) */
  return (int)dcpi_syscall(SYS_wait4, -1, (long)status, 0, 0);
}
