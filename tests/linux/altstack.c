/* Alternate signal stacks (sigaltstack), as a program that wants to
 * survive a stack overflow sets one up: the stack reported before and after
 * (SS_DISABLE, SS_ONSTACK inside a handler), EINVAL and ENOMEM, a SIGSEGV
 * handler with SA_ONSTACK on a guard page and on an overflow of the 8 MB
 * stack (left with siglongjmp), a handler that raises a nested signal on
 * the same alternate stack, one without SA_ONSTACK on the thread's stack,
 * and SS_DISABLE. Before, sigaltstack reported none and every handler ran
 * on the thread's stack. Output equals qemu-alpha's. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf jb;
static char *alt;
static volatile int depth_seen;
static volatile int on_alt;

static void segv(int sig, siginfo_t *si, void *uc) {
  char here;
  on_alt = (&here >= alt && &here < alt + 65536);
  stack_t cur;
  sigaltstack(NULL, &cur);
  depth_seen = (cur.ss_flags & SS_ONSTACK) ? 1 : 0;
  siglongjmp(jb, 1);
}

static int recurse(int n) {
  volatile char buf[1024];
  buf[0] = n;
  return n + recurse(n + 1) + buf[0];
}

static volatile int inner_count;
static void usr2(int s) { inner_count++; }
static void usr1(int s) {
  char here;
  int alt_here = (&here >= alt && &here < alt + 65536);
  printf("usr1 on alt %d\n", alt_here);
  raise(SIGUSR2); /* nested: runs on the same alt stack */
  printf("usr1 after nested usr2 %d\n", inner_count);
}

int main(void) {
  stack_t ss, old;
  memset(&old, 0, sizeof old);
  int r = sigaltstack(NULL, &old);
  printf("initial: %d flags %d size %zu\n", r, old.ss_flags, old.ss_size);
  alt = malloc(65536);
  ss.ss_sp = alt;
  ss.ss_size = 65536;
  ss.ss_flags = 0;
  r = sigaltstack(&ss, NULL);
  printf("set: %d\n", r);
  sigaltstack(NULL, &old);
  printf("now: flags %d size %zu same %d\n", old.ss_flags, old.ss_size, old.ss_sp == alt);
  stack_t small = {.ss_sp = alt, .ss_size = 100, .ss_flags = 0};
  r = sigaltstack(&small, NULL);
  printf("too small: %d %s\n", r, strerror(errno));
  stack_t bad = {.ss_sp = alt, .ss_size = 65536, .ss_flags = 12345};
  r = sigaltstack(&bad, NULL);
  printf("bad flags: %d %s\n", r, strerror(errno));

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, NULL);
  /* 1: fault on a guard page */
  char *m = mmap(NULL, 4 * 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mprotect(m + 65536, 65536, PROT_NONE);
  if (sigsetjmp(jb, 1) == 0) {
    m[65536 + 5] = 1;
    printf("no fault?\n");
  } else
    printf("guard fault caught, on alt %d onstack flag %d\n", on_alt, depth_seen);
  /* 2: stack overflow */
  on_alt = 0;
  if (sigsetjmp(jb, 1) == 0) {
    printf("recursed %d\n", recurse(0));
  } else
    printf("overflow caught, on alt %d onstack flag %d\n", on_alt, depth_seen);
  sigaltstack(NULL, &old);
  printf("after: flags %d\n", old.ss_flags);
  /* 3: nested signals on the alt stack */
  struct sigaction s1 = {0};
  s1.sa_handler = usr1;
  s1.sa_flags = SA_ONSTACK;
  sigaction(SIGUSR1, &s1, NULL);
  struct sigaction s2 = {0};
  s2.sa_handler = usr2;
  s2.sa_flags = SA_ONSTACK;
  sigaction(SIGUSR2, &s2, NULL);
  raise(SIGUSR1);
  /* 4: without SA_ONSTACK: on the normal stack */
  s1.sa_flags = 0;
  sigaction(SIGUSR1, &s1, NULL);
  raise(SIGUSR1);
  /* 5: disable */
  ss.ss_flags = SS_DISABLE;
  r = sigaltstack(&ss, NULL);
  sigaltstack(NULL, &old);
  printf("disabled: %d flags %d\n", r, old.ss_flags);
  return 0;
}
