/* A C program built with Debian's stock alpha-linux-gnu-gcc (glibc, dynamic):
   stdio, malloc, qsort with a callback, string functions. Its output must be
   identical under our kernel and under qemu-alpha user mode (tests/linux).

   sorter [N]          sort N pseudo-random strings (default 20000), print a digest
   sorter --load-map   also print the run-time address of qsort and strlen and ask
                       the kernel to print its load map (syscall 1002, kinfo 4)
   sorter --fault      write through a null pointer (SIGSEGV)
   sorter --enosys     make system call 9999 (not implemented anywhere) and
                      148 (quotactl, a Linux call the kernel lacks)
   sorter --dlopen     dlopen libm.so.6.1 (shipped with --file) and call its cos
   sorter --deep N     recurse N levels with 4 KB frames first (a stack that grows) */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int compare(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned long deep(long depth) {
  volatile unsigned char frame[4096];
  frame[depth % 4096] = (unsigned char)depth;
  return depth == 0 ? 0 : frame[depth % 4096] + deep(depth - 1);
}

static unsigned long digest(char **words, long n) {
  unsigned long h = 1469598103934665603ul;
  for (long i = 0; i < n; i++)
    for (const char *p = words[i]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ul;
  return h;
}

int main(int argc, char **argv) {
  long n = 20000;
  int load_map = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--fault") == 0) *(volatile int *)0 = 1;
    else if (strcmp(argv[i], "--enosys") == 0) {
      long r = syscall(9999);
      printf("syscall 9999 = %ld errno %s\n", r, errno == ENOSYS ? "ENOSYS" : "other");
      r = syscall(148, 0, 0, 0, 0); /* quotactl: a Linux call this kernel has no use for */
      printf("syscall 148 = %ld errno %s\n", r, errno == ENOSYS ? "ENOSYS" : "other");
      return 0;
    } else if (strcmp(argv[i], "--dlopen") == 0) {
#ifdef SORTER_STATIC
      printf("no dlopen in the static build\n");
      return 2;
#else
      void *libm = dlopen("libm.so.6.1", RTLD_NOW);
      double (*cosine)(double) = libm ? (double (*)(double))dlsym(libm, "cos") : NULL;
      if (cosine == NULL) {
        printf("dlopen failed: %s\n", dlerror());
        return 2;
      }
      printf("cos(0.5) = %.9f\n", cosine(0.5));
#endif
    } else if (strcmp(argv[i], "--load-map") == 0) load_map = 1;
    else if (strcmp(argv[i], "--deep") == 0 && i + 1 < argc) {
      long depth = atol(argv[++i]);
      printf("deep %ld: %lu\n", depth, deep(depth));
    }
    else n = atol(argv[i]);
  }
  char **words = malloc(n * sizeof *words);
  unsigned long x = 12345;
  for (long i = 0; i < n; i++) {
    char buffer[32];
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    snprintf(buffer, sizeof buffer, "w%016lx", x >> 3);
    words[i] = strdup(buffer);
  }
  qsort(words, n, sizeof *words, compare);
  size_t total = 0;
  for (long i = 0; i < n; i++) total += strlen(words[i]);
  printf("sorted %ld words, %zu bytes, first %s last %s digest %016lx\n", n, total, words[0],
         words[n - 1], digest(words, n));
  for (long i = 0; i < n; i++) free(words[i]);
  free(words);
  if (load_map) {
    printf("address qsort %p strlen %p main %p\n", (void *)qsort, (void *)strlen, (void *)main);
    fflush(stdout);
    syscall(1002, 4);
  }
  return 0;
}
