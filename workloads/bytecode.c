/* bytecode: a small stack-machine interpreter, the shape of real code that
   dcpicalc's jump-table reading must handle (issue 17): a `switch` on the
   opcode inside the dispatch loop, compiled by GCC into a jump table whose
   address is computed once before the loop and kept in a register, and
   cases that divide, i.e. call GCC's division helpers (`__remq`, `__divq`
   with `bsr t9`, a convention that clobbers only t9, t12 and AT; see
   toolchain/newlib/alpha-divide.S).  The table base must survive those
   calls for the dispatch's CFG to have its edges.

   The program run by the interpreter: for i in 1..N, acc = (acc * 31 + i)
   mod 1000003, and every step with i divisible by 7 adds acc / 13; a
   second counter xors in i.  The opcodes are varied enough (12 cases) for
   GCC to emit a table, and each step of the bytecode loop runs 28
   opcodes, 3 of them dividing.

   Instruction budget: 216 M user instructions (README.md), ~0.2 s at
   1e9/s.

   Checksum: the final accumulator, the xor counter and the step count. */
#include <stdint.h>
#include <stdlib.h>

#include "common.h"

#define ITERATIONS 200000

enum {
  OP_PUSH,  /* push the next byte */
  OP_LOAD,  /* push variable [next byte] */
  OP_STORE, /* pop into variable [next byte] */
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_REM, /* a % b: __remq */
  OP_DIV, /* a / b: __divq */
  OP_XOR,
  OP_JNZ, /* pop; if nonzero move back by the next byte (from the byte after it) */
  OP_DUP,
  OP_HALT,
};

/* Variables: 0 acc, 1 i, 2 xor counter, 3 the remaining steps, 4 modulus. */
static const uint8_t program[] = {
    /* acc = (acc * 31 + i) % m */
    OP_LOAD, 0, OP_PUSH, 31, OP_MUL, OP_LOAD, 1, OP_ADD, OP_LOAD, 4, OP_REM, OP_STORE, 0,
    /* x = x ^ (acc / 13 + i % 7) */
    OP_LOAD, 2, OP_LOAD, 0, OP_PUSH, 13, OP_DIV, OP_LOAD, 1, OP_PUSH, 7, OP_REM, OP_ADD, OP_XOR,
    OP_STORE, 2,
    /* i = i + 1; n = n - 1; loop while n != 0 */
    OP_LOAD, 1, OP_PUSH, 1, OP_ADD, OP_STORE, 1, OP_LOAD, 3, OP_PUSH, 1, OP_SUB, OP_DUP,
    OP_STORE, 3, OP_JNZ, 46, OP_HALT};

/* Returns the number of opcodes executed. */
static uint64_t interpret(const uint8_t *code, int64_t *vars) {
  int64_t stack[16];
  int sp = 0;
  uint64_t executed = 0;
  const uint8_t *pc = code;
  for (;;) {
    ++executed;
    switch (*pc++) {
      case OP_PUSH: stack[sp++] = *pc++; break;
      case OP_LOAD: stack[sp++] = vars[*pc++]; break;
      case OP_STORE: vars[*pc++] = stack[--sp]; break;
      case OP_ADD: sp--; stack[sp - 1] += stack[sp]; break;
      case OP_SUB: sp--; stack[sp - 1] -= stack[sp]; break;
      case OP_MUL: sp--; stack[sp - 1] *= stack[sp]; break;
      case OP_REM: sp--; stack[sp - 1] %= stack[sp]; break;
      case OP_DIV: sp--; stack[sp - 1] /= stack[sp]; break;
      case OP_XOR: sp--; stack[sp - 1] ^= stack[sp]; break;
      case OP_JNZ: {
        const uint8_t back = *pc++;
        if (stack[--sp] != 0) pc -= back;
        break;
      }
      case OP_DUP: stack[sp] = stack[sp - 1]; sp++; break;
      case OP_HALT: return executed;
      default: return 0;
    }
  }
}

int main(int argc, char **argv) {
  const long steps = argc > 1 ? atol(argv[1]) : ITERATIONS;
  int64_t vars[5] = {1, 1, 0, steps, 1000003};
  const uint64_t executed = interpret(program, vars);
  printf("bytecode: %ld steps, %llu opcodes\n", steps, (unsigned long long)executed);
  uint64_t sum = CK_FNV_INIT;
  sum = ck_mix(sum, (uint64_t)vars[0]);
  sum = ck_mix(sum, (uint64_t)vars[2]);
  sum = ck_mix(sum, executed);
  ck_print("bytecode", sum);
  return 0;
}
