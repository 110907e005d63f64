/* A serial phase, then threads that each run the same arithmetic loop, one
 * per CPU (issue 25 item 6's multiprocessor, seen by dcpi calc): under
 * -icount the CPUs share one virtual clock, so a sample of a thread stands
 * for its share of a period (kernel/cpu_time.h), 1 for the serial phase and
 * about 1/THREADS for the workers. Prints the results, which qemu-alpha
 * gives too. Usage: parallel_work [THREADS [ITERATIONS [SERIAL]]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxThreads = 8 };
static long iterations = 2000000;
static volatile long results[kMaxThreads * 8]; /* a line apart */

static void *work(void *arg) {
  long id = (long)arg, acc = id;
  for (long i = 0; i < iterations; i++) {
    acc = acc * 6364136223846793005L + 1442695040888963407L;
    if (acc & 0x100)
      acc ^= i;
    else
      acc += i >> 3;
  }
  results[id * 8] = acc;
  return 0;
}

/* The main thread alone, before the workers start. */
static long __attribute__((noinline)) serial_work(long rounds) {
  long acc = 7;
  for (long i = 0; i < rounds; i++) {
    acc = acc * 2862933555777941757L + 3037000493L;
    if (acc & 0x200)
      acc ^= i;
    else
      acc += i >> 2;
  }
  return acc;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  if (argc > 2) iterations = atol(argv[2]);
  long serial = argc > 3 ? atol(argv[3]) : 0;
  if (threads < 1 || threads > kMaxThreads) return 2;
  printf("serial: %ld\n", serial_work(serial));
  pthread_t id[kMaxThreads];
  for (long t = 0; t < threads; t++)
    if (pthread_create(&id[t], 0, work, (void *)t) != 0) return 1;
  for (int t = 0; t < threads; t++) pthread_join(id[t], 0);
  for (int t = 0; t < threads; t++) printf("thread %d: %ld\n", t, results[t * 8]);
  return 0;
}
