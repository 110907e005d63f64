/* Prints its arguments and pids, exits with 3 + argc. */
#include "sys.h"

int main(int argc, char** argv) {
  register long parent __asm__("$20");
  long pid = sys0(SYS_getxpid);
  __asm__ volatile("" : "=r"(parent));
  put("hello: pid ");
  put_num(pid, 10);
  put(" argc ");
  put_num(argc, 10);
  for (int i = 0; i < argc; ++i) {
    put(" [");
    put(argv[i]);
    put("]");
  }
  put("\n");
  return 3 + argc;
}
