/* copy: the McCalpin copy loop of the DCPI paper's Figure 2, c[i] = a[i]
   over 64-bit elements, n = 2,000,000 (16 MB per array), REPS times.

   Instruction budget (Alpha, gcc -O2 -mcpu=ev56): the loop body is
   ldq/stq/addq/addq/cmpult/bne, 6 instructions per element, so one pass
   is ~12 M instructions and REPS = 20 passes ~240 M, plus ~30 M for the
   initialisation and the checksum pass: 270 M measured, ~0.27 s at 1e9
   instructions/s.

   Built with -fno-tree-loop-distribute-patterns so that GCC keeps the loop
   instead of calling memcpy.  Checksum: a mix of every element of c after
   the last pass (a[] is perturbed between passes so none is dead). */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define N 2000000
#define REPS 20

static uint64_t a[N], c[N];

static void __attribute__((noinline))
copy_loop(uint64_t *restrict dst, const uint64_t *restrict src, long n) {
  for (long i = 0; i < n; i++) dst[i] = src[i];
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : REPS;
  uint64_t seed = 1;
  for (long i = 0; i < N; i++) a[i] = ck_rand(&seed);
  for (int r = 0; r < reps; r++) {
    copy_loop(c, a, N);
    a[(r * 7919) % N] += c[(r * 104729) % N]; /* the next pass copies something new */
  }
  uint64_t sum = 0;
  for (long i = 0; i < N; i += 1) sum = sum * 31 + c[i];
  ck_print("copy", ck_mix(sum, (uint64_t)reps));
  return 0;
}
