/* False sharing on the ev5 machine's multiprocessor (issue 25 item 6): four
 * threads each add into their own counter, the counters either side by side
 * in one 64-byte line ("shared") or a line apart ("padded"). With shared
 * counters every store takes the line from the other CPUs' caches (an
 * invalidation) and their next load gets it back from the writer (an
 * intervention); padded, the threads never touch each other's lines. The
 * sum is the same either way, checked against qemu-alpha.
 *
 *   false_sharing shared|padded [ROUNDS] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define LINE 64

struct padded_counter {
  volatile long value;
  char pad[LINE - sizeof(long)];
};

static volatile long shared_counters[THREADS] __attribute__((aligned(LINE)));
static struct padded_counter padded_counters[THREADS] __attribute__((aligned(LINE)));
static pthread_barrier_t start;  /* all four count at once */
static int padded;
static long rounds = 200000;

static volatile long *counter_of(long k) {
  return padded ? &padded_counters[k].value : &shared_counters[k];
}

static void *work(void *arg) {
  const long k = (long)arg;
  volatile long *counter = counter_of(k);
  pthread_barrier_wait(&start);
  for (long i = 0; i < rounds; ++i) *counter += i ^ k;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "shared") != 0 && strcmp(argv[1], "padded") != 0)) {
    fprintf(stderr, "usage: false_sharing shared|padded [ROUNDS]\n");
    return 2;
  }
  padded = strcmp(argv[1], "padded") == 0;
  if (argc > 2) rounds = atol(argv[2]);
  pthread_barrier_init(&start, NULL, THREADS);
  pthread_t threads[THREADS];
  for (long k = 0; k < THREADS; ++k)
    if (pthread_create(&threads[k], NULL, work, (void *)k) != 0) {
      perror("pthread_create");
      return 1;
    }
  long sum = 0;
  for (long k = 0; k < THREADS; ++k) {
    pthread_join(threads[k], NULL);
    sum += *counter_of(k);
  }
  printf("%s: %d threads x %ld rounds, sum %ld\n", argv[1], THREADS, rounds, sum);
  return 0;
}
