/* system() and popen() under glibc (issue 29): both run "/bin/sh -c
   COMMAND" through posix_spawn (clone with CLONE_VM | CLONE_VFORK, then
   execve), so they need a shell at /bin/sh: `dcpi run -- PROGRAM` puts the
   real mix's dash there. The commands use dash's builtins only, so that
   under qemu-alpha -- whose execve of /bin/sh runs the host's shell, the
   same Debian dash 0.5.12 built for the host -- the output is the same bytes.
   Failing paths: a command that is not found (127), a shell killed by a
   signal, a popen mode glibc refuses (EINVAL), waiting for a child that
   system() already reaped (ECHILD), and pclose of a stream whose child was
   reaped behind its back (ECHILD). Without a /bin/sh (a build without the
   real mix), system() returns 127 and popen NULL (glibc says ENOMEM for
   any spawn failure).

   shell    the tour */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err_name(int e) {
  return e == ECHILD ? "ECHILD" : e == EINVAL ? "EINVAL" : e == ENOENT ? "ENOENT" : strerror(e);
}

/* What a wait status says, as a shell user would read it. */
static void print_status(const char *what, int status) {
  if (status == -1)
    printf("%s: -1 (%s)\n", what, err_name(errno));
  else if (WIFEXITED(status))
    printf("%s: exit %d\n", what, WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    printf("%s: killed by signal %d\n", what, WTERMSIG(status));
  else
    printf("%s: status 0x%x\n", what, status);
}

/* Our output goes first: the shell writes to the same descriptor. */
static int run(const char *command) {
  fflush(stdout);
  return system(command);
}

static void system_cases(void) {
  printf("system(NULL): %s\n", system(NULL) ? "a shell is there" : "no shell");
  print_status("system echo", run("echo 'system: hello from sh'"));
  print_status("system exit 3", run("exit 3"));
  print_status("system loop",
               run("i=0; while [ $i -lt 3 ]; do echo \"loop $i\"; i=$((i+1)); done"));
  print_status("system pipeline",
               run("printf 'b\\na\\nc\\n' | while read w; do echo \"word $w\"; done"));
  print_status("system missing program", run("/bin/no-such-program 2>&1"));
  print_status("system kill -9 itself", run("kill -9 $$"));
  /* system() reaped its child: nothing is left to wait for. */
  errno = 0;
  const pid_t waited = waitpid(-1, NULL, WNOHANG);
  printf("waitpid after system: %d (%s)\n", (int)waited, err_name(errno));
}

static void popen_read(void) {
  fflush(stdout);
  FILE *f = popen("echo 'first line'; echo 'second line'; exit 4", "r");
  if (f == NULL) {
    printf("popen r: %s\n", err_name(errno));
    return;
  }
  char line[128];
  int n = 0;
  while (fgets(line, sizeof line, f) != NULL) printf("popen r %d: %s", ++n, line);
  print_status("pclose r", pclose(f));
}

static void popen_write(void) {
  fflush(stdout);
  FILE *f = popen("n=0; while read l; do n=$((n+1)); echo \"sh got $n: $l\"; done; exit $n", "w");
  if (f == NULL) {
    printf("popen w: %s\n", err_name(errno));
    return;
  }
  fputs("alpha\nbeta\ngamma\n", f);
  print_status("pclose w", pclose(f));
}

static void popen_failures(void) {
  errno = 0;
  FILE *bad = popen("echo never", "x");
  printf("popen mode x: %s (%s)\n", bad ? "a stream" : "NULL", err_name(errno));
  /* Its child reaped by someone else: pclose cannot wait for it. */
  fflush(stdout);
  FILE *f = popen("exit 0", "r");
  if (f == NULL) {
    printf("popen exit 0: %s\n", err_name(errno));
    return;
  }
  char c;
  while (fread(&c, 1, 1, f) == 1) {
  }
  while (wait(NULL) > 0) {
  }
  errno = 0;
  print_status("pclose of a reaped child", pclose(f));
}

int main(void) {
  system_cases();
  popen_read();
  popen_write();
  popen_failures();
  printf("shell: done\n");
  return 0;
}
