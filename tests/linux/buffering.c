/* stdio's buffering follows where stdout goes: glibc asks isatty (TCGETS)
   when it allocates stdout's buffer (_IO_file_doallocate), and buffers
   fully for a file or a pipe, by line for a terminal. So a line printed
   before a fork is printed by both processes when stdout is redirected
   (both buffers hold it and both exit normally), and once to a terminal;
   a partial line is in both buffers either way. The output ends with a
   newline: dcpi run's console echo splits the program's lines from the
   system's by line, and init's report would end an unfinished one.
   Run under dcpi run and qemu-alpha with stdout a file, then a
   pseudo-terminal (processes.py's buffering case); outputs must be equal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

int main(void) {
  struct termios modes;
  const int terminal = tcgetattr(1, &modes) == 0;
  const int tcgetattr_errno = errno;
  printf("stdout is a terminal: %s\n", terminal ? "yes" : "no");
  if (!terminal) {
    /* The requests a terminal would answer: not one here. */
    printf("tcgetattr: %s\n", strerror(tcgetattr_errno));
    struct winsize size;
    printf("TIOCGWINSZ: %s\n", ioctl(1, TIOCGWINSZ, &size) == 0 ? "ok" : strerror(errno));
  }
  printf("before the fork, a whole line and no fflush\n");
  printf("and a partial line, in both buffers whatever they are: ");
  const pid_t child = fork();
  if (child < 0) {
    printf("fork: %s\n", strerror(errno));
    return 1;
  }
  if (child == 0) {
    printf("child: exits 3 through exit(), which flushes\n");
    exit(3);
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("parent: the child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
