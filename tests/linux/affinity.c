/* CPU affinity as benchmarks pin threads: sched_setaffinity on the caller
 * and on another thread, sched_getcpu confirming where each runs, a fork
 * inheriting the mask, error paths. Output independent of the CPU count
 * (equals qemu-alpha's on any host). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kChecks = 200 };

static int cpus[64], ncpus;

/* kChecks looks at where it runs, with yields in between: all on `cpu`? */
static int stays_on(int cpu) {
  int ok = 1;
  for (int i = 0; i < kChecks; i++) {
    volatile double x = 0;
    for (int j = 0; j < 2000; j++) x += j;
    if (sched_getcpu() != cpu) ok = 0;
    if (i % 10 == 0) sched_yield();
  }
  return ok;
}

static int pin(pid_t who, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(who, sizeof set, &set);
}

static void *pinned_worker(void *arg) {
  int cpu = *(int *)arg;
  if (pin(0, cpu) != 0) return (void *)0;
  return (void *)(long)stays_on(cpu);
}

struct Pinned {
  volatile int tid, go;
};

static void *pinned_by_other(void *arg) {
  struct Pinned *p = arg;
  p->tid = gettid();
  while (!p->go) sched_yield();
  return (void *)(long)stays_on(cpus[ncpus - 1]);
}

int main(void) {
  cpu_set_t set;
  sched_getaffinity(0, sizeof set, &set);
  for (int c = 0; c < CPU_SETSIZE && ncpus < 64; c++)
    if (CPU_ISSET(c, &set)) cpus[ncpus++] = c;
  printf("affinity: %d\n", ncpus >= 1 && sched_getcpu() >= 0);

  printf("pin self to the first CPU: %d, stays there: %d\n", pin(0, cpus[0]), stays_on(cpus[0]));
  printf("pin self to the last CPU: %d, stays there: %d\n", pin(0, cpus[ncpus - 1]),
         stays_on(cpus[ncpus - 1]));

  pthread_t threads[64];
  int ok = 1;
  for (int i = 0; i < ncpus && i < 8; i++) pthread_create(&threads[i], NULL, pinned_worker, &cpus[i]);
  for (int i = 0; i < ncpus && i < 8; i++) {
    void *r;
    pthread_join(threads[i], &r);
    ok &= r != 0;
  }
  printf("a thread pinned to each CPU stays on it: %d\n", ok);

  struct Pinned other = {0, 0};
  pthread_t t;
  pthread_create(&t, NULL, pinned_by_other, &other);
  while (other.tid == 0) sched_yield();
  printf("pin another thread: %d\n", pin(other.tid, cpus[ncpus - 1]));
  other.go = 1;
  void *r;
  pthread_join(t, &r);
  printf("it stays there: %d\n", r != 0);

  pin(0, cpus[0]);
  pid_t child = fork();
  if (child == 0) {
    cpu_set_t mine;
    sched_getaffinity(0, sizeof mine, &mine);
    _exit(CPU_COUNT(&mine) == 1 && CPU_ISSET(cpus[0], &mine) && stays_on(cpus[0]) ? 0 : 1);
  }
  int status;
  waitpid(child, &status, 0);
  printf("a forked child inherits the mask: %d\n", WIFEXITED(status) && WEXITSTATUS(status) == 0);

  CPU_ZERO(&set);
  errno = 0;
  printf("empty mask: %d %s\n", sched_setaffinity(0, sizeof set, &set), strerror(errno));
  errno = 0;
  printf("no such thread: %d %s\n", pin(999999, cpus[0]), strerror(errno));
  sched_getaffinity(0, sizeof set, &set);
  printf("getaffinity shows the pin: %d\n", CPU_COUNT(&set) == 1 && CPU_ISSET(cpus[0], &set));
  printf("affinity: done\n");
  return 0;
}
