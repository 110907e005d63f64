/* matmul: the floating-point workload, C = A * B and then D = C * A on
   N x N doubles (N = 256), i-k-j loop order (unit stride inner loop).

   Instruction budget (Alpha, -O2): the inner loop is ldt/ldt/mult/addt/stt
   plus address arithmetic and branch, ~11 instructions per multiply-add;
   2 * N^3 = 33.5 M multiply-adds -> 375 M measured, ~0.37 s at 1e9/s.

   Compiled with -ffp-contract=off: no fused multiply-add on the host, so
   the results are bit-identical to Alpha's.  Checksum: the bit patterns of
   every row sum of D and the trace of C. */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define N 256

static double A[N][N], B[N][N], C[N][N], D[N][N];

static void __attribute__((noinline))
matmul(double (*restrict z)[N], double (*restrict x)[N], double (*restrict y)[N]) {
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) z[i][j] = 0.0;
    for (int k = 0; k < N; k++) {
      double xik = x[i][k];
      for (int j = 0; j < N; j++) z[i][j] += xik * y[k][j];
    }
  }
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * 7 + j * 3) % 17 - 8) / 8.0;
      B[i][j] = (double)((i * 5 + j * 11) % 13 - 6) / 3.0 + 0.001 * (double)(i - j);
    }
  matmul(C, A, B);
  matmul(D, C, A);
  uint64_t sum = 0;
  double trace = 0.0;
  for (int i = 0; i < N; i++) {
    double row = 0.0;
    for (int j = 0; j < N; j++) row += D[i][j];
    sum = ck_mix(sum, ck_double_bits(row));
    trace += C[i][i];
  }
  ck_print("matmul", ck_mix(sum, ck_double_bits(trace)));
  return 0;
}
