/* A program whose calling contexts are known by construction (issue 28,
 * seed 002): tests/linux/contexts.py checks `dcpi run --contexts` against
 * the counts below.
 *
 *  - the "gprof problem": work() is called 900 times from cheap() at 10
 *    rounds a call and 100 times from dear() at 1000 rounds a call, so
 *    cheap's calls are 90 % of work's calls but 8 % of its cost;
 *  - recursion: fib(15) makes 1973 calls of fib, folded into one context;
 *  - longjmp: thrower() is entered 50 times through deep() and jumps back
 *    to main; after_jump() called next must be main's child, not deep's;
 *  - libc: memcpy's callers (copier) become visible. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile unsigned long sink;
static jmp_buf env;

NOINLINE static void work(int rounds) {
  for (int i = 0; i < rounds; ++i) sink = sink * 31 + (unsigned long)i;
}
/* Not tail calls (a sibling call is a jump: work would run in their context). */
NOINLINE static void cheap(void) {
  work(10);
  sink += 1;
}
NOINLINE static void dear(void) {
  work(1000);
  sink += 1;
}

NOINLINE static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NOINLINE static void thrower(int i) {
  sink += (unsigned long)i;
  longjmp(env, 1);
}
NOINLINE static void deep(int i) {
  thrower(i);
  sink += 1; /* never reached */
}
NOINLINE static void after_jump(void) { sink += 7; }

NOINLINE static void copier(char* to, const char* from, size_t n) {
  for (int i = 0; i < 20; ++i) memcpy(to, from, n);
}

int main(void) {
  for (int i = 0; i < 900; ++i) cheap();
  for (int i = 0; i < 100; ++i) dear();
  long f = fib(15);
  for (int i = 0; i < 50; ++i) {
    if (setjmp(env) == 0) deep(i);
    after_jump();
  }
  static char a[65536], b[65536];
  copier(a, b, sizeof a);
  printf("calls %ld %lu\n", f, sink);
  return 0;
}
