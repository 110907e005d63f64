/* mathcall: the value-profiling workload.  A loop calls two routines that
   take a double whose value is semi-invariant: 90 % of the calls pass the
   same value (1.25), the others a pseudo-random one in [-8, 8):
     - poly_exp(x): exp(x) written here with only + - * / (range reduction
       to |r| <= ln2/2 and a degree-13 Taylor polynomial), bit-identical on
       every IEEE machine;
     - sin(x) from the C library (newlib's in the guest, glibc's natively),
       whose last bit may differ between the libraries.
   A value profiler should find x = 1.25 at ~90 % in both.

   Instruction budget (Alpha, -O2): poly_exp, newlib's sin, llround and the
   random draw: ~245 instructions per iteration; CALLS = 1,500,000 ->
   370 M measured, ~0.37 s at 1e9/s.

   Checksum: the bit pattern of the sum of every poly_exp result, the
   number of invariant calls, and the sum of sin results each rounded to
   1e-6 (robust against a last-ulp difference).  Compiled with
   -ffp-contract=off (and -mieee on Alpha). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define CALLS 1500000
#define INVARIANT 1.25

static double coeff[14]; /* 1/k! */

static double __attribute__((noinline)) poly_exp(double x) {
  const double ln2 = 0.69314718055994530942;
  double t = x / ln2;
  long k = (long)(t < 0.0 ? t - 0.5 : t + 0.5);
  double r = x - (double)k * ln2;
  double p = coeff[13];
  for (int i = 12; i >= 0; i--) p = p * r + coeff[i];
  for (; k > 0; k--) p *= 2.0;
  for (; k < 0; k++) p *= 0.5;
  return p;
}

int main(int argc, char **argv) {
  long calls = argc > 1 ? atol(argv[1]) : CALLS;
  coeff[0] = 1.0;
  for (int i = 1; i < 14; i++) coeff[i] = coeff[i - 1] / (double)i;
  for (double x = -8.0; x <= 8.0; x += 0.375) /* the routine is a real exp */
    if (fabs(poly_exp(x) - exp(x)) > 1e-13 * exp(x)) {
      printf("mathcall: poly_exp(%g) = %.17g, exp = %.17g\n", x, poly_exp(x), exp(x));
      return 1;
    }

  uint64_t seed = 0x6d617468;
  double exp_sum = 0.0;
  long long sin_sum = 0;
  uint64_t invariant = 0;
  for (long i = 0; i < calls; i++) {
    uint64_t r = ck_rand(&seed);
    double x;
    if (r % 10 != 0) {
      x = INVARIANT;
      invariant++;
    } else {
      x = (double)(int64_t)(r >> 11 & 0xffffff) / (double)(1 << 20) - 8.0;
    }
    exp_sum += poly_exp(x);
    sin_sum += llround(sin(x) * 1e6);
  }
  printf("mathcall: %ld calls, %llu with x = %g\n", calls, (unsigned long long)invariant,
         INVARIANT);
  uint64_t sum = ck_mix(ck_double_bits(exp_sum), invariant);
  ck_print("mathcall", ck_mix(sum, (uint64_t)sin_sum));
  return 0;
}
