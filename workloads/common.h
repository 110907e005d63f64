/* Shared by the workloads: checksums and the one output line they share,
   `checksum NAME 0x%016llx`, which the tests compare between the Alpha
   build (guest or qemu-alpha) and the native host build. */
#ifndef DCPI_WORKLOADS_COMMON_H
#define DCPI_WORKLOADS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Folds a 64-bit value into a running checksum (a multiply-xorshift mix:
   order-sensitive, every input bit matters). */
static inline uint64_t ck_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

/* The exact bit pattern of a double: FP results must agree bit for bit. */
static inline uint64_t ck_double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* FNV-1a over bytes. */
static inline uint64_t ck_fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
#define CK_FNV_INIT 0xcbf29ce484222325ull

/* A 64-bit LCG (Knuth's MMIX constants) with a xorshift output: the
   workloads' only source of "random" data, identical everywhere. */
static inline uint64_t ck_rand(uint64_t *state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  uint64_t x = *state;
  return x ^ (x >> 29);
}

static inline void ck_print(const char *name, uint64_t sum) {
  printf("checksum %s 0x%016llx\n", name, (unsigned long long)sum);
  fflush(stdout);
}

#endif
