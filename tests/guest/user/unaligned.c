/* A plain unaligned ldq (QEMU performs it without trapping), then an
 * unaligned ldq_l, which QEMU always checks: killed with SIGBUS. */
#include "sys.h"

int main(void) {
  static unsigned long words[2] = {0x1122334455667788ul, 0x99aabbccddeeff00ul};
  unsigned long value;
  const char* p = (const char*)words + 1;
  __asm__ volatile("ldq %0, 0(%1)" : "=r"(value) : "r"(p));
  put("unaligned: plain ldq gave 0x");
  put_num((long)value, 16);
  put("\n");
  __asm__ volatile("ldq_l %0, 0(%1)" : "=r"(value) : "r"(p));
  put("unaligned: ldq_l did not trap\n");
  return 0;
}
