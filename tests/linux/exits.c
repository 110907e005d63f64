/* Multi-threaded processes ending while their parent waits (issue 29): each
   round forks a child whose threads and main thread leave in a different
   order, and the parent reaps it with waitpid.
     exit_group   main calls exit while its threads spin: every thread
                  leaves on its way back to user mode, any of them last;
     last_thread  main leaves first (pthread_exit) and the last worker
                  ends the process;
     worker_exit  a worker calls _exit while main spins.
   The leader may be the first thread to start leaving and the last to
   finish; the parent must be woken only once both are true (a kernel that
   woke it when the last thread started leaving lost the wake-up and hung,
   on 4 CPUs, with the child a zombie and the parent asleep in wait4).
   The output does not depend on the interleaving, so it equals qemu-alpha's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 30
#define WORKERS 3

static volatile int stop;

static void *spin(void *arg) {
  (void)arg;
  for (volatile unsigned long i = 0; !stop; i++) {
  }
  return NULL;
}

static void *spin_a_while(void *arg) {
  for (volatile unsigned long i = 0; i < (unsigned long)arg; i++) {
  }
  return NULL;
}

static void *exit_from_worker(void *arg) {
  spin_a_while(arg);
  _exit(42);
}

static void start(pthread_t *ids, void *(*fn)(void *), unsigned long work) {
  for (int i = 0; i < WORKERS; i++)
    if (pthread_create(&ids[i], NULL, fn, (void *)(work * (i + 1))) != 0) _exit(99);
}

/* The child: never returns. */
static void child(int kind, int round) {
  pthread_t ids[WORKERS];
  const unsigned long work = 2000 + 700 * (unsigned long)(round % 7);
  switch (kind) {
    case 0:
      start(ids, spin, 0);
      spin_a_while((void *)work);
      exit(round & 0x3f);
    case 1:
      start(ids, spin_a_while, work);
      pthread_exit(NULL);  // the process ends with its last worker: status 0
    default:
      start(ids, exit_from_worker, work);
      spin(NULL);
      exit(1);
  }
}

int main(void) {
  static const char *const names[] = {"exit_group", "last_thread", "worker_exit"};
  for (int kind = 0; kind < 3; kind++) {
    int right = 0;
    for (int round = 0; round < ROUNDS; round++) {
      fflush(stdout);
      const pid_t pid = fork();
      if (pid < 0) return 2;
      if (pid == 0) child(kind, round);
      int status = -1;
      if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) continue;
      const int want = kind == 0 ? (round & 0x3f) : kind == 1 ? 0 : 42;
      right += WEXITSTATUS(status) == want;
    }
    printf("%s: %d of %d children reaped with the right status\n", names[kind], right, ROUNDS);
  }
  return 0;
}
