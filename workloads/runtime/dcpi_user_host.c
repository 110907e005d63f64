/* dcpi_user.h natively on the host (Linux): posix_spawn and waitpid.
   "/bin/NAME" is mapped to NAME in the directory of the running executable,
   where the host build puts every native workload. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dcpi_user.h"

extern char **environ;

static int map_path(const char *path, char *out, size_t size) {
  if (strncmp(path, "/bin/", 5) != 0) {
    if (strlen(path) >= size) return -1;
    strcpy(out, path);
    return 0;
  }
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0) return -1;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (slash) *slash = '\0';
  int len = snprintf(out, size, "%s/%s", self, path + 5);
  return len < 0 || (size_t)len >= size ? -1 : 0;
}

int dcpi_spawn(const char *path, char *const argv[]) { return dcpi_spawn_env(path, argv, environ); }

int dcpi_spawn_env(const char *path, char *const argv[], char *const envp[]) {
  static char *const none[] = {NULL};
  char real[PATH_MAX];
  if (map_path(path, real, sizeof real) < 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid;
  int e = posix_spawn(&pid, real, NULL, NULL, argv, envp ? envp : none);
  if (e != 0) {
    errno = e;
    return -1;
  }
  return (int)pid;
}

int dcpi_wait(int pid, int *status) {
  int s = 0;
  pid_t r;
  do {
    r = waitpid(pid, &s, 0);
  } while (r < 0 && errno == EINTR);
  if (r >= 0 && status) *status = s;
  return (int)r;
}

long dcpi_control(const struct dcpi_control_request *request) {
  (void)request;
  errno = ENOSYS;
  return -1;
}

const char *dcpi_platform(void) { return "host"; }
