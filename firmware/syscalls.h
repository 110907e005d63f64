/* The system call ABI between user programs and the kernel, defined once:
 * the kernel's dispatch (kernel/syscalls.cpp), the user runtime
 * (workloads/runtime), the freestanding test programs (tests/guest/user)
 * and the newlib link test all take their numbers from DCPI_SYSCALLS below,
 * and the kernel and the runtime share the Linux/Alpha flags and structures.
 *
 * callsys (firmware/callsys.h): v0 = number, a0-a5 = arguments. On return
 * v0 = result and a3 = 0, or a3 = 1 and v0 = a positive Linux/Alpha errno.
 * The kernel may clobber v0, t0-t11, a0-a5, at and pv (the registers glibc's
 * Alpha syscall stubs declare clobbered) and preserves s0-s6, fp, ra, gp, sp
 * and the FP registers. Numbers are Linux/Alpha's where Linux has the call,
 * so the same static binaries run under qemu-alpha user mode; 1000 and up
 * are ours. Semantics of each call: kernel/README.md. */
#ifndef DCPI_FIRMWARE_SYSCALLS_H
#define DCPI_FIRMWARE_SYSCALLS_H

/* X(name, number) for every system call. */
#define DCPI_SYSCALLS(X)                                                             \
  X(exit, 1)                                                                         \
  X(fork, 2)                                                                         \
  X(read, 3)                                                                         \
  X(write, 4)                                                                        \
  X(close, 6)                                                                        \
  X(link, 9)                                                                         \
  X(unlink, 10)                                                                      \
  X(chdir, 12)                                                                       \
  X(fchdir, 13)                                                                      \
  X(mknod, 14)                                                                       \
  X(chmod, 15)                                                                       \
  X(brk, 17)                                                                         \
  X(lseek, 19)                                                                       \
  X(getxpid, 20) /* v0 = pid, a4 = parent pid */                                     \
  X(getxuid, 24) /* v0 = uid, a4 = euid */                                           \
  X(ptrace, 26)  /* refused: EPERM */                                                \
  X(access, 33)                                                                      \
  X(kill, 37)                                                                        \
  X(setpgid, 39)                                                                     \
  X(dup, 41)                                                                         \
  X(pipe, 42)                                                                        \
  X(open, 45)                                                                        \
  X(getxgid, 47)         /* v0 = gid, a4 = egid */                                   \
  X(osf_sigprocmask, 48) /* v0 = the old mask */                                     \
  X(ioctl, 54)                                                                       \
  X(symlink, 57)                                                                     \
  X(readlink, 58)                                                                    \
  X(umask, 60)                                                                       \
  X(getgroups, 79)                                                                   \
  X(gethostname, 87)                                                                 \
  X(execve, 59)                                                                      \
  X(getpgrp, 63)                                                                     \
  X(vfork, 66)                                                                       \
  X(mmap, 71)                                                                        \
  X(munmap, 73)                                                                      \
  X(mprotect, 74)                                                                    \
  X(madvise, 75)                                                                     \
  X(dup2, 90)                                                                        \
  X(fstat, 91)                                                                       \
  X(fcntl, 92)                                                                       \
  X(poll, 94)                                                                        \
  X(fsync, 95)                                                                       \
  X(setpriority, 96)                                                                 \
  X(socket, 97)                                                                      \
  X(connect, 98)                                                                     \
  X(accept, 99)                                                                      \
  X(getpriority, 100)                                                                \
  X(send, 101)                                                                       \
  X(recv, 102)                                                                       \
  X(sigreturn, 103)                                                                  \
  X(bind, 104)                                                                       \
  X(setsockopt, 105)                                                                 \
  X(listen, 106)                                                                     \
  X(recvmsg, 113)                                                                    \
  X(sendmsg, 114)                                                                    \
  X(getsockopt, 118)                                                                 \
  X(readv, 120)                                                                      \
  X(writev, 121)                                                                     \
  X(fchown, 123)                                                                     \
  X(fchmod, 124)                                                                     \
  X(recvfrom, 125)                                                                   \
  X(rename, 128)                                                                     \
  X(truncate, 129)                                                                   \
  X(ftruncate, 130)                                                                  \
  X(flock, 131)                                                                      \
  X(sendto, 133)                                                                     \
  X(shutdown, 134)                                                                   \
  X(socketpair, 135)                                                                 \
  X(mkdir, 136)                                                                      \
  X(rmdir, 137)                                                                      \
  X(getpeername, 141)                                                                \
  X(setsid, 147)                                                                     \
  X(getsockname, 150)                                                                \
  X(msync, 217)                                                                      \
  X(getpgid, 233)                                                                    \
  X(getsid, 234)                                                                     \
  X(sigaltstack, 235)                                                                \
  X(osf_getsysinfo, 256)                                                             \
  X(osf_setsysinfo, 257)                                                             \
  X(clone, 312)                                                                      \
  X(mlock, 314)                                                                      \
  X(munlock, 315)                                                                    \
  X(mlockall, 316)                                                                   \
  X(munlockall, 317)                                                                 \
  X(times, 323)                                                                      \
  X(sysinfo, 318)                                                                    \
  X(statfs, 328)                                                                     \
  X(fstatfs, 329)                                                                    \
  X(sched_setparam, 330)                                                             \
  X(sched_getparam, 331)                                                             \
  X(sched_setscheduler, 332)                                                         \
  X(sched_getscheduler, 333)                                                         \
  X(sched_yield, 334)                                                                \
  X(sched_get_priority_max, 335)                                                     \
  X(sched_get_priority_min, 336)                                                     \
  X(sched_rr_get_interval, 337)                                                      \
  X(uname, 339)                                                                      \
  X(nanosleep, 340)                                                                  \
  X(mremap, 341)                                                                     \
  X(prctl, 348)                                                                      \
  X(pread64, 349)                                                                     \
  X(pwrite64, 350)                                                                    \
  X(rt_sigreturn, 351)                                                                \
  X(rt_sigaction, 352)                                                                \
  X(rt_sigprocmask, 353)                                                              \
  X(rt_sigpending, 354)                                                               \
  X(rt_sigtimedwait, 355)                                                             \
  X(rt_sigqueueinfo, 356)                                                             \
  X(rt_sigsuspend, 357)                                                               \
  X(select, 358)                                                                      \
  X(gettimeofday, 359)                                                                \
  X(getitimer, 361)                                                                   \
  X(setitimer, 362)                                                                   \
  X(getrusage, 364)                                                                   \
  X(wait4, 365)                                                                       \
  X(getcwd, 367)                                                                      \
  X(sendfile, 370)                                                                    \
  X(mincore, 375)                                                                     \
  X(getdents64, 377)                                                                  \
  X(gettid, 378)                                                                      \
  X(tkill, 381)                                                                       \
  X(futex, 394)                                                                       \
  X(sched_setaffinity, 395)                                                           \
  X(sched_getaffinity, 396)                                                           \
  X(exit_group, 405)                                                                  \
  X(epoll_create, 407)                                                                \
  X(epoll_ctl, 408)                                                                   \
  X(epoll_wait, 409)                                                                  \
  X(set_tid_address, 411)                                                             \
  X(fadvise64, 413)                                                                   \
  X(timer_create, 414)                                                                \
  X(timer_settime, 415)                                                               \
  X(timer_gettime, 416)                                                               \
  X(timer_getoverrun, 417)                                                            \
  X(timer_delete, 418)                                                                \
  X(clock_gettime, 420)                                                               \
  X(clock_getres, 421)                                                                \
  X(clock_nanosleep, 422)                                                             \
  X(tgkill, 424)                                                                      \
  X(stat64, 425)                                                                      \
  X(lstat64, 426)                                                                     \
  X(fstat64, 427)                                                                     \
  X(waitid, 438)                                                                      \
  X(fdatasync, 447)                                                                   \
  X(openat, 450)                                                                      \
  X(mkdirat, 451)                                                                     \
  X(mknodat, 452)                                                                     \
  X(fstatat64, 455)                                                                   \
  X(unlinkat, 456)                                                                    \
  X(renameat, 457)                                                                    \
  X(linkat, 458)                                                                      \
  X(symlinkat, 459)                                                                   \
  X(readlinkat, 460)                                                                  \
  X(fchmodat, 461)                                                                    \
  X(faccessat, 462)                                                                   \
  X(pselect6, 463)                                                                    \
  X(ppoll, 464)                                                                       \
  X(set_robust_list, 466)                                                             \
  X(splice, 468)                                                                      \
  X(tee, 470)                                                                         \
  X(getcpu, 473)                                                                      \
  X(epoll_pwait, 474)                                                                 \
  X(utimensat, 475)                                                                   \
  X(signalfd, 476)                                                                    \
  X(eventfd, 478)                                                                     \
  X(timerfd_create, 481)                                                              \
  X(timerfd_settime, 482)                                                             \
  X(timerfd_gettime, 483)                                                             \
  X(signalfd4, 484)                                                                   \
  X(eventfd2, 485)                                                                    \
  X(epoll_create1, 486)                                                               \
  X(dup3, 487)                                                                        \
  X(pipe2, 488)                                                                       \
  X(accept4, 502)                                                                     \
  X(rt_tgsigqueueinfo, 492)                                                           \
  X(prlimit64, 496)                                                                   \
  X(renameat2, 510)                                                                   \
  X(getrandom, 511)                                                                   \
  X(memfd_create, 512)                                                                \
  X(copy_file_range, 519)                                                             \
  X(rseq, 527)                                                                        \
  X(statfs64, 528)                                                                    \
  X(fstatfs64, 529)                                                                   \
  X(getegid, 530)                                                                     \
  X(geteuid, 531)                                                                     \
  X(getppid, 532)                                                                     \
  X(faccessat2, 549)                                                                  \
  X(epoll_pwait2, 551)                                                                \
  X(spawn, 1000) /* (path, argv, envp) -> pid */                                      \
  X(dcpi_control, 1001) /* (struct dcpi_control_block*): firmware/control_block.h */  \
  X(kinfo, 1002) /* (DCPI_KINFO_*) -> value, for the guest tests */

