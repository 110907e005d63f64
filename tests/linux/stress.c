/* Stress for the kernel's threads, signals and processes (issue 29): waves
   of threads created and joined, signals sent to a thread blocked in system
   calls, and fork under memory pressure until it fails (ENOMEM or EAGAIN:
   the kernel copies every page and has a limit on processes), then every child
   killed and reaped. What it prints does not depend on where fork stopped,
   so the output equals qemu-alpha's; under our kernel the test also checks
   that no panic happened and the run ended. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAVES 25
#define PER_WAVE 12
#define MAX_CHILDREN 80

static long total;
static volatile sig_atomic_t caught;
static int pipe_fds[2];

static void *add(void *arg) {
  __atomic_fetch_add(&total, (long)arg, __ATOMIC_RELAXED);
  return NULL;
}

static void on_usr1(int sig) {
  (void)sig;
  caught++;
}

/* Blocks in read (restarted after each signal) until the main thread writes. */
static void *reader(void *arg) {
  (void)arg;
  char c;
  long n = read(pipe_fds[0], &c, 1);
  return (void *)n;
}

int main(void) {
  for (int wave = 0; wave < WAVES; wave++) {
    pthread_t ids[PER_WAVE];
    for (long i = 0; i < PER_WAVE; i++)
      if (pthread_create(&ids[i], NULL, add, (void *)(i + 1)) != 0) return 1;
    for (int i = 0; i < PER_WAVE; i++) pthread_join(ids[i], NULL);
  }
  printf("threads: %d created and joined, total %ld\n", WAVES * PER_WAVE, total);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, NULL);
  pipe(pipe_fds);
  pthread_t blocked;
  pthread_create(&blocked, NULL, reader, NULL);
  struct timespec ms = {0, 1000 * 1000};
  for (int i = 0; i < 100; i++) {
    pthread_kill(blocked, SIGUSR1);
    nanosleep(&ms, NULL);
  }
  write(pipe_fds[1], "x", 1);
  void *n;
  pthread_join(blocked, &n);
  printf("signals during read: handler ran %s, read returned %ld\n", caught > 0 ? "yes" : "no",
         (long)n);

  /* Fork under memory pressure: 8 MB touched, then children until fork fails. */
  size_t bytes = 8u << 20;
  char *memory = malloc(bytes);
  memset(memory, 1, bytes);
  pid_t children[MAX_CHILDREN];
  int count = 0, failed = 0;
  while (count < MAX_CHILDREN) {
    pid_t pid = fork();
    if (pid == 0) {
      memory[count] = 2; /* its own copy */
      for (;;) pause();
    }
    if (pid < 0) {
      failed = errno == ENOMEM || errno == EAGAIN;
      if (!failed) printf("fork failed with %s\n", strerror(errno));
      break;
    }
    children[count++] = pid;
  }
  for (int i = 0; i < count; i++) kill(children[i], SIGKILL);
  int reaped = 0, killed = 0, status;
  for (int i = 0; i < count; i++)
    if (waitpid(children[i], &status, 0) == children[i]) {
      reaped++;
      killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    }
  printf("fork under pressure: %s, every child killed and reaped: %s, parent's memory intact: %s\n",
         failed || count == MAX_CHILDREN ? "stopped cleanly" : "?",
         reaped == count && killed == count ? "yes" : "no",
         memory[0] == 1 && memory[count - 1] == 1 ? "yes" : "no");
  /* And fork still works afterwards. */
  pid_t pid = fork();
  if (pid == 0) _exit(4);
  waitpid(pid, &status, 0);
  printf("fork afterwards: status %d\n", WEXITSTATUS(status));
  return 0;
}
