/* stride: the R10000 paper's cache-conflict case study (seed 003): column
   sums of a 32 x 1024 array of 64-bit words whose rows are 8 KB apart, a
   power of two ("before"): every element of a column maps to the same line
   of the 21164's 8 KB direct-mapped D-cache (and to 4 sets of its 3-way
   96 KB S-cache), so each load evicts the line the next column needs and
   misses. "after" pads each row by one 32-byte line: the column's lines
   fall in 32 different D-cache lines, and 3 of every 4 loads hit. The
   values and the sums are the same: only the row pitch changes.

   Usage: stride [before|after] [PASSES]. Budget: 32 K loads per pass, about
   5 instructions each; 60 passes ~10 M instructions.
   Not in the default initrd (docs/case-studies.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define ROWS 32
#define COLS 1024 /* 8 KB rows: the D-cache's size, a power of two */
#define PAD 4     /* one 32-byte D-cache line of 64-bit words */
#define PASSES 60

static uint64_t a[ROWS * (COLS + PAD)] __attribute__((aligned(8192)));
static uint64_t sums[COLS];

static void __attribute__((noinline)) column_sums(const uint64_t *base, long pitch) {
  for (long j = 0; j < COLS; j++) {
    uint64_t s = sums[j];
    for (long i = 0; i < ROWS; i++) s += base[i * pitch + j];
    sums[j] = s * 5 + (uint64_t)j;
  }
}

int main(int argc, char **argv) {
  const long pitch = argc > 1 && strcmp(argv[1], "after") == 0 ? COLS + PAD : COLS;
  const int passes = argc > 2 ? atoi(argv[2]) : PASSES;
  uint64_t seed = 1;
  for (long i = 0; i < ROWS; i++)
    for (long j = 0; j < COLS; j++) a[i * pitch + j] = ck_rand(&seed);
  for (int r = 0; r < passes; r++) column_sums(a, pitch);
  uint64_t sum = 0;
  for (long j = 0; j < COLS; j++) sum = ck_mix(sum, sums[j]);
  ck_print("stride", ck_mix(sum, (uint64_t)passes));
  return 0;
}
