/* tlbwalk: the R10000 paper's TLB case study (seed 003, its loop-nest
   example): a 2-D array whose rows are one 8 KB page each, updated column
   by column ("before": the inner loop strides a whole page, so every access
   is on another page, and with 256 rows against the 21164's 64 DTB entries
   every access misses the DTB) or row by row ("after": the loops
   interchanged, one DTB miss per page and pass). Both orders compute the
   same values: each element's update depends on its indices only.

   Usage: tlbwalk [before|after] [PASSES]. Budget: 256 K element updates
   per pass, about 7 instructions each; 8 passes ~15 M instructions.
   Not in the default initrd (docs/case-studies.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define ROWS 256
#define COLS 1024 /* 1024 x 8 bytes = one 8 KB page per row */
#define PASSES 8

static uint64_t m[ROWS][COLS] __attribute__((aligned(8192)));

static void __attribute__((noinline)) by_columns(uint64_t r) {
  for (long j = 0; j < COLS; j++)
    for (long i = 0; i < ROWS; i++) m[i][j] = m[i][j] * 3 + (uint64_t)(i * COLS + j) + r;
}

static void __attribute__((noinline)) by_rows(uint64_t r) {
  for (long i = 0; i < ROWS; i++)
    for (long j = 0; j < COLS; j++) m[i][j] = m[i][j] * 3 + (uint64_t)(i * COLS + j) + r;
}

int main(int argc, char **argv) {
  const int after = argc > 1 && strcmp(argv[1], "after") == 0;
  const int passes = argc > 2 ? atoi(argv[2]) : PASSES;
  for (long i = 0; i < ROWS; i++)
    for (long j = 0; j < COLS; j++) m[i][j] = (uint64_t)(i ^ j);
  for (int r = 0; r < passes; r++) (after ? by_rows : by_columns)((uint64_t)r);
  uint64_t sum = 0;
  for (long i = 0; i < ROWS; i++)
    for (long j = 0; j < COLS; j++) sum = ck_mix(sum, m[i][j]);
  ck_print("tlbwalk", ck_mix(sum, (uint64_t)passes));
  return 0;
}
