/* DCPI user-program interface: the calls a workload needs beyond newlib.
   Portable: implemented on the DCPI kernel (dcpi_user_alpha.c, system calls
   1000/1001 and wait4) and natively on the host (dcpi_user_host.c, with
   posix_spawn and waitpid), so every workload compiles unchanged for both. */
#ifndef DCPI_USER_H
#define DCPI_USER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the program at path (an initrd path such as "/bin/copy"; the host
   version maps "/bin/NAME" to NAME next to the running executable) with the
   NULL-terminated argument vector argv (argv[0] included).  stdout and
   stderr are flushed first.  Returns the child's pid, or -1 with errno set. */
int dcpi_spawn(const char *path, char *const argv[]);

/* Waits for child pid (-1: any child) to end and stores its status, in the
   Linux/POSIX encoding (<sys/wait.h> WIFEXITED, WEXITSTATUS, ...), in
   *status if status is not NULL.  Returns the pid, or -1 with errno set
   (ECHILD: no such child). */
int dcpi_wait(int pid, int *status);

/* A request to the profiler (the layout of firmware/control_block.h's
   dcpi::ControlBlock; a host test checks the two agree). */
struct dcpi_control_request {
  uint64_t magic; /* DCPI_CONTROL_MAGIC once the driver is ready */
  uint64_t request_sequence;
  uint32_t command; /* dcpi::ControlCommand */
  uint32_t reserved;
  uint64_t args[3];
  uint64_t done_sequence;
  int64_t status; /* dcpi::ControlStatus */
} __attribute__((aligned(64)));

#define DCPI_CONTROL_MAGIC 0x4c52544349504344ull /* "DCPICTRL" */

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
