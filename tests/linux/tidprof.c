/* Profiles per thread (issue 29): four busy threads that name themselves
   (pthread_setname_np on the calling thread: prctl PR_SET_NAME), and a child
   that a fork+execve+wait starts with its own argv[0] and exit status. The
   test (processes.py tidprof) checks the database's process table and
   `dcpi prof --by tid` against what this program prints.

   tidprof            the threads; lines starting "tid " hold the numbers
                      that differ between runs (compared with the database,
                      not with qemu-alpha), every other line is deterministic
   tidprof --fork     also fork, execve itself as argv[0] "tidprof-child"
                      with --exit 7, wait, print "child PID exit STATUS"
                      (not under qemu-alpha, which cannot exec an Alpha program)
   tidprof --exit N   exit N at once (the exec'd child) */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4

static volatile unsigned long sink;
static struct {
  int rc;
  long tid;
  char name[16];
} seen[THREADS + 1];            /* printed by main after the joins, in a fixed order */
static pthread_barrier_t named; /* every thread has named itself */

static void *busy(void *arg) {
  const long id = (long)arg;
  char name[16];
  snprintf(name, sizeof name, "cruncher-%ld", id);
  seen[id].rc = pthread_setname_np(pthread_self(), name);
  pthread_getname_np(pthread_self(), seen[id].name, sizeof seen[id].name);
  seen[id].tid = (long)syscall(SYS_gettid);
  pthread_barrier_wait(&named);
  /* Work proportional to the id, so each thread has its own sample count. */
  unsigned long x = (unsigned long)id;
  for (long i = 0; i < 2000000L * id; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
  sink += x;
  return NULL;
}

static void fork_exec_wait(const char *self) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    char *args[] = {"tidprof-child", "--exit", "7", NULL};
    execv(self, args);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child %d exit %d\n", (int)pid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--exit") == 0) return atoi(argv[2]);
  printf("tid main %ld pid %ld\n", (long)syscall(SYS_gettid), (long)getpid());
  pthread_t threads[THREADS];
  pthread_barrier_init(&named, NULL, THREADS + 1);
  for (long i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, busy, (void *)(i + 1));
  /* Naming another thread goes through /proc/self/task/TID/comm, which the
     dcpi kernel refuses (ENOENT, named on its console); under qemu-alpha it
     works: the result is on a "tid" line. */
  pthread_barrier_wait(&named);
  int other = pthread_setname_np(threads[0], "renamed");
  printf("tid other-setname %s\n", strerror(other));
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  printf("joined %d threads\n", THREADS);
  for (int id = 1; id <= THREADS; id++) {
    printf("thread %d: setname %s, name %s\n", id, strerror(seen[id].rc), seen[id].name);
    printf("tid %d %ld %s\n", id, seen[id].tid, seen[id].name);
  }
  if (argc == 2 && strcmp(argv[1], "--fork") == 0) fork_exec_wait(argv[0]);
  return 0;
}
