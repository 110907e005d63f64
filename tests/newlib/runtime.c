/* Run-time checks of the Alpha support code added to newlib by
   toolchain/build-newlib.sh (run only under qemu-alpha by link-test.sh):
   the integer division routines GCC calls (__divq, __remqu, __divl, ...),
   setjmp/longjmp, and IEEE special values (-mieee).  Prints one line and
   returns 0 if everything holds.  */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "syscalls.h"

static uint64_t rng_state = 0x243f6a8885a308d3u;
static uint64_t rnd(void)
{
  rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
  uint64_t x = rng_state;
  x ^= x >> 29;
  return x >> (x & 31); /* vary the magnitude */
}

static int errors;
#define CHECK(cond, ...)                 \
  do {                                   \
    if (!(cond) && errors++ < 5)         \
      printf("FAIL: " __VA_ARGS__);      \
  } while (0)

/* noinline + volatile operands: the divisions really call the helpers. */
static __attribute__((noinline)) void check_s64(int64_t n, int64_t d)
{
  if (d == 0 || (n == INT64_MIN && d == -1))
    return;
  volatile int64_t vn = n, vd = d;
  int64_t q = vn / vd, r = vn % vd;
  __int128 back = (__int128)q * d + r;
  uint64_t ar = r < 0 ? -(uint64_t)r : (uint64_t)r, ad = d < 0 ? -(uint64_t)d : (uint64_t)d;
  CHECK(back == n && ar < ad && (r == 0 || (r < 0) == (n < 0)), "s64 %lld / %lld = %lld r %lld\n",
        (long long)n, (long long)d, (long long)q, (long long)r);
}

static __attribute__((noinline)) void check_u64(uint64_t n, uint64_t d)
{
  if (d == 0)
    return;
  volatile uint64_t vn = n, vd = d;
  uint64_t q = vn / vd, r = vn % vd;
  unsigned __int128 back = (unsigned __int128)q * d + r;
  CHECK(back == n && r < d, "u64 %llu / %llu = %llu r %llu\n", (unsigned long long)n,
        (unsigned long long)d, (unsigned long long)q, (unsigned long long)r);
}

static __attribute__((noinline)) void check_s32(int32_t n, int32_t d)
{
  if (d == 0 || (n == INT32_MIN && d == -1))
    return;
  volatile int32_t vn = n, vd = d;
  int32_t q = vn / vd, r = vn % vd;
  int64_t back = (int64_t)q * d + r;
  int64_t ar = r < 0 ? -(int64_t)r : r, ad = d < 0 ? -(int64_t)d : d;
  CHECK(back == n && ar < ad && (r == 0 || (r < 0) == (n < 0)), "s32 %d / %d = %d r %d\n", n, d,
        q, r);
}

static __attribute__((noinline)) void check_u32(uint32_t n, uint32_t d)
{
  if (d == 0)
    return;
  volatile uint32_t vn = n, vd = d;
  uint32_t q = vn / vd, r = vn % vd;
  uint64_t back = (uint64_t)q * d + r;
  CHECK(back == n && r < d, "u32 %u / %u = %u r %u\n", n, d, q, r);
}

static jmp_buf env;
static __attribute__((noinline)) void jump(int v) { longjmp(env, v); }

int main(void)
{
  static const int64_t edge[] = {0, 1, -1, 2, -2, 3, 7, -7, 1000, INT32_MAX, INT32_MIN,
                                 (int64_t)UINT32_MAX, INT64_MAX, INT64_MIN, INT64_MIN + 1};
  const int ne = sizeof edge / sizeof edge[0];
  for (int i = 0; i < ne; i++)
    for (int j = 0; j < ne; j++) {
      check_s64(edge[i], edge[j]);
      check_u64(edge[i], edge[j]);
      check_s32((int32_t)edge[i], (int32_t)edge[j]);
      check_u32((uint32_t)edge[i], (uint32_t)edge[j]);
    }
  for (int i = 0; i < 20000; i++) {
    uint64_t a = rnd(), b = rnd();
    check_s64((int64_t)a, (int64_t)b);
    check_u64(a, b);
    check_s32((int32_t)a, (int32_t)b);
    check_u32((uint32_t)a, (uint32_t)b);
  }

  volatile int counter = 0;
  int v = setjmp(env);
  if (v == 0) {
    counter = 1;
    jump(0); /* longjmp(env, 0) makes setjmp return 1 */
  }
  CHECK(v == 1 && counter == 1, "setjmp/longjmp: v=%d counter=%d\n", v, counter);

  volatile double zero = 0.0, tiny = DBL_MIN, minus_one = -1.0;
  double denormal = tiny / 1024.0, inf = 1.0 / zero, nan_ = sqrt(minus_one);
  char buf[96];
  snprintf(buf, sizeof buf, "%g %g %g %d", denormal, inf, -inf, isnan(nan_) != 0);
  CHECK(strcmp(buf, "2.17292e-311 inf -inf 1") == 0, "IEEE: %s\n", buf);

  printf("runtime: %s\n", errors ? "FAILED" : "ok");
  fflush(stdout);
  return errors != 0;
}
