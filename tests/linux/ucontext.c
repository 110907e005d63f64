/* Coroutines with getcontext/makecontext/swapcontext, as a scheduler or a
 * generator library writes them, and the signal mask a context carries:
 * glibc's Alpha getcontext and setcontext save and restore it with
 * osf_sigprocmask (48), which was ENOSYS, so getcontext saved ENOSYS's
 * number as the mask and setcontext blocked SIGINT and SIGQUIT. Also
 * setjmp/longjmp error handling and sigsetjmp's saved mask. Output equals
 * qemu-alpha's. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static ucontext_t main_ctx, co_ctx[3];
static long shared_val;

static void gen(int id, int step) {
  for (int i = 0; i < 5; i++) {
    shared_val = id * 100 + i * step;
    swapcontext(&co_ctx[id], &main_ctx);
  }
  shared_val = -1;
}

static jmp_buf err;
static void fail(int code) { longjmp(err, code); }
static int parse(const char *s) {
  int v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') fail(2);
    v = v * 10 + (*s - '0');
    if (v > 100000) fail(3);
  }
  return v;
}

static volatile int got;
static void h(int s) { got = s; }

int main(void) {
  static char stacks[3][64 * 1024];
  for (int i = 0; i < 3; i++) {
    getcontext(&co_ctx[i]);
    co_ctx[i].uc_stack.ss_sp = stacks[i];
    co_ctx[i].uc_stack.ss_size = sizeof stacks[i];
    co_ctx[i].uc_link = &main_ctx;
    makecontext(&co_ctx[i], (void (*)(void))gen, 2, i, i + 1);
  }
  int alive[3] = {1, 1, 1}, n = 3;
  while (n) {
    for (int i = 0; i < 3; i++)
      if (alive[i]) {
        swapcontext(&main_ctx, &co_ctx[i]);
        if (shared_val < 0) {
          alive[i] = 0;
          n--;
          printf("co %d done\n", i);
        } else
          printf("co %d yields %ld\n", i, shared_val);
      }
  }
  /* signal mask saved/restored by contexts */
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGUSR1);
  ucontext_t a;
  volatile int pass = 0;
  getcontext(&a);
  if (pass == 0) {
    pass = 1;
    sigprocmask(SIG_BLOCK, &s, NULL);
    setcontext(&a);
  }
  sigset_t now;
  sigprocmask(SIG_BLOCK, NULL, &now);
  printf("mask restored by setcontext: usr1 %d int %d quit %d\n", sigismember(&now, SIGUSR1),
         sigismember(&now, SIGINT), sigismember(&now, SIGQUIT));
  sigprocmask(SIG_UNBLOCK, &s, NULL);
  /* A context saved with SIGUSR2 blocked, resumed after the mask changed. */
  ucontext_t saved;
  volatile int again = 0;
  sigset_t u2;
  sigemptyset(&u2);
  sigaddset(&u2, SIGUSR2);
  sigprocmask(SIG_BLOCK, &u2, NULL);
  getcontext(&saved);
  sigprocmask(SIG_BLOCK, NULL, &now);
  printf("pass %d: usr2 %d hup %d\n", again, sigismember(&now, SIGUSR2), sigismember(&now, SIGHUP));
  if (again == 0) {
    again = 1;
    sigset_t h;
    sigemptyset(&h);
    sigaddset(&h, SIGHUP);
    sigprocmask(SIG_SETMASK, &h, NULL);
    setcontext(&saved);
  }
  sigprocmask(SIG_UNBLOCK, &u2, NULL);
  signal(SIGUSR1, h);
  raise(SIGUSR1);
  printf("got %d\n", got);
  const char *in[] = {"123", "12a", "9999999", "42"};
  for (int i = 0; i < 4; i++) {
    int code = setjmp(err);
    if (code == 0)
      printf("parse %s = %d\n", in[i], parse(in[i]));
    else
      printf("parse %s failed %d\n", in[i], code);
  }
  /* sigsetjmp with mask */
  sigjmp_buf sj;
  sigset_t b;
  sigemptyset(&b);
  sigaddset(&b, SIGUSR2);
  if (sigsetjmp(sj, 1) == 0) {
    sigprocmask(SIG_BLOCK, &b, NULL);
    siglongjmp(sj, 1);
  }
  sigprocmask(SIG_BLOCK, NULL, &now);
  printf("usr2 blocked after siglongjmp %d\n", sigismember(&now, SIGUSR2));
  return 0;
}
