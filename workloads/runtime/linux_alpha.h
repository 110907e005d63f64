/* The kernel ABI seen from user mode (internal to the runtime).

   callsys: v0 = system call number, a0..a5 = arguments.  On return
   v0 = result and a3 = 0 on success, or a3 = 1 and v0 = a positive
   Linux/Alpha errno.  The kernel may clobber v0, t0-t11, a0-a5, at and pv
   (the registers glibc's Alpha syscall stubs declare clobbered) and
   preserves s0-s6, fp, ra, gp and sp.  Numbers are Linux/Alpha's, so the
   same binary runs under qemu-alpha user mode; 1000 and up are ours.  */
#ifndef DCPI_RUNTIME_LINUX_ALPHA_H
#define DCPI_RUNTIME_LINUX_ALPHA_H

enum {
  SYS_DCPI_EXIT = 1,
  SYS_DCPI_READ = 3,
  SYS_DCPI_WRITE = 4,
  SYS_DCPI_CLOSE = 6,
  SYS_DCPI_BRK = 17,
  SYS_DCPI_LSEEK = 19,
  SYS_DCPI_GETXPID = 20,
  SYS_DCPI_KILL = 37,
  SYS_DCPI_OPEN = 45,
  SYS_DCPI_FSTAT = 91,
  SYS_DCPI_TIMES = 323,
  SYS_DCPI_GETTIMEOFDAY = 359,
  SYS_DCPI_WAIT4 = 365,
  SYS_DCPI_EXIT_GROUP = 405,
  SYS_DCPI_SPAWN = 1000,
  SYS_DCPI_CONTROL = 1001,
};

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

/* Result of one system call: value and the a3 error flag. */
struct dcpi_sysret {
  long value; /* result, or a positive Linux/Alpha errno if error != 0 */
  long error; /* a3 */
};

static inline struct dcpi_sysret dcpi_syscall6(long nr, long a0, long a1, long a2, long a3, long a4,
                                               long a5) {
  register long v0 __asm__("$0") = nr;
  register long r16 __asm__("$16") = a0;
  register long r17 __asm__("$17") = a1;
  register long r18 __asm__("$18") = a2;
  register long r19 __asm__("$19") = a3;
  register long r20 __asm__("$20") = a4;
  register long r21 __asm__("$21") = a5;
  __asm__ volatile("callsys"
                   : "+r"(v0), "+r"(r16), "+r"(r17), "+r"(r18), "+r"(r19), "+r"(r20), "+r"(r21)
                   :
                   : "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$22", "$23", "$24", "$25",
                     "$27", "$28", "memory");
  struct dcpi_sysret r = {v0, r19};
  return r;
}

/* Converts a Linux/Alpha errno to newlib's numbering. */
int dcpi_errno_from_linux(long linux_errno);

/* Sets errno (newlib numbering) for newlib's wrappers and for user code. */
void dcpi_set_errno(int e);

/* Performs a system call; on error sets errno (newlib numbering) and
   returns -1, else returns the result. */
long dcpi_syscall(long nr, long a0, long a1, long a2, long a3);

#endif
