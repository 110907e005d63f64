/* The work shortlived does and the exit status it reports (shared with
   manyproc, which checks every child's status). */
#ifndef DCPI_WORKLOADS_SHORTLIVED_H
#define DCPI_WORKLOADS_SHORTLIVED_H

#include <stdint.h>

#define SHORTLIVED_WORK 100000

static inline int shortlived_result(int n) {
  uint64_t x = (uint64_t)n * 0x9e3779b97f4a7c15ull + 1;
  for (int i = 0; i < SHORTLIVED_WORK; i++)
    x = (x ^ (x >> 13)) * 0xff51afd7ed558ccdull + (uint64_t)i;
  return (int)(x % 127) + 1;
}

#endif
