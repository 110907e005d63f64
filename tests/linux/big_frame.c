/* A frame larger than 8 KB on the call path (issue 28): like bzip2's
 * testStream, whose two 5,000-byte buffers make a 10,096-byte frame.
 * Alpha saves a frame's return address at its bottom, so the caller's
 * return address (outer's, main's) lies more than 10 KB above the sp of a
 * sample in scan() or its callee mix(): a chain reaches main only when the
 * stack slice is larger than the frame. tests/linux/big_frame_chains.py
 * checks `dcpi score --contexts` on it with slices below and above 10 KB. */
#include <stddef.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile unsigned long sink;

NOINLINE static unsigned long mix(unsigned long x) {
  for (int i = 0; i < 40; ++i) x = x * 6364136223846793005ul + 1442695040888963407ul;
  return x;
}

/* Out of line, so that scan's buffer must be in memory (on its stack). */
NOINLINE static void fill(unsigned char* buffer, size_t n) {
  for (size_t i = 0; i < n; ++i) buffer[i] = (unsigned char)(i * 7 + sink);
}

/* 10,240 bytes of locals, filled by a callee so that the frame is kept
 * (bzip2 reads its input into such buffers). */
NOINLINE static unsigned long scan(int rounds) {
  unsigned char buffer[10240];
  fill(buffer, sizeof buffer);
  unsigned long sum = 0;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < sizeof buffer; i += 64) sum += mix(buffer[i] + sum);
  sink = buffer[(sum >> 3) % sizeof buffer];
  return sum;
}

/* Not a tail call (outer's frame stays, above scan's). */
NOINLINE static unsigned long outer(int rounds) {
  unsigned long sum = scan(rounds);
  sink += 1;
  return sum;
}

int main(void) {
  unsigned long sum = outer(600);
  printf("big_frame %lu\n", sum & 0xffff);
  return 0;
}
