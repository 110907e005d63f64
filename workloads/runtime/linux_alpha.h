/* The kernel ABI seen from user mode (internal to the runtime): the
   Linux/Alpha structures and flags the system calls of firmware/syscalls.h
   exchange, and errno handling around firmware/callsys.h's callsys. */
#ifndef DCPI_RUNTIME_LINUX_ALPHA_H
#define DCPI_RUNTIME_LINUX_ALPHA_H

#include "firmware/callsys.h"

/* Linux/Alpha open(2) flags (asm/fcntl.h). */
enum {
  LINUX_O_WRONLY = 01,
  LINUX_O_RDWR = 02,
  LINUX_O_NONBLOCK = 04,
  LINUX_O_APPEND = 010,
  LINUX_O_CREAT = 01000,
  LINUX_O_TRUNC = 02000,
  LINUX_O_EXCL = 04000,
};

/* Linux/Alpha struct stat (asm/stat.h), what fstat (91) fills in. */
struct linux_alpha_stat {
  unsigned int st_dev;
  unsigned int st_ino;
  unsigned int st_mode;
  unsigned int st_nlink;
  unsigned int st_uid;
  unsigned int st_gid;
  unsigned int st_rdev;
  long st_size;
  unsigned long st_atime_;
  unsigned long st_mtime_;
  unsigned long st_ctime_;
  unsigned int st_blksize;
  unsigned int st_blocks;
  unsigned int st_flags;
  unsigned int st_gen;
};
_Static_assert(sizeof(struct linux_alpha_stat) == 80, "Linux/Alpha struct stat is 80 bytes");

struct linux_timeval {
  long tv_sec;
  long tv_usec;
};

struct linux_tms {
  long tms_utime;
  long tms_stime;
  long tms_cutime;
  long tms_cstime;
};

/* Converts a Linux/Alpha errno to newlib's numbering. */
int dcpi_errno_from_linux(long linux_errno);

/* Sets errno (newlib numbering) for newlib's wrappers and for user code. */
void dcpi_set_errno(int e);

/* Performs a system call; on error sets errno (newlib numbering) and
   returns -1, else returns the result. */
long dcpi_syscall(long nr, long a0, long a1, long a2, long a3);

#endif
