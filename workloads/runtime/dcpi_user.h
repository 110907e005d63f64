/* DCPI user-program interface: the calls a workload needs beyond newlib.
   Portable: implemented on the DCPI kernel (dcpi_user_alpha.c, system calls
   1000/1001 and wait4) and natively on the host (dcpi_user_host.c, with
   posix_spawn and waitpid), so every workload compiles unchanged for both. */
#ifndef DCPI_USER_H
#define DCPI_USER_H

#include <stdint.h>

#include "firmware/control_block.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the program at path (an initrd path such as "/bin/copy"; the host
   version maps "/bin/NAME" to NAME next to the running executable) with the
   NULL-terminated argument vector argv (argv[0] included).  stdout and
   stderr are flushed first.  Returns the child's pid, or -1 with errno set. */
int dcpi_spawn(const char *path, char *const argv[]);

/* dcpi_spawn with the environment envp (NULL-terminated "NAME=VALUE"
   strings; NULL: none) instead of none (the DCPI kernel) or the caller's
   (the host). */
int dcpi_spawn_env(const char *path, char *const argv[], char *const envp[]);

/* Waits for child pid (-1: any child) to end and stores its status, in the
   Linux/POSIX encoding (<sys/wait.h> WIFEXITED, WEXITSTATUS, ...), in
   *status if status is not NULL.  Returns the pid, or -1 with errno set
   (ECHILD: no such child). */
int dcpi_wait(int pid, int *status);

/* A request to the profiler: the control block of firmware/control_block.h,
   written once for the driver, the host and user programs. */
#define dcpi_control_request dcpi_control_block

/* Passes a request to the profiler (system call 1001).  Returns the
   driver's result, or -1 with errno set (ENOSYS natively and where the
   driver is absent). */
long dcpi_control(const struct dcpi_control_request *request);

/* "dcpi-alpha" in the guest (and under qemu-alpha), "host" natively. */
const char *dcpi_platform(void);

#ifdef __cplusplus
}
#endif

#endif
