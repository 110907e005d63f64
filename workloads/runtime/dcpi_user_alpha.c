/* dcpi_user.h on the DCPI kernel: spawn (1000), wait4 (365), dcpi_control
   (1001).  Under qemu-alpha user mode spawn and dcpi_control fail with
   ENOSYS (Linux has neither). */
#include <stdio.h>

#include "dcpi_user.h"
#include "linux_alpha.h"

int dcpi_spawn_env(const char *path, char *const argv[], char *const envp[]) {
  fflush(stdout);
  fflush(stderr);
  return (int)dcpi_syscall(SYS_spawn, (long)path, (long)argv, (long)envp, 0);
}

int dcpi_spawn(const char *path, char *const argv[]) { return dcpi_spawn_env(path, argv, 0); }

int dcpi_wait(int pid, int *status) {
  int s = 0;
  /* wait4(pid, &status, options = 0, rusage = NULL) */
  int r = (int)dcpi_syscall(SYS_wait4, pid, (long)&s, 0, 0);
  if (r >= 0 && status) *status = s;
  return r;
}

long dcpi_control(const struct dcpi_control_request *request) {
  return dcpi_syscall(SYS_dcpi_control, (long)request, 0, 0, 0);
}

const char *dcpi_platform(void) { return "dcpi-alpha"; }
