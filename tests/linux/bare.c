/* A bare-metal program for the README's three lines: built with
   build/guest/dcpi-newlib-gcc (newlib and our runtime), run with
   dcpi run -- ./bare. */
#include <stdio.h>

int main(void) {
  unsigned long sum = 0;
  for (unsigned long i = 1; i <= 3000000; i++) sum += i * i % 7;
  printf("bare metal sum %lu\n", sum);
  return 0;
}
