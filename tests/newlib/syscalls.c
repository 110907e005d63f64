/* Minimal OS layer for the newlib link test only.  Newlib (configured by
   toolchain/build-newlib.sh) calls the libgloss-style names _write, _sbrk, ...
   _write appends to a static buffer, _sbrk hands out a static array, the rest
   fail with ENOSYS.

   With -DDCPI_LINUX_USER (link-test.sh does this when qemu-alpha is
   available) _write additionally copies the bytes to the real file
   descriptor and _exit ends the process, both through Linux/Alpha system
   calls (firmware/callsys.h, the user runtime's callsys).  */
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>

#include "syscalls.h"
#ifdef DCPI_LINUX_USER
#include "firmware/callsys.h"
#endif

#undef errno
extern int errno;

static char out_buf[4096];
static size_t out_len;

const char *stub_output(void) { return out_buf; }

int _write(int fd, const void *buf, size_t n)
{
  if (fd != 1 && fd != 2) {
    errno = EBADF;
    return -1;
  }
  const char *p = buf;
  for (size_t i = 0; i < n && out_len + 1 < sizeof out_buf; i++)
    out_buf[out_len++] = p[i];
#ifdef DCPI_LINUX_USER
  dcpi_callsys(SYS_write, fd, (long)buf, (long)n, 0, 0, 0);
#endif
  return (int)n;
}

void *_sbrk(ptrdiff_t incr)
{
  static char heap[256 * 1024] __attribute__((aligned(16)));
  static size_t brk;
  if (incr < 0 ? (size_t)-incr > brk : (size_t)incr > sizeof heap - brk) {
    errno = ENOMEM;
    return (void *)-1;
  }
  void *old = heap + brk;
  brk += incr;
  return old;
}

void _exit(int status)
{
#ifdef DCPI_LINUX_USER
  dcpi_callsys(SYS_exit, status, 0, 0, 0, 0, 0);
#endif
  (void)status;
  for (;;)
    ;
}

/* The stubs ignore their arguments. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define ENOSYS_STUB(ret, name, params) \
  ret name params { errno = ENOSYS; return (ret)-1; }

ENOSYS_STUB(int, _read, (int fd, void *buf, size_t n))
ENOSYS_STUB(int, _open, (const char *path, int flags, int mode))
ENOSYS_STUB(int, _close, (int fd))
ENOSYS_STUB(off_t, _lseek, (int fd, off_t off, int whence))
ENOSYS_STUB(int, _fstat, (int fd, struct stat *st))
ENOSYS_STUB(int, _stat, (const char *path, struct stat *st))
ENOSYS_STUB(int, _link, (const char *old, const char *new_))
ENOSYS_STUB(int, _unlink, (const char *path))
ENOSYS_STUB(int, _getpid, (void))
ENOSYS_STUB(int, _kill, (int pid, int sig))
ENOSYS_STUB(int, _fork, (void))
ENOSYS_STUB(int, _wait, (int *status))
ENOSYS_STUB(int, _execve, (const char *path, char *const argv[], char *const envp[]))
ENOSYS_STUB(int, _gettimeofday, (struct timeval *tv, void *tz))
ENOSYS_STUB(clock_t, _times, (struct tms *t))

int _isatty(int fd)
{
  (void)fd;
  errno = ENOSYS;
  return 0;
}
