// Linux's heuristic overcommit: one allocation of more than the machine's
// RAM and swap is refused at once (ENOMEM), not when touched; MAP_NORESERVE
// and read-only mappings are not counted. The break, shrunk and grown
// again, reads zeroes.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

int main(void) {
  struct sysinfo info;
  if (sysinfo(&info) != 0) return 1;
  const unsigned long long machine =
      ((unsigned long long)info.totalram + info.totalswap) * info.mem_unit;
  const size_t big = (size_t)(machine * 2);
  errno = 0;
  void* p = malloc(big);
  printf("malloc of twice RAM and swap: %s (%s)\n", p ? "given" : "NULL", strerror(errno));
  free(p);
  errno = 0;
  p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("private writable mmap: %s\n", p == MAP_FAILED ? strerror(errno) : "mapped");
  p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  printf("with MAP_NORESERVE: %s\n", p == MAP_FAILED ? strerror(errno) : "mapped");
  if (p != MAP_FAILED) {
    ((char*)p)[0] = 1;
    ((char*)p)[big / 2] = 2;
    printf("two pages touched: %d\n", ((char*)p)[0] + ((char*)p)[big / 2]);
    munmap(p, big);
  }
  p = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("read-only: %s\n", p == MAP_FAILED ? strerror(errno) : "mapped");
  if (p != MAP_FAILED) munmap(p, big);
  /* The break shrunk and grown again reads zeroes (whole pages: Linux keeps
     the rest of the page the break ends in). */
  char* base = sbrk(0);
  sbrk((64 * 1024 - (long)((unsigned long)base % (64 * 1024))) % (64 * 1024));
  char* grown = sbrk(64 * 1024);
  memset(grown, 0x5a, 64 * 1024);
  sbrk(-64 * 1024);
  char* again = sbrk(64 * 1024);
  int stale = 0;
  for (int i = 0; i < 64 * 1024; i++) stale += again[i] != 0;
  printf("the break grown again in place: %s, stale bytes: %d\n", again == grown ? "yes" : "no",
         stale);
  p = malloc(machine / 16);
  printf("malloc of a sixteenth: %s\n", p ? "given" : "NULL");
  free(p);
  return 0;
}
