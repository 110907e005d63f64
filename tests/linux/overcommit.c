// Linux's heuristic overcommit: one allocation of more than the machine's
// RAM and swap is refused at once (ENOMEM), not when touched; MAP_NORESERVE
// and read-only mappings are not counted.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>

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
  p = malloc(machine / 16);
  printf("malloc of a sixteenth: %s\n", p ? "given" : "NULL");
  free(p);
  return 0;
}
