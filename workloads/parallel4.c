/* parallel4: four compute processes at once.  The parent spawns
   "/bin/parallel4 --child K" for K = 0..3, which run concurrently (on four
   CPUs in the guest), and waits for all of them in whatever order they
   end.  Each child runs a mixed integer/floating-point kernel seeded by K
   and prints its own checksum line (name parallel4.K).

   Instruction budget per child: WORK = 8,000,000 iterations of ~19
   instructions: ~150 M (76 M measured for 4 M), the same in each of the
   four children: ~0.15 s on four CPUs at 1e9/s each (0.6 s on one).

   Checksum (parent): each child's exit status (the low 7 bits of its own
   checksum) in child order, and the number of children that ended
   normally. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common.h"
#include "dcpi_user.h"

#define CHILDREN 4
#define WORK 8000000

static int child(int k) {
  uint64_t seed = 0x70617261u + (uint64_t)k, h = 0;
  double acc = 1.0;
  for (long i = 0; i < WORK; i++) {
    uint64_t r = ck_rand(&seed);
    h += r >> (r & 15);
    acc = acc * 0.999 + (double)(r & 0xffff) * (1.0 / 65536.0);
  }
  char name[32];
  snprintf(name, sizeof name, "parallel4.%d", k);
  uint64_t sum = ck_mix(h, ck_double_bits(acc));
  ck_print(name, sum);
  return (int)(sum & 0x7f);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(atoi(argv[2]));

  int pids[CHILDREN], codes[CHILDREN];
  for (int k = 0; k < CHILDREN; k++) {
    char arg[8];
    snprintf(arg, sizeof arg, "%d", k);
    char *child_argv[] = {"parallel4", "--child", arg, NULL};
    pids[k] = dcpi_spawn("/bin/parallel4", child_argv);
    if (pids[k] < 0) {
      printf("parallel4: spawn failed: %s\n", strerror(errno));
      return 1;
    }
    codes[k] = -1;
  }
  int normal = 0;
  for (int done = 0; done < CHILDREN; done++) {
    int status = 0, pid = dcpi_wait(-1, &status);
    if (pid < 0) {
      printf("parallel4: wait failed: %s\n", strerror(errno));
      return 1;
    }
    for (int k = 0; k < CHILDREN; k++)
      if (pids[k] == pid && WIFEXITED(status)) {
        codes[k] = WEXITSTATUS(status);
        normal++;
      }
  }
  uint64_t sum = 0;
  for (int k = 0; k < CHILDREN; k++) sum = ck_mix(sum, (uint64_t)codes[k]);
  printf("parallel4: %d of %d children ended normally\n", normal, CHILDREN);
  ck_print("parallel4", ck_mix(sum, (uint64_t)normal));
  return normal == CHILDREN ? 0 : 1;
}
