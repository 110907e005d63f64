/* Arithmetic traps in the middle of a block (issues 25 and 27): an addl/v
   that overflows, executed TRAPS times, each caught by a SIGFPE handler that
   returns. Arithmetic traps are imprecise: our kernel, as Linux/Alpha, hands
   the handler a PC already past the trapping instruction
   (kernel/traps.cpp handle_arithmetic_trap), so the two addq's after it run
   once per iteration, after the handler. QEMU raises the trap from the
   instruction's helper in the middle of its translation block
   (target/alpha/int_helper.c helper_check_overflow): the ev5 model must not
   count the rest of that block as run (tests/qemu/ev5_arith_traps.py).
   Prints the handler's count, the trapping instruction's address and what
   the two addq's added (2 per iteration: the program's own oracle). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define TRAPS 20000

static volatile sig_atomic_t caught;

static void on_fpe(int sig) {
  (void)sig;
  caught++;
}

extern const char overflow_site[];

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_fpe;
  if (sigaction(SIGFPE, &action, NULL) != 0) return 1;
  long big = 0x7fffffff, after = 0;
  for (int i = 0; i < TRAPS; ++i) {
    long sum;
    __asm__ volatile(
        ".globl overflow_site\n"
        "overflow_site: addl/v %2, %2, %0\n"
        "addq %1, 1, %1\n"
        "addq %1, 1, %1"
        : "=&r"(sum), "+r"(after)
        : "r"(big)
        : "memory");
  }
  printf("caught %d at %p; the two after it added %ld\n", (int)caught, (const void *)overflow_site,
         after);
  return caught == TRAPS && after == 2L * TRAPS ? 0 : 2;
}
