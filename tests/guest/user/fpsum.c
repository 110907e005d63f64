/* Floating point across context switches: sums (k+1)/4 * i in doubles for
 * long enough to be preempted several times, then checks the exact result
 * (every partial sum is an integer multiple of 1/4 below 2^53: exact). */
#include "sys.h"

int main(int argc, char** argv) {
  long k = argc > 1 ? argv[1][0] - '0' : 0;
  const long n = 1000000;
  volatile double step = (double)(k + 1) * 0.25;
  double sum = 0.0, s = step;
  for (long i = 0; i < n; ++i) sum += s * (double)i;
  long expected4 = (k + 1) * (n * (n - 1) / 2);  // 4 * the exact sum
  long got4 = (long)(sum * 4.0);
  put("fpsum: k ");
  put_num(k, 10);
  put(got4 == expected4 ? " exact\n" : " WRONG\n");
  return got4 == expected4 ? 0 : 1;
}
