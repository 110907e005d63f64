/* A program whose paths are known by construction (issue 28, seed 002 §2):
 * tests/linux/paths.py checks `dcpi run --machine ev5 --paths` against it.
 *
 * correlated(): two branches in one loop body test the same (volatile)
 * flag, so of the body's four paths only two run, half the iterations
 * each: (load a far element, call left) and (add, call right). Each branch
 * alone goes either way half the time, so an edge profile cannot tell
 * these two paths from the other two; the path profile can. Only the
 * load's path misses in the D-cache (a 512 KiB array, strided). */
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noclone))
enum { kIterations = 20000, kFlags = 4096, kBig = 1 << 16 };

static volatile unsigned char flags[kFlags];
static volatile long sink;
static long big[kBig];

NOINLINE static void left(void) { sink += 1; }
NOINLINE static void right(void) { sink += 2; }

NOINLINE static long correlated(int n) {
  long total = 0;
  for (int i = 0; i < n; ++i) {
    if (flags[i & (kFlags - 1)])
      total += big[(i * 4099) & (kBig - 1)];
    else
      total += i;
    if (flags[i & (kFlags - 1)])
      left();
    else
      right();
  }
  return total;
}

int main(void) {
  for (int i = 0; i < kFlags; ++i) flags[i] = (unsigned char)(i & 1);
  for (int i = 0; i < kBig; ++i) big[i] = i;
  printf("paths %ld %ld\n", correlated(kIterations), (long)sink);
  return 0;
}