/* kinfo selectors (a0). */
#define DCPI_KINFO_FREE_PAGES 0
#define DCPI_KINFO_CPU 1               /* CPU the caller runs on */
#define DCPI_KINFO_CPUS_RUNNING_USER 2 /* CPUs running a user process now */
#define DCPI_KINFO_LOAD_MAP_COUNT 3
#define DCPI_KINFO_PRINT_LOAD_MAP 4 /* console dump, returns the count */
#define DCPI_KINFO_CPU_MASK 5       /* CPUs the caller has run on */

#ifdef __ASSEMBLER__
/* Assembly: the symbols SYS_<name> (Alpha gas separates statements with ';'). */
#define DCPI_SYSCALL_EQU(name, number) .equ SYS_##name, number;
DCPI_SYSCALLS(DCPI_SYSCALL_EQU)
#undef DCPI_SYSCALL_EQU
#else
/* C and C++: enum dcpi_syscall { SYS_exit = 1, ... }. In C++ its type is
 * the register's width, so the kernel can switch on a whole v0 as this
 * enum (and have the compiler check that every number is handled). */
#define DCPI_SYSCALL_ENUMERATOR(name, number) SYS_##name = number,
#ifdef __cplusplus
enum dcpi_syscall : unsigned long { DCPI_SYSCALLS(DCPI_SYSCALL_ENUMERATOR) };
#else
enum dcpi_syscall { DCPI_SYSCALLS(DCPI_SYSCALL_ENUMERATOR) };
#endif
#undef DCPI_SYSCALL_ENUMERATOR

