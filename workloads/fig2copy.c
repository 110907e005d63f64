/* fig2copy: the DCPI paper's Figure 2 exactly (seed 000 §3.2): the McCalpin
   copy c[i] = a[i] over n = 2,000,000 64-bit integers, its loop unrolled
   four times into the paper's 13-instruction basic block, written in Alpha
   assembly from the paper's listing (same instructions, same registers,
   same order, the block 16-byte aligned as at 0x009810), so that
   `dcpi calc` on the ev5 machine can be held against Figure 2 line by line.

   `copy` is the same loop as GCC compiles it today (not unrolled); this one
   is the code the paper measured. Natively the loop is C (the checksum is
   compared with the host build like every workload's).

   Instruction budget: 13 instructions per 4 elements, 6.5 M per pass;
   REPS = 10 passes 65 M, plus ~30 M for the initialisation and checksum. */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define N 2000000 /* a multiple of 4: the unrolled loop has no remainder */
#define REPS 10

/* Where the arrays start matters: the paper's listing blames the ldq t6 for
   the stall at the third stq, so t6's 32-byte D-cache line is not t4's:
   its a[] started 16 bytes into a line, as a 16-byte aligned malloc gives
   (OSF/1's and glibc's). Ours do too, both of them. */
#define LINE_OFFSET_WORDS 2 /* 16 bytes */
static uint64_t a_lines[N + 8] __attribute__((aligned(64)));
static uint64_t c_lines[N + 8] __attribute__((aligned(64)));
#define a (a_lines + LINE_OFFSET_WORDS)
#define c (c_lines + LINE_OFFSET_WORDS)

#ifdef __alpha__
/* copy_fig2(dst, src, n): n > 0 and a multiple of 4. Figure 2's registers:
   t1 the source, t2 the destination, t0 the index, v0 the bound. */
void copy_fig2(uint64_t *dst, const uint64_t *src, long n);
__asm__(
    "        .text\n"
    "        .globl copy_fig2\n"
    "        .ent copy_fig2\n"
    "        .align 4\n"
    "copy_fig2:\n"
    "        .frame $30, 0, $26, 0\n"
    "        .prologue 0\n"
    "        mov $17, $2\n"         /* t1 = src */
    "        mov $16, $3\n"         /* t2 = dst */
    "        clr $1\n"              /* t0 = 0 */
    "        mov $18, $0\n"         /* v0 = n */
    "        .align 4\n"            /* Figure 2's block starts 16-byte aligned */
    "$fig2_loop:\n"
    "        ldq $5, 0($2)\n"       /* ldq t4, 0(t1) */
    "        addq $1, 4, $1\n"      /* addq t0, 0x4, t0 */
    "        ldq $6, 8($2)\n"       /* ldq t5, 8(t1) */
    "        ldq $7, 16($2)\n"      /* ldq t6, 16(t1) */
    "        ldq $16, 24($2)\n"     /* ldq a0, 24(t1) */
    "        lda $2, 32($2)\n"      /* lda t1, 32(t1) */
    "        stq $5, 0($3)\n"       /* stq t4, 0(t2) */
    "        cmpult $1, $0, $5\n"   /* cmpult t0, v0, t4 */
    "        stq $6, 8($3)\n"       /* stq t5, 8(t2) */
    "        stq $7, 16($3)\n"      /* stq t6, 16(t2) */
    "        stq $16, 24($3)\n"     /* stq a0, 24(t2) */
    "        lda $3, 32($3)\n"      /* lda t2, 32(t2) */
    "        bne $5, $fig2_loop\n"  /* bne t4, 0x009810 */
    "        ret $31, ($26), 1\n"
    "        .end copy_fig2\n");
#else
static void copy_fig2(uint64_t *dst, const uint64_t *src, long n) {
  for (long i = 0; i < n; i += 4) {
    dst[i] = src[i];
    dst[i + 1] = src[i + 1];
    dst[i + 2] = src[i + 2];
    dst[i + 3] = src[i + 3];
  }
}
#endif

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : REPS;
  uint64_t seed = 7;
  for (long i = 0; i < N; i++) a[i] = ck_rand(&seed);
  for (int r = 0; r < reps; r++) {
    copy_fig2(c, a, N);
    a[(r * 7919) % N] += c[(r * 104729) % N]; /* the next pass copies something new */
  }
  uint64_t sum = 0;
  for (long i = 0; i < N; i += 1) sum = sum * 31 + c[i];
  ck_print("fig2copy", ck_mix(sum, (uint64_t)reps));
  return 0;
}
