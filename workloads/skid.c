/* skid: where a counter interrupt lands (issue 26 item 1, issue 27; seed
   004 §2.2: "on the in-order Alpha, almost all performance counter events
   are attributed to the instruction that is executing six cycles after the
   event, resulting in a large peak of samples on the seventh instruction
   after the load"). Each step loads one word of a 4 MB array 64 bytes
   after the last, so every load misses the D-, S- and B-cache, then runs
   16 dependent one-cycle adds (one issues per cycle) before anything reads
   the loaded value. DMISS samples taken with the ev5 machine's
   counter_skid=N land N cycles after the load issues: on the Nth add or so;
   with counter_skid=0 on the load itself.

   Usage: skid [PASSES]. Budget: 64 K loads per pass, ~20 instructions each;
   4 passes ~5 M instructions. Not in the default initrd. */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define WORDS (4u << 20) / 8 /* 4 MB: twice the 2 MB B-cache */
#define STEP 8               /* 64 bytes: a new S-/B-cache line each load */
#define PASSES 4

static uint64_t a[WORDS] __attribute__((aligned(8192)));

#define ADD1 "addq %1, 1, %1\n\t"
#define ADD4 ADD1 ADD1 ADD1 ADD1

static uint64_t __attribute__((noinline)) walk(const uint64_t *p, uint64_t *chain) {
  uint64_t sum = 0, c = *chain;
  for (const uint64_t *end = p + WORDS; p < end; p += STEP) {
    uint64_t v;
#ifdef __alpha__
    /* One asm: the compiler may not move the adds or the use of v. */
    __asm__ volatile("ldq %0, 0(%2)\n\t" ADD4 ADD4 ADD4 ADD4
                     : "=&r"(v), "+r"(c)
                     : "r"(p)
                     : "memory");
#else
    v = *(volatile const uint64_t *)p;
    for (int k = 0; k < 16; k++) c += 1;
#endif
    sum += v;
  }
  *chain = c;
  return sum;
}

int main(int argc, char **argv) {
  const int passes = argc > 1 ? atoi(argv[1]) : PASSES;
  uint64_t seed = 1, chain = 0, sum = 0;
  for (uint32_t i = 0; i < WORDS; i++) a[i] = ck_rand(&seed);
  for (int r = 0; r < passes; r++) sum = ck_mix(sum, walk(a, &chain));
  ck_print("skid", ck_mix(sum, chain));
  return 0;
}