/* Linux/Alpha open(2) flags (asm/fcntl.h). */
enum {
  LINUX_O_ACCMODE = 03,
  LINUX_O_WRONLY = 01,
  LINUX_O_RDWR = 02,
  LINUX_O_NONBLOCK = 04,
  LINUX_O_APPEND = 010,
  LINUX_O_CREAT = 01000,
  LINUX_O_TRUNC = 02000,
  LINUX_O_EXCL = 04000,
  LINUX_O_CLOEXEC = 010000000,
  LINUX_O_PATH = 040000000,
};

/* Linux/Alpha struct stat (asm/stat.h), what fstat fills in. The time
 * fields end in _ because newlib defines st_atime etc. as macros. */
struct linux_alpha_stat {
  unsigned int st_dev;
  unsigned int st_ino;
  unsigned int st_mode;
  unsigned int st_nlink;
  unsigned int st_uid;
  unsigned int st_gid;
  unsigned int st_rdev;
  unsigned int st_pad; /* named so that the kernel zeroes it */
  long st_size;
  unsigned long st_atime_;
  unsigned long st_mtime_;
  unsigned long st_ctime_;
  unsigned int st_blksize;
  unsigned int st_blocks;
  unsigned int st_flags;
  unsigned int st_gen;
};

/* Linux/Alpha struct stat64 (asm/stat.h): what fstat64/fstatat64 fill in,
 * the layout glibc uses. */
