/* mremap as glibc's realloc and other programs use it (the kernel's
 * sys_mremap): grow in place, grow by moving (contents kept), refuse to move
 * without MREMAP_MAYMOVE, shrink. Prints only what does not depend on where
 * the mappings land, so the output under qemu-alpha is the same. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static unsigned long checksum(const unsigned char* p, size_t n) {
  unsigned long sum = 0;
  for (size_t i = 0; i < n; ++i) sum = sum * 31 + p[i];
  return sum;
}

static void fill(unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) p[i] = (unsigned char)(i * 7 + i / 8192);
}

int main(void) {
  /* Alpha pages are 8 KB; qemu-alpha user mode reports the host's 4 KB in
   * AT_PAGESZ, so sysconf would make the two outputs differ. */
  const size_t page = 8192;
  const int rw = PROT_READ | PROT_WRITE, anon = MAP_PRIVATE | MAP_ANONYMOUS;
  /* Reserve 8 pages, keep the first 2: the next 6 are free, so growth to 4
   * stays in place. */
  unsigned char* p = mmap(NULL, 8 * page, rw, anon, -1, 0);
  if (p == MAP_FAILED) return 1;
  munmap(p + 2 * page, 6 * page);
  fill(p, 2 * page);
  unsigned char* q = mremap(p, 2 * page, 4 * page, 0);
  printf("grow in place: %s, old bytes %lx, new bytes zero %d\n", q == p ? "same address" : "moved",
         checksum(q, 2 * page), q[3 * page + 5] == 0);
  /* A blocker right after: growing further must move, or fail without MAYMOVE. */
  void* blocker = mmap(q + 4 * page, page, rw, anon | MAP_FIXED, -1, 0);
  void* refused = mremap(q, 4 * page, 16 * page, 0);
  printf("blocked without MREMAP_MAYMOVE: %s (errno %s)\n", refused == MAP_FAILED ? "refused" : "?",
         errno == ENOMEM ? "ENOMEM" : "other");
  unsigned char* r = mremap(q, 4 * page, 16 * page, MREMAP_MAYMOVE);
  printf("grow by moving: %s, old bytes %lx, new bytes zero %d\n",
         r != q && r != MAP_FAILED ? "moved" : "?", checksum(r, 2 * page), r[15 * page] == 0);
  r[16 * page - 1] = 1;
  unsigned char* s = mremap(r, 16 * page, page, 0);
  printf("shrink: %s, first page %lx\n", s == r ? "same address" : "moved", checksum(s, page));
  /* realloc of a large block is mremap in glibc. */
  char* big = malloc(1 << 20);
  memset(big, 'x', 1 << 20);
  big = realloc(big, 4 << 20);
  printf("realloc 1 MB -> 4 MB keeps %d bytes\n", (int)(memchr(big, 0, 1 << 20) == NULL) << 20);
  munmap(blocker, page);
  return 0;
}
