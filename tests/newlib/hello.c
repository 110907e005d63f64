/* Smoke test for the Alpha newlib build (toolchain/build-newlib.sh):
   stdio with integer and floating-point formatting, malloc, string, libm.
   The output is captured by the stub _write in syscalls.c; main compares it
   with the expected text and returns 0 on a match.  */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscalls.h"

int main(void)
{
  char *s = malloc(32);
  if (s == NULL)
    return 2;
  strcpy(s, "alpha");

  volatile double two = 2.0; /* keep sqrt() a real libm call */
  printf("n=%d len=%u pi=%f sqrt2=%.6f big=%lld\n", 42, (unsigned)strlen(s),
         3.14159265358979, sqrt(two), 1234567890123LL);
  fflush(stdout);
  free(s);

  const char *want = "n=42 len=5 pi=3.141593 sqrt2=1.414214 big=1234567890123\n";
  return strcmp(stub_output(), want) == 0 ? 0 : 1;
}
