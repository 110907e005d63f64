/* Pipes and descriptors under glibc (issue 29): a producer child writing
   more than a pipe holds to its parent (blocking both ways), stdout
   redirected into a pipe with dup2, end of file when the last writer
   closes, EPIPE (with SIGPIPE ignored) when the reader is gone, O_NONBLOCK,
   /dev/null, close-on-exec flags, and the failing paths (closed and bad
   descriptors, a bad pointer). Output identical under our kernel and
   qemu-alpha. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err(long rc) {
  if (rc >= 0) return "ok";
  return errno == EBADF    ? "EBADF"
         : errno == EFAULT ? "EFAULT"
         : errno == EPIPE  ? "EPIPE"
         : errno == EAGAIN ? "EAGAIN"
         : errno == ESPIPE ? "ESPIPE"
         : errno == EINVAL ? "EINVAL"
                           : strerror(errno);
}

static int reap(pid_t pid) {
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int fds[2];
  /* Producer and consumer: 200 KB through an 8 KB (or 64 KB) pipe. */
  pipe(fds);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    char block[1000];
    for (int i = 0; i < 200; i++) {
      memset(block, 'a' + i % 26, sizeof block);
      if (write(fds[1], block, sizeof block) != (ssize_t)sizeof block) _exit(1);
    }
    _exit(0);
  }
  close(fds[1]);
  unsigned long sum = 0, total = 0;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) {
    for (ssize_t i = 0; i < n; i++) sum = sum * 31 + (unsigned char)buffer[i];
    total += (unsigned long)n;
  }
  printf("consumer: %lu bytes, digest %lx, end of file %s, producer status %d\n", total, sum,
         n == 0 ? "yes" : "no", reap(child));
  close(fds[0]);

  /* A child's stdout redirected into a pipe. */
  pipe(fds);
  child = fork();
  if (child == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    printf("hello through the pipe\n");
    _exit(0);
  }
  close(fds[1]);
  size_t got = 0;
  while ((n = read(fds[0], buffer + got, sizeof buffer - 1 - got)) > 0) got += (size_t)n;
  buffer[got] = 0;
  printf("redirected: %s", buffer);
  printf("then end of file: %ld, child %d\n", (long)n, reap(child));
  close(fds[0]);

  /* Nobody reading: EPIPE (SIGPIPE ignored). */
  signal(SIGPIPE, SIG_IGN);
  pipe(fds);
  close(fds[0]);
  printf("write with no reader: %s\n", err(write(fds[1], "x", 1)));
  close(fds[1]);

  /* O_NONBLOCK on an empty pipe, fstat, lseek. */
  pipe2(fds, O_NONBLOCK | O_CLOEXEC);
  printf("nonblocking read: %s, flags nonblock %d cloexec %d\n", err(read(fds[0], buffer, 1)),
         (fcntl(fds[0], F_GETFL) & O_NONBLOCK) != 0, fcntl(fds[0], F_GETFD) == FD_CLOEXEC);
  write(fds[1], "abc", 3);
  struct stat st;
  fstat(fds[0], &st);
  printf("fifo %d, lseek %s\n", S_ISFIFO(st.st_mode), err(lseek(fds[0], 0, SEEK_SET)));
  close(fds[0]);
  close(fds[1]);

  /* poll: nothing to read, then data, then the writer gone. */
  pipe(fds);
  struct pollfd p = {fds[0], POLLIN, 0};
  printf("poll empty: %d", poll(&p, 1, 0));
  write(fds[1], "z", 1);
  printf(", with data: %d revents POLLIN %d", poll(&p, 1, 100), (p.revents & POLLIN) != 0);
  read(fds[0], buffer, 1);
  close(fds[1]);
  printf(", writer closed: %d POLLHUP %d\n", poll(&p, 1, 100), (p.revents & POLLHUP) != 0);
  close(fds[0]);

  /* /dev/null. */
  int null = open("/dev/null", O_RDWR);
  printf("/dev/null: write %ld, read %ld, char device %d\n", (long)write(null, "abc", 3),
         (long)read(null, buffer, 10), fstat(null, &st) == 0 && S_ISCHR(st.st_mode));
  close(null);

  /* Failing paths. */
  printf("read of a closed fd: %s\n", err(read(null, buffer, 1)));
  printf("write to fd 99: %s\n", err(write(99, "x", 1)));
  printf("close twice: %s\n", err(close(null)));
  printf("pipe2 into a bad pointer: %s\n", err(syscall(SYS_pipe2, (void *)8, 0)));
  printf("dup2 to a bad fd: %s\n", err(dup2(1, -1)));
  return 0;
}
