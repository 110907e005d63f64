/* rttest: exercises every function of the runtime's newlib glue through
   newlib's own entry points, so it checks both the system calls and the
   conversions (flags, struct stat, errno numbers, timeval, tms).

   Usage: rttest FILE SIZE [EXIT]
     FILE  a readable regular file whose size is SIZE bytes
     EXIT  the status to exit with if every check passes (default 0)
   Prints `rttest: ok <checks>` or `rttest: FAIL ...` lines; exits 1 on a
   failure.  Runs in the guest (/bin/rttest /etc/rttest.txt ...) and under
   qemu-alpha user mode (tests/workloads). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dcpi_user.h"
#include "shortlived.h"

static int checks, failures;

#define CHECK(cond, ...)        \
  do {                          \
    checks++;                   \
    if (!(cond)) {              \
      failures++;               \
      printf("rttest: FAIL: "); \
      printf(__VA_ARGS__);      \
      printf(" (%s)\n", #cond); \
    }                           \
  } while (0)

int main(int argc, char **argv) {
  if (argc < 3) {
    printf("usage: rttest FILE SIZE [EXIT]\n");
    return 2;
  }
  const char *path = argv[1];
  long size = atol(argv[2]);
  int exit_status = argc > 3 ? atoi(argv[3]) : 0;

  /* argv/envp came off the initial stack. */
  CHECK(argc >= 3 && argv[argc] == NULL, "argv is NULL-terminated");

  /* open, fstat, read, lseek, close. */
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 3, "open(%s) = %d errno %d", path, fd, errno);
  struct stat st;
  memset(&st, 0xa5, sizeof st);
  CHECK(fstat(fd, &st) == 0, "fstat errno %d", errno);
  CHECK(S_ISREG(st.st_mode), "st_mode 0%o is a regular file", (unsigned)st.st_mode);
  CHECK(st.st_size == size, "st_size %ld == %ld", (long)st.st_size, size);
  char *all = malloc((size_t)size + 1);
  long got = 0;
  for (;;) {
    int n = read(fd, all + got, (size_t)(size + 1 - got) < 100 ? (size_t)(size + 1 - got) : 100);
    if (n <= 0) {
      CHECK(n == 0, "read returned %d errno %d", n, errno);
      break;
    }
    got += n;
  }
  CHECK(got == size, "read %ld bytes of %ld", got, size);
  CHECK(lseek(fd, 0, SEEK_CUR) == size, "lseek(SEEK_CUR) at end");
  off_t mid = size / 2;
  CHECK(lseek(fd, mid, SEEK_SET) == mid, "lseek(SEEK_SET %ld)", (long)mid);
  char byte = 0;
  CHECK(read(fd, &byte, 1) == 1 && byte == all[mid], "read after lseek gives byte %ld", (long)mid);
  CHECK(lseek(fd, -1, SEEK_END) == size - 1, "lseek(SEEK_END -1)");
  CHECK(read(fd, &byte, 1) == 1 && byte == all[size - 1], "last byte");
  CHECK(close(fd) == 0, "close");
  CHECK(close(fd) == -1 && errno == EBADF, "close twice: EBADF (errno %d)", errno);
  errno = 0;
  CHECK(read(fd, &byte, 1) == -1 && errno == EBADF, "read closed fd: EBADF (errno %d)", errno);
  errno = 0;
  CHECK(open("/no/such/file", O_RDONLY) == -1 && errno == ENOENT, "ENOENT (errno %d)", errno);

  struct stat st2;
  CHECK(stat(path, &st2) == 0 && st2.st_size == size, "stat(%s) gives the size", path);

  /* stdio on a file: fopen/fgets use _open/_read/_fstat. */
  FILE *f = fopen(path, "r");
  char line[256] = "";
  CHECK(f && fgets(line, sizeof line, f) && strncmp(line, all, strlen(line)) == 0,
        "fgets reads the first line");
  if (f) fclose(f);
  free(all);

  /* write on stdout and stderr (fd 1 and 2). */
  CHECK(write(1, "rttest: write\n", 14) == 14, "write(1)");
  CHECK(isatty(99) == 0, "isatty(99) is false");

  /* sbrk growth: the break moves by exactly what was asked and the new
     memory is usable; then malloc 8 MB in pieces (on newlib through _sbrk)
     and touch it all. */
  char *brk0 = sbrk(0);
  CHECK(brk0 != (char *)-1, "sbrk(0)");
  char *grown = sbrk(4 << 20);
  CHECK(grown == brk0 && sbrk(0) == brk0 + (4 << 20), "sbrk(4 MB) moves the break by 4 MB");
  if (grown == brk0) {
    memset(grown, 0x5a, 4 << 20);
    CHECK(grown[0] == 0x5a && grown[(4 << 20) - 1] == 0x5a, "the new memory is usable");
  }
  char *blocks[8];
  for (int i = 0; i < 8; i++) {
    blocks[i] = malloc(1 << 20);
    CHECK(blocks[i] != NULL, "malloc(1 MB) #%d", i);
    if (blocks[i]) memset(blocks[i], i + 1, 1 << 20);
  }
  int intact = 1;
  for (int i = 0; i < 8; i++)
    if (blocks[i]) intact &= blocks[i][0] == i + 1 && blocks[i][(1 << 20) - 1] == i + 1;
  CHECK(intact, "heap blocks keep their contents");
  for (int i = 0; i < 8; i++) free(blocks[i]);
  errno = 0;
  CHECK(sbrk((intptr_t)1 << 46) == (void *)-1 && errno == ENOMEM, "a 64 TB sbrk fails: ENOMEM");

  /* gettimeofday is monotonic and moves; times works. */
  struct timeval t0, t1;
  CHECK(gettimeofday(&t0, NULL) == 0, "gettimeofday");
  volatile uint64_t spin = 0;
  for (long i = 0; i < 3000000; i++) spin += (uint64_t)i;
  CHECK(gettimeofday(&t1, NULL) == 0, "gettimeofday again");
  CHECK(t0.tv_usec >= 0 && t0.tv_usec < 1000000, "tv_usec in range");
  long long us0 = t0.tv_sec * 1000000LL + t0.tv_usec, us1 = t1.tv_sec * 1000000LL + t1.tv_usec;
  CHECK(us1 > us0, "time moved forward (%lld us)", us1 - us0);
  CHECK(t0.tv_sec >= 0 && t0.tv_usec >= 0 && t0.tv_usec < 1000000, "timeval in range");
  struct tms tm;
  clock_t c = times(&tm);
  CHECK(c != (clock_t)-1, "times");
  CHECK(tm.tms_cutime == 0 && tm.tms_cstime == 0, "no child times yet");

  /* getpid, kill with signal 0 (existence check). */
  int pid = getpid();
  CHECK(pid > 0 && getpid() == pid, "getpid %d", pid);
  CHECK(kill(pid, 0) == 0, "kill(self, 0) errno %d", errno);

  /* spawn and wait4 (not in Linux: ENOSYS under qemu-alpha user mode). */
  char *child_argv[] = {"shortlived", "5", NULL};
  int child = dcpi_spawn("/bin/shortlived", child_argv);
  if (child < 0) {
    CHECK(errno == ENOSYS, "spawn fails only with ENOSYS (errno %d)", errno);
    printf("rttest: spawn not supported\n");
  } else {
    int status = -1;
    CHECK(child > 0 && child != pid, "child pid %d", child);
    CHECK(dcpi_wait(child, &status) == child, "wait4(child) errno %d", errno);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == shortlived_result(5),
          "child status 0x%x, expected exit %d", status, shortlived_result(5));
    errno = 0;
    CHECK(dcpi_wait(child, &status) == -1 && errno == ECHILD, "wait4 again: ECHILD (%d)", errno);
    errno = 0;
    CHECK(dcpi_wait(-1, &status) == -1 && errno == ECHILD, "no children left: ECHILD (%d)", errno);
    printf("rttest: spawn ok\n");
  }

  printf("rttest: %s %d checks\n", failures ? "FAILED" : "ok", checks);
  fflush(stdout);
  return failures ? 1 : exit_status;
}
