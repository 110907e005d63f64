/* What fork costs in this kernel (issue 29): the kernel copies every user
   page at fork (no copy-on-write, docs/linux-programs.md), so the cost grows
   with what the process has resident. For each size, the program touches
   that many MB of heap, then forks a child that exits at once; it prints
   the cycles (the Alpha's RPCC, whose low 32 bits count cycles; on the qemu
   machine one instruction per cycle) from just before fork() to its return
   in the parent, and to the child's first instruction after it, the lesser
   of the two being the copy and the switch. tests/bench/bench_fork.py runs
   it under dcpi run and tabulates the lines.

   forkcost MB...   one line per size: "fork MB parent CYCLES child CYCLES" */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static uint32_t cycles(void) {
  uint64_t value;
  __asm__ volatile("rpcc %0" : "=r"(value));
  return (uint32_t)value;
}

static void measure(long megabytes) {
  const size_t bytes = (size_t)megabytes << 20;
  char *memory = bytes ? malloc(bytes) : NULL;
  if (bytes && memory == NULL) {
    printf("fork %ld: no memory\n", megabytes);
    return;
  }
  memset(memory, 1, bytes); /* resident: every page touched */
  int channel[2];
  if (pipe(channel) != 0) return;
  fflush(stdout);
  const uint32_t start = cycles();
  const pid_t child = fork();
  if (child == 0) {
    const uint32_t at = cycles() - start;
    write(channel[1], &at, sizeof at);
    _exit(0);
  }
  const uint32_t parent = cycles() - start;
  uint32_t in_child = 0;
  if (child < 0 || read(channel[0], &in_child, sizeof in_child) != sizeof in_child)
    printf("fork %ld: failed\n", megabytes);
  else
    printf("fork %ld parent %u child %u\n", megabytes, parent, in_child);
  waitpid(child, NULL, 0);
  close(channel[0]);
  close(channel[1]);
  free(memory);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) measure(strtol(argv[i], NULL, 10));
  return 0;
}
