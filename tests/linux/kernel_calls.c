/* A program that spends most of its time in the kernel, through known user
 * callers (issue 28 item 2, kernel frames): tests/linux/kernel_chains.py
 * checks that `dcpi run -g` gives its kernel-mode samples their kernel
 * callers and, through the system call or page fault that entered the
 * kernel, these user frames:
 *
 *  - writer() -> write(2): the kernel copies each 8 KB buffer into a ramfs
 *    file, allocating its pages;
 *  - toucher() -> page faults: the kernel allocates and zeroes a page for
 *    each first touch of a fresh anonymous mapping. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile unsigned long sink;
static char buffer[8192];

NOINLINE static void writer(int fd, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    buffer[i % sizeof buffer] = (char)i;
    if (write(fd, buffer, sizeof buffer) != (ssize_t)sizeof buffer) perror("write");
  }
  sink += 1; /* not a tail call */
}

NOINLINE static void toucher(size_t bytes) {
  char* area = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) {
    perror("mmap");
    return;
  }
  for (size_t at = 0; at < bytes; at += 8192) area[at] = (char)at;
  sink += (unsigned long)area[bytes / 2];
  munmap(area, bytes);
}

int main(void) {
  for (int round = 0; round < 4; ++round) {
    int fd = open("kernel_calls.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
      perror("open");
      return 1;
    }
    writer(fd, 256); /* 2 MB */
    close(fd);
    unlink("kernel_calls.out");
    toucher(4u << 20);
  }
  printf("kernel_calls %lu\n", sink);
  return 0;
}
