/* manyproc: many short-lived processes, like the 56 gcc invocations of the
   DCPI paper's workload (its hash table miss rate rises to ~40 % with so
   many PIDs).  Spawns /bin/shortlived N times one after the other
   (N = 56 by default, argv[1] overrides), waits for each, and checks that
   every child got a distinct pid and exited with the status it should.

   Instruction budget: 56 children of 0.7 M instructions each (~40 M), plus
   process creation and ELF loading in the kernel: ~0.05-0.1 s at 1e9/s.

   Checksum: the children's exit statuses in order and the number of
   distinct pids (never the pids themselves). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common.h"
#include "dcpi_user.h"
#include "shortlived.h"

#define CHILDREN 56
#define MAX_CHILDREN 1024

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : CHILDREN;
  if (n < 1 || n > MAX_CHILDREN) {
    printf("usage: manyproc [children (1..%d)]\n", MAX_CHILDREN);
    return 2;
  }
  static int pids[MAX_CHILDREN];
  uint64_t sum = 0;
  int failures = 0, distinct = 0;
  for (int i = 0; i < n; i++) {
    char arg[16];
    snprintf(arg, sizeof arg, "%d", i);
    char *child_argv[] = {"shortlived", arg, NULL};
    int pid = dcpi_spawn("/bin/shortlived", child_argv);
    if (pid < 0) {
      printf("manyproc: spawn /bin/shortlived failed: %s\n", strerror(errno));
      return 1;
    }
    int status = 0;
    if (dcpi_wait(pid, &status) != pid) {
      printf("manyproc: wait for pid %d failed: %s\n", pid, strerror(errno));
      return 1;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code != shortlived_result(i)) {
      printf("manyproc: child %d (pid %d) status 0x%x, expected exit %d\n", i, pid, status,
             shortlived_result(i));
      failures++;
    }
    int seen = 0;
    for (int j = 0; j < i; j++) seen |= pids[j] == pid;
    distinct += !seen;
    pids[i] = pid;
    sum = ck_mix(sum, (uint64_t)code);
  }
  printf("manyproc: %d children, %d distinct pids, %d failures\n", n, distinct, failures);
  ck_print("manyproc", ck_mix(sum, (uint64_t)distinct));
  return failures == 0 && distinct == n ? 0 : 1;
}
