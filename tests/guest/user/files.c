/* The initrd file system and the simple system calls. */
#include "sys.h"

struct kstat {
  unsigned int st_dev, st_ino, st_mode, st_nlink, st_uid, st_gid, st_rdev, pad;
  long st_size;
  unsigned long st_atime, st_mtime, st_ctime;
  unsigned int st_blksize, st_blocks, st_flags, st_gen;
};

int main(void) {
  long fd = sys2(SYS_open, "/etc/motd", 0);
  put_kv("files: open = ", fd);
  struct kstat st;
  put_kv("files: fstat = ", sys2(SYS_fstat, fd, &st));
  put_kv("files: size = ", st.st_size);
  put_kv("files: regular = ", (st.st_mode & 0170000) == 0100000);
  char buf[64];
  long n = sys3(SYS_read, fd, buf, 5);
  buf[n > 0 ? n : 0] = 0;
  put("files: first5 = ");
  put(buf);
  put("\n");
  put_kv("files: lseek_end = ", sys3(SYS_lseek, fd, 0, 2));
  put_kv("files: read_at_end = ", sys3(SYS_read, fd, buf, 5));
  put_kv("files: close = ", sys1(SYS_close, fd));
  put_kv("files: read_closed = ", sys3(SYS_read, fd, buf, 5));
  put_kv("files: open_missing = ", sys2(SYS_open, "/etc/none", 0));
  /* Files can be written (a RAM copy, issue 29); a directory cannot. */
  put_kv("files: open_write = ", sys2(SYS_open, "/etc", 1));
  put_kv("files: fstat_console_chr = ",
         (sys2(SYS_fstat, 1, &st), (st.st_mode & 0170000) == 020000));
  put_kv("files: read_console = ", sys3(SYS_read, 0, buf, 5));
  long b0 = sys1(SYS_brk, 0);
  long b1 = sys1(SYS_brk, b0 + 100000);
  put_kv("files: brk_grew = ", b1 - b0);
  volatile char* heap = (volatile char*)b0;
  heap[99999] = 7;
  put_kv("files: heap_ok = ", heap[99999]);
  put_kv("files: brk_too_far = ", sys1(SYS_brk, 0x7ffffffffff0l) == b1);
  unsigned long tv[2];
  put_kv("files: gettimeofday = ", sys2(SYS_gettimeofday, tv, 0));
  put_kv("files: usec_ok = ", tv[1] < 1000000);
  long tms[4];
  put_kv("files: times_ok = ", sys1(SYS_times, tms) >= 0);
  put_kv("files: kill = ", sys2(SYS_kill, 1, 9));
  put_kv("files: wait_nochild = ", sys3(SYS_wait4, -1, 0, 0));
  put_kv("files: bad_syscall = ", sys0(777));
  return 0;
}
