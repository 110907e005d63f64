/* stream: McCalpin's STREAM kernels on doubles, n = 1,000,000 (8 MB per
   array), NTIMES = 10 rounds of
     copy   c[j] = a[j]                 (the DCPI paper's "assign")
     scale  b[j] = scalar * c[j]
     add    c[j] = a[j] + b[j]          ("sum")
     triad  a[j] = b[j] + scalar * c[j]

   Instruction budget (Alpha, -O2): about 6 + 7 + 8 + 9 = 30 instructions
   per element and round, i.e. ~300 M for 10 rounds plus set-up, checksum
   and validation: 396 M measured, ~0.4 s at 1e9 instructions/s.

   Compiled with -ffp-contract=off (no fused multiply-add) and
   -fno-tree-loop-distribute-patterns (copy stays a loop), so the results
   are bit-identical on Alpha and on the host.  Checksum: the bit patterns
   of the sums of a, b and c, then STREAM's own validation (the expected
   values computed by scalar recurrence) as one bit. */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define N 1000000
#define NTIMES 10

static double a[N], b[N], c[N];

static void __attribute__((noinline))
stream_copy(double *restrict dst, const double *restrict src) {
  for (long j = 0; j < N; j++) dst[j] = src[j];
}

static void __attribute__((noinline))
stream_scale(double *restrict dst, const double *restrict src, double scalar) {
  for (long j = 0; j < N; j++) dst[j] = scalar * src[j];
}

static void __attribute__((noinline))
stream_add(double *restrict dst, const double *restrict x, const double *restrict y) {
  for (long j = 0; j < N; j++) dst[j] = x[j] + y[j];
}

static void __attribute__((noinline)) stream_triad(double *restrict dst, const double *restrict x,
                                                   const double *restrict y, double scalar) {
  for (long j = 0; j < N; j++) dst[j] = x[j] + scalar * y[j];
}

static double sum_of(const double *v) {
  double s = 0.0;
  for (long j = 0; j < N; j++) s += v[j];
  return s;
}

int main(int argc, char **argv) {
  int ntimes = argc > 1 ? atoi(argv[1]) : NTIMES;
  const double scalar = 3.0;
  for (long j = 0; j < N; j++) {
    a[j] = 1.0;
    b[j] = 2.0;
    c[j] = 0.0;
  }
  for (long j = 0; j < N; j++) a[j] = 2.0 * a[j];

  for (int k = 0; k < ntimes; k++) {
    stream_copy(c, a);
    stream_scale(b, c, scalar);
    stream_add(c, a, b);
    stream_triad(a, b, c, scalar);
  }

  /* STREAM's validation: replay the recurrence on scalars. */
  double aj = 2.0, bj = 2.0, cj = 0.0;
  for (int k = 0; k < ntimes; k++) {
    cj = aj;
    bj = scalar * cj;
    cj = aj + bj;
    aj = bj + scalar * cj;
  }
  int valid = a[N / 2] == aj && b[N / 3] == bj && c[N - 1] == cj;

  uint64_t sum = ck_mix(0, ck_double_bits(sum_of(a)));
  sum = ck_mix(sum, ck_double_bits(sum_of(b)));
  sum = ck_mix(sum, ck_double_bits(sum_of(c)));
  sum = ck_mix(sum, (uint64_t)valid);
  if (!valid) printf("stream: validation FAILED\n");
  ck_print("stream", sum);
  return valid ? 0 : 1;
}