struct linux_alpha_stat64 {
  unsigned long st_dev;
  unsigned long st_ino;
  unsigned long st_rdev;
  long st_size;
  unsigned long st_blocks;
  unsigned int st_mode;
  unsigned int st_uid;
  unsigned int st_gid;
  unsigned int st_blksize;
  unsigned int st_nlink;
  unsigned int st_pad0;
  unsigned long st_times[6]; /* atime, atime_nsec, mtime, ..., ctime_nsec */
  long st_unused[3];
};

struct linux_timespec {
  long tv_sec;
  long tv_nsec;
};

/* uname(2): six NUL-terminated 65-byte fields. */
struct linux_utsname {
  char sysname[65];
  char nodename[65];
  char release[65];
  char version[65];
  char machine[65];
  char domainname[65];
};

/* sysinfo(2) on a 64-bit Linux (linux/sysinfo.h): its padding `_f` is
 * empty there. */
struct linux_sysinfo {
  long uptime;
  unsigned long loads[3];
  unsigned long totalram, freeram, sharedram, bufferram, totalswap, freeswap;
  unsigned short procs, pad;
  unsigned long totalhigh, freehigh;
  unsigned int mem_unit;
};

struct linux_rlimit {
  unsigned long rlim_cur;
  unsigned long rlim_max;
};

/* Linux/Alpha mmap(2) protections and flags (asm/mman.h; Alpha's own
 * MAP_ANONYMOUS and MAP_FIXED values). */
enum {
  LINUX_PROT_READ = 1,
  LINUX_PROT_WRITE = 2,
  LINUX_PROT_EXEC = 4,
  LINUX_MAP_SHARED = 0x01,
  LINUX_MAP_PRIVATE = 0x02,
  LINUX_MAP_ANONYMOUS = 0x10,
  LINUX_MAP_FIXED = 0x100,
  LINUX_MAP_NORESERVE = 0x10000,
  LINUX_MREMAP_MAYMOVE = 1,
  LINUX_MREMAP_FIXED = 2,
};

/* *at() calls: the current directory and "operate on the fd itself". */
enum { LINUX_AT_FDCWD = -100, LINUX_AT_EMPTY_PATH = 0x1000 };

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

#ifdef __cplusplus
static_assert(sizeof(linux_alpha_stat) == 80 &&
              __builtin_offsetof(linux_alpha_stat, st_size) == 32);
static_assert(sizeof(linux_alpha_stat64) == 136 &&
              __builtin_offsetof(linux_alpha_stat64, st_mode) == 40 &&
              __builtin_offsetof(linux_alpha_stat64, st_times) == 64);
static_assert(sizeof(linux_utsname) == 390);
static_assert(sizeof(linux_sysinfo) == 112 && __builtin_offsetof(linux_sysinfo, procs) == 80 &&
              __builtin_offsetof(linux_sysinfo, mem_unit) == 104);
#else
_Static_assert(sizeof(struct linux_alpha_stat) == 80, "Linux/Alpha struct stat is 80 bytes");
#endif
#endif

#endif
