/* Instruction traps for ProfileMe's trap bit (issue 27 item 2): a reserved
   opcode (0x01, the 21164's OPCDEC trap, PALcode's 0x380) executed TRAPS
   times, each caught by a SIGILL handler that returns past it (our kernel,
   like QEMU, delivers the fault with the PC of the next instruction). The
   tests/qemu/ev5_profileme_traps.py test counts the trap at its PC in the
   ev5 model's truth (`pcevent PC trap N`) and in ProfileMe's records. Prints
   the handler's count and the trapping instruction's address. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define TRAPS 20000

static volatile sig_atomic_t caught;

static void on_ill(int sig) {
  (void)sig;
  caught++;
}

extern const char illegal_site[];

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_ill;
  if (sigaction(SIGILL, &action, NULL) != 0) return 1;
  for (int i = 0; i < TRAPS; ++i)
    __asm__ volatile(
        ".globl illegal_site\n"
        "illegal_site: .long 0x04000000" ::: "memory");
  printf("caught %d at %p\n", (int)caught, (const void *)illegal_site);
  return caught == TRAPS ? 0 : 2;
}
