// A program's stdout and stderr interleaved: `dcpi run` echoes each to its
// own stream (firmware/console_marks.h), so both equal qemu-alpha's: lines
// and unfinished lines on both, perror, raw writes, a child's, stderr sent
// into stdout with dup2 (a `2>&1` inside the program) and back, and the
// streams and a file opened again by name (/dev/stderr, /dev/fd/N, ...).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void say(int fd, const char* text) {
  if (write(fd, text, strlen(text)) < 0) _exit(9);
}

int main(void) {
  printf("terminals: stdin %d stdout %d stderr %d\n", isatty(0), isatty(1), isatty(2));
  printf("out: first line\n");
  fflush(stdout);
  fprintf(stderr, "err: first line\n");
  printf("out: a line in ");
  fflush(stdout);
  fprintf(stderr, "err: a line in ");
  printf("two writes\n");
  fflush(stdout);
  fprintf(stderr, "two writes\n");
  errno = ENOENT;
  perror("err: perror");
  say(2, "err: a raw write\n");
  say(1, "out: a raw write\n");
  const pid_t child = fork();
  if (child == 0) {
    fprintf(stderr, "err: from the child\n");
    say(1, "out: from the child\n");
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("out: the child exited %d\n", WEXITSTATUS(status));
  fflush(stdout);
  const int saved = dup(2);
  dup2(1, 2);
  fprintf(stderr, "out: stderr after dup2(1, 2)\n");
  dup2(saved, 2);
  close(saved);
  fprintf(stderr, "err: stderr again\n");

  FILE* by_name = fopen("/dev/stderr", "w");
  fprintf(by_name, "err: through /dev/stderr\n");
  fclose(by_name);
  const int out = open("/dev/stdout", O_WRONLY);
  say(out, "out: through /dev/stdout\n");
  close(out);
  const int file = open("reopened.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
  say(file, "abcdef");
  char name[40], text[8] = "";
  snprintf(name, sizeof name, "/dev/fd/%d", file);
  const int again = open(name, O_RDONLY);  // its own offset: from the start
  printf("out: %s: %zd bytes, \"%.3s\"\n", name + 5, read(again, text, 3), text);
  snprintf(name, sizeof name, "/proc/self/fd/%d", again);
  const int third = open(name, O_RDONLY);
  printf("out: %s again: %zd bytes\n", name + 11, read(third, text, 8));
  close(third);
  close(again);
  close(file);
  errno = 0;
  printf("out: /dev/fd/57: %d %s\n", open("/dev/fd/57", O_RDONLY), strerror(errno));
  fflush(stdout);
  for (int i = 0; i < 3; ++i) {
    printf("out: %d", i);
    fflush(stdout);
    fprintf(stderr, "err: %d", i);
  }
  printf("\n");
  fprintf(stderr, "\nerr: the last, without a newline");
  printf("out: the last, without a newline");
  return 0;
}
