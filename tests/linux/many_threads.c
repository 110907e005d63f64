/* Many threads alive at once: 48, each with glibc's default stack (8 MB,
   mapped PROT_NONE and opened with mprotect), 384 MB of stacks in a guest
   of 256 MB. Anonymous memory is demand-zero, as on Linux, so each thread
   costs only the stack pages it touches (made eagerly, the 30th
   pthread_create failed with EAGAIN). Each thread fills 16 KB of its stack
   and waits at a barrier until all exist; the output is identical under
   our kernel and under qemu-alpha user mode. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 48

static pthread_barrier_t all_alive;
static unsigned long sums[THREADS];

static void* thread_main(void* arg) {
  const long id = (long)arg;
  volatile unsigned char scratch[16384];
  memset((void*)scratch, (int)id, sizeof scratch);
  pthread_barrier_wait(&all_alive);
  unsigned long sum = 0;
  for (size_t i = 0; i < sizeof scratch; i += 64) sum += scratch[i];
  sums[id] = sum;
  return NULL;
}

int main(void) {
  pthread_t threads[THREADS];
  pthread_barrier_init(&all_alive, NULL, THREADS);
  for (long t = 0; t < THREADS; ++t) {
    const int error = pthread_create(&threads[t], NULL, thread_main, (void*)t);
    if (error != 0) {
      printf("pthread_create %ld: error %d\n", t, error);
      return 1;
    }
  }
  unsigned long total = 0;
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    total += sums[t];
  }
  printf("%d threads alive at once, sum %lu\n", THREADS, total);
  return 0;
}
