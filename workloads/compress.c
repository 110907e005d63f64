/* compress: the integer workload.  LZ77 compression (hash of 4 bytes, one
   candidate per hash, greedy matching, LZ4-like token format) of ROUNDS
   generated "texts" of SIZE bytes each (words drawn from a small
   vocabulary, so it compresses about 2.4:1), then decompression and a
   byte-for-byte check.

   Instruction budget (Alpha, -O2; measured with qemu-alpha and an
   instruction-counting plugin): ~53 instructions per input byte to
   generate, compress, decompress and compare; ROUNDS = 6 of 768 KB ->
   ~250 M instructions, ~0.25 s at 1e9/s.  Branchy
   and load-heavy, data-dependent control flow: unlike copy and stream.

   Checksum: FNV-1a of every compressed stream and its length. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define SIZE (768 * 1024)
#define ROUNDS 6
#define HASH_BITS 14
#define MIN_MATCH 4
#define MAX_OFFSET 65535

static const char *const vocabulary[] = {
    "the ",         "profile ",   "sample ", "counter ",   "interrupt ",  "alpha ",    "cycle ",
    "of ",          "and ",       "in ",     "procedure ", "image ",      "kernel ",   "stall ",
    "daemon ",      "hash ",      "table ",  "bucket ",    "overflow ",   "buffer ",   "a ",
    "instruction ", "frequency ", "cache ",  "miss ",      "dual-issue ", "pipeline ", "to ",
    ".\n",          ", ",         "value ",  "is ",
};
#define NWORDS (sizeof vocabulary / sizeof vocabulary[0])

static void generate(unsigned char *buf, size_t n, uint64_t seed) {
  size_t i = 0;
  while (i < n) {
    uint64_t r = ck_rand(&seed);
    const char *w = vocabulary[(r >> 8) % NWORDS];
    if ((r & 0xff) < 8) { /* now and then a number: some incompressible bytes */
      unsigned v = (unsigned)(r >> 40) % 100000;
      do {
        if (i < n) buf[i++] = (unsigned char)('0' + v % 10);
        v /= 10;
      } while (v);
      if (i < n) buf[i++] = ' ';
      continue;
    }
    while (*w && i < n) buf[i++] = (unsigned char)*w++;
  }
}

static uint32_t read32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned char *put_length(unsigned char *out, size_t len) {
  while (len >= 255) {
    *out++ = 255;
    len -= 255;
  }
  *out++ = (unsigned char)len;
  return out;
}

/* Token: [literal count:4 | match length - 4:4] [extra literal-count bytes]
   literals [offset:16 little-endian] [extra match-length bytes]; the last
   token has literals only. */
static size_t __attribute__((noinline))
compress(const unsigned char *in, size_t n, unsigned char *out) {
  static uint32_t table[1 << HASH_BITS];
  memset(table, 0xff, sizeof table);
  unsigned char *o = out;
  size_t anchor = 0, i = 0;
  while (i + MIN_MATCH <= n) {
    uint32_t seq = read32(in + i);
    uint32_t h = (seq * 2654435761u) >> (32 - HASH_BITS);
    uint32_t cand = table[h];
    table[h] = (uint32_t)i;
    if (cand == 0xffffffffu || i - cand > MAX_OFFSET || read32(in + cand) != seq) {
      i++;
      continue;
    }
    size_t len = MIN_MATCH;
    while (i + len < n && in[cand + len] == in[i + len]) len++;
    size_t lit = i - anchor;
    unsigned char *token = o++;
    *token =
        (unsigned char)((lit < 15 ? lit : 15) << 4 | (len - MIN_MATCH < 15 ? len - MIN_MATCH : 15));
    if (lit >= 15) o = put_length(o, lit - 15);
    memcpy(o, in + anchor, lit);
    o += lit;
    size_t off = i - cand;
    *o++ = (unsigned char)off;
    *o++ = (unsigned char)(off >> 8);
    if (len - MIN_MATCH >= 15) o = put_length(o, len - MIN_MATCH - 15);
    i += len;
    anchor = i;
  }
  size_t lit = n - anchor;
  *o++ = (unsigned char)((lit < 15 ? lit : 15) << 4);
  if (lit >= 15) o = put_length(o, lit - 15);
  memcpy(o, in + anchor, lit);
  o += lit;
  return (size_t)(o - out);
}

static size_t __attribute__((noinline))
decompress(const unsigned char *in, size_t n, unsigned char *out) {
  const unsigned char *p = in, *end = in + n;
  unsigned char *o = out;
  while (p < end) {
    unsigned token = *p++;
    size_t lit = token >> 4;
    if (lit == 15) {
      unsigned char b;
      do lit += (b = *p++);
      while (b == 255);
    }
    memcpy(o, p, lit);
    o += lit;
    p += lit;
    if (p >= end) break;
    size_t off = (size_t)p[0] | (size_t)p[1] << 8;
    p += 2;
    size_t len = (token & 15) + MIN_MATCH;
    if ((token & 15) == 15) {
      unsigned char b;
      do len += (b = *p++);
      while (b == 255);
    }
    const unsigned char *from = o - off; /* may overlap: byte by byte */
    for (size_t k = 0; k < len; k++) o[k] = from[k];
    o += len;
  }
  return (size_t)(o - out);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : ROUNDS;
  unsigned char *text = malloc(SIZE), *packed = malloc(SIZE + SIZE / 8 + 64),
                *unpacked = malloc(SIZE);
  if (!text || !packed || !unpacked) {
    printf("compress: out of memory\n");
    return 2;
  }
  uint64_t sum = CK_FNV_INIT;
  int ok = 1;
  size_t total = 0;
  for (int r = 0; r < rounds; r++) {
    generate(text, SIZE, 0x5eed0000u + (uint64_t)r);
    size_t packed_len = compress(text, SIZE, packed);
    size_t unpacked_len = decompress(packed, packed_len, unpacked);
    if (unpacked_len != SIZE || memcmp(text, unpacked, SIZE) != 0) ok = 0;
    sum = ck_fnv1a(sum, packed, packed_len);
    sum = ck_mix(sum, packed_len);
    total += packed_len;
  }
  printf("compress: %d x %d bytes -> %lu bytes%s\n", rounds, SIZE, (unsigned long)total,
         ok ? "" : " (round trip FAILED)");
  ck_print("compress", ck_mix(sum, (uint64_t)ok));
  return ok ? 0 : 1;
}
