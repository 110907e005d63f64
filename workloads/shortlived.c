/* shortlived: the child program of manyproc, standing in for one of gcc's
   56 short invocations: a little integer work on a value derived from its
   argument, no output, and an exit status that encodes the result.

   Instruction budget: WORK = 100,000 iterations of ~7 instructions, plus
   start-up: 0.7 M instructions measured, under 1 ms at 1e9/s.

   Exit status: shortlived_result(argv[1]) (manyproc computes the same
   function to check it), in 1..127. */
#include "shortlived.h"

#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc < 2) return 127;
  return shortlived_result(atoi(argv[1]));
}
