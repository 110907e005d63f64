/* An OpenMP program (issue 29): GCC's libgomp starts a team of 4 threads
   (num_threads(4), so the team does not depend on how many CPUs the host of
   qemu-alpha has), a statically scheduled loop with a reduction, a
   critical section, a barrier and a dynamically scheduled loop. Everything
   it prints is deterministic except the lines starting "tid ", which the
   test compares with the database (each team member's gettid).

   openmp [N]   N iterations of the static loop (default 3000000) */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TEAM 4

int main(int argc, char **argv) {
  const long n = argc > 1 ? atol(argv[1]) : 3000000;
  long iterations[TEAM] = {0}, tids[TEAM] = {0}, critical = 0, dynamic_sum = 0;
  unsigned long sum = 0;
  int team = 0;
#pragma omp parallel num_threads(TEAM) reduction(+ : sum)
  {
    const int me = omp_get_thread_num();
    tids[me] = syscall(SYS_gettid);
#pragma omp single
    team = omp_get_num_threads();
#pragma omp for schedule(static)
    for (long i = 0; i < n; i++) {
      unsigned long x = (unsigned long)i * 2654435761ul;
      sum += (x ^ (x >> 13)) % 1000;
      iterations[me]++;
    }
#pragma omp critical
    critical += me + 1;
#pragma omp barrier
#pragma omp for schedule(dynamic, 64) reduction(+ : dynamic_sum)
    for (long i = 0; i < 10000; i++) dynamic_sum += i % 7;
  }
  printf("team of %d threads\n", team);
  for (int t = 0; t < TEAM; t++) printf("thread %d: %ld static iterations\n", t, iterations[t]);
  printf("sum %lu, critical %ld, dynamic %ld\n", sum, critical, dynamic_sum);
  for (int t = 0; t < TEAM; t++) printf("tid %d %ld\n", t, tids[t]);
  return 0;
}
