/* Threads under glibc's NPTL (issue 29): pthread_create/join, a mutex and a
   condition variable (futex wait/wake, requeue), a timed wait that times out
   (futex with an absolute timeout), thread-local storage (the PAL unique
   value), barriers, and gettid. Its output must be identical under our
   kernel and under qemu-alpha user mode, on 1 and 4 CPUs: everything it
   prints is deterministic whatever the interleaving.

   threads [THREADS [ROUNDS]]   default 4 threads, 20000 rounds
   threads --cpus               also report how many distinct CPUs the
                                threads ran on (the kernel's kinfo 1; not
                                under qemu-alpha) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int turn; /* the condition-variable relay: thread `turn` goes next */
static int threads = 4;
static long rounds = 20000;
static __thread long tls_sum; /* each thread its own: TLS via the unique value */
static pthread_barrier_t barrier;
static int report_cpus;
static unsigned long cpu_mask;

struct result {
  long tls_sum;
  long relayed;
  pid_t tid;
};

static void *worker(void *arg) {
  int id = (int)(long)arg;
  struct result *r = calloc(1, sizeof *r);
  r->tid = (pid_t)syscall(SYS_gettid);
  pthread_barrier_wait(&barrier);
  for (long i = 0; i < rounds; i++) {
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    tls_sum += id + 1;
  }
  /* A relay through one condition variable: each thread waits for its turn
     several times, so waits, broadcasts and wake-ups interleave. */
  for (int k = 0; k < 5; k++) {
    pthread_mutex_lock(&lock);
    while (turn != id) pthread_cond_wait(&cond, &lock);
    turn = (turn + 1) % threads;
    r->relayed++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
  }
  if (report_cpus) {
    for (volatile long spin = 0; spin < 200000; spin++) {
    }
    __atomic_fetch_or(&cpu_mask, 1ul << syscall(1002, 1), __ATOMIC_RELAXED);
  }
  r->tls_sum = tls_sum;
  return r;
}

static void timed_wait(void) {
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += 20 * 1000 * 1000; /* 20 ms: nobody signals */
  if (deadline.tv_nsec >= 1000000000) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000;
  }
  pthread_mutex_lock(&lock);
  int rc = pthread_cond_timedwait(&cond, &lock, &deadline);
  pthread_mutex_unlock(&lock);
  printf("timedwait: %s\n", rc == ETIMEDOUT ? "ETIMEDOUT" : strerror(rc));
}

static const char *err(long rc) {
  return rc == 0              ? "0"
         : errno == EFAULT    ? "EFAULT"
         : errno == EINVAL    ? "EINVAL"
         : errno == EAGAIN    ? "EAGAIN"
         : errno == ETIMEDOUT ? "ETIMEDOUT"
         : errno == ENOSYS    ? "ENOSYS"
                              : strerror(errno);
}

/* The failing paths of the raw calls: bad and unaligned addresses, a
   changed value, a relative timeout, an unknown operation, bad clone flags. */
static void futex_errors(void) {
  static unsigned int word = 7;
  struct timespec ms = {0, 1000000};
  printf("futex wait at 0x8: %s\n", err(syscall(SYS_futex, (void *)8, 0, 0, NULL, NULL, 0)));
  printf("futex wait unaligned: %s\n",
         err(syscall(SYS_futex, (char *)&word + 1, 0, 7, NULL, NULL, 0)));
  printf("futex wait on a changed value: %s\n",
         err(syscall(SYS_futex, &word, 0, 6, NULL, NULL, 0)));
  printf("futex wait 1 ms: %s\n", err(syscall(SYS_futex, &word, 0, 7, &ms, NULL, 0)));
  printf("futex wake nobody: %ld\n", syscall(SYS_futex, &word, 1, 1, NULL, NULL, 0));
  printf("futex op 99: %s\n", err(syscall(SYS_futex, &word, 99, 0, NULL, NULL, 0)));
  printf("clone(CLONE_THREAD) alone: %s\n", err(syscall(SYS_clone, 0x10000, 0, 0, 0, 0)));
}

int main(int argc, char **argv) {
  int arg = 1;
  if (arg < argc && strcmp(argv[arg], "--cpus") == 0) report_cpus = 1, arg++;
  if (arg < argc) threads = atoi(argv[arg++]);
  if (arg < argc) rounds = atol(argv[arg++]);
  if (threads < 1 || threads > MAX_THREADS) return 2;
  pthread_t ids[MAX_THREADS];
  pthread_barrier_init(&barrier, NULL, threads);
  for (int i = 0; i < threads; i++) {
    int rc = pthread_create(&ids[i], NULL, worker, (void *)(long)i);
    if (rc != 0) {
      printf("pthread_create: %s\n", strerror(rc));
      return 1;
    }
  }
  pid_t main_tid = (pid_t)syscall(SYS_gettid);
  int distinct = 1;
  long expected_tls = 0;
  for (int i = 0; i < threads; i++) {
    struct result *r;
    pthread_join(ids[i], (void **)&r);
    printf("thread %d: tls %ld relayed %ld\n", i, r->tls_sum, r->relayed);
    expected_tls += r->tls_sum == rounds * (i + 1);
    distinct &= r->tid != main_tid && r->tid != getpid();
    free(r);
  }
  printf("counter %ld (expected %ld)\n", counter, (long)threads * rounds);
  printf("tls sums right: %ld of %d; thread ids distinct from the process's: %s\n", expected_tls,
         threads, distinct ? "yes" : "no");
  printf("main tls untouched: %ld\n", tls_sum);
  timed_wait();
  futex_errors();
  if (report_cpus) printf("cpus used: %d\n", __builtin_popcountl(cpu_mask));
  return counter == (long)threads * rounds ? 0 : 1;
}
