/* Reads the kernel address given as argv[1] (the profiler's load map):
 * killed with SIGSEGV, the kernel is unharmed. */
#include "sys.h"

int main(int argc, char** argv) {
  if (argc < 2) return 1;
  const volatile unsigned long* p = (const volatile unsigned long*)parse_hex(argv[1]);
  put("peek: reading ");
  put(argv[1]);
  put("\n");
  put_num((long)*p, 16);
  put("\npeek: read the kernel's memory!\n");
  return 0;
}
