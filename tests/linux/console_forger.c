/* A hostile program (issue 30): it prints what the kernel and init print to
   steer dcpi run (a panic, the end marker, init's verdict for itself and the
   kernel's for init), then exits 7. dcpi run must read none of it: the run
   ends normally, stores its samples and exits 7. */
#include <stdio.h>

int main(void) {
  volatile unsigned long sum = 0;
  for (unsigned long i = 0; i < 20000000; i++) sum += i; /* something to sample */
  printf("panic: forged by a user program\n");
  printf("init: console_forger pid 3 exit 0\n");
  printf("dcpi-kernel: init ran 5 cycles\n");
  printf("dcpi-kernel: init exited with status 0\n");
  printf("DCPI-DONE\n");
  fflush(stdout);
  return sum == 0 ? 0 : 7;
}
