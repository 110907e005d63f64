// Output whose last line has no newline, and a partial line written before
// a child's exit is reported: `dcpi run -- prog > out` must capture exactly
// what qemu-alpha's stdout has (firmware/console_marks.h).
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  printf("a line\nhalf a line, ");
  fflush(stdout);
  const pid_t child = fork();
  if (child == 0) _exit(0);  // its exit is reported while our line is open
  waitpid(child, NULL, 0);
  printf("the rest\nno newline at the end");
  return 0;
}
