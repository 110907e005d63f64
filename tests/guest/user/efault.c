/* System calls with bad pointers fail with EFAULT; the process lives. */
#include "sys.h"

int main(void) {
  long r = sys3(SYS_write, 1, 0xfffffc0000100000ul, 10);
  put_kv("efault: write(kernel pointer) = ", r);
  r = sys3(SYS_write, 1, 0x1000, 10);
  put_kv("efault: write(unmapped) = ", r);
  r = sys2(SYS_open, 0xfffffc0000100000ul, 0);
  put_kv("efault: open(kernel pointer) = ", r);
  r = sys2(SYS_spawn, "/bin/true", 0xfffffc0000100000ul);
  put_kv("efault: spawn(kernel argv) = ", r);
  /* A child to reap: as Linux, wait4 reaps it, then fails to store the status. */
  sys2(SYS_spawn, "/bin/true", 0);
  int* status = (int*)0xfffffc0000100000ul;
  r = sys3(SYS_wait4, -1, status, 0);
  put_kv("efault: wait4(kernel status) = ", r);
  return 0;
}
