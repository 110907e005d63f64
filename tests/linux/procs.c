/* Processes under glibc (issue 29): fork, vfork, execve (of this program,
   through /proc/self/exe, with arguments and an environment), posix_spawn
   (glibc's clone(CLONE_VM | CLONE_VFORK) on a separate stack, then execve),
   wait4/waitpid/waitid, exit statuses, getppid, memory that fork copies
   (the child's writes stay its own), and the failing paths (ECHILD, execve of
   a missing file, a bad pointer). Output identical under our kernel and
   qemu-alpha.

   procs                 the parent's tour
   procs --no-exec       without the cases that exec (qemu-alpha cannot exec an
                         Alpha program without binfmt_misc; the test checks those
                         lines, which start with "exec", against fixed text)
   procs --child N       exit with status N after printing argv and DCPI_TEST

   The program execs itself by the path it was started with (argv[0]). */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static int shared_value = 1;

static const char *err(long rc) {
  if (rc >= 0) return "ok";
  return errno == ECHILD   ? "ECHILD"
         : errno == ENOENT ? "ENOENT"
         : errno == EFAULT ? "EFAULT"
                           : strerror(errno);
}

static int child_main(int argc, char **argv) {
  const char *value = getenv("DCPI_TEST");
  printf("  child: argc %d argv[2] %s DCPI_TEST=%s parent is caller: %s\n", argc, argv[2],
         value ? value : "(unset)", getppid() > 1 ? "yes" : "no");
  fflush(stdout);
  return atoi(argv[2]);
}

static int reap(pid_t pid) {
  int status;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void *sleeper(void *arg) {
  (void)arg;
  for (;;) pause();
  return NULL;
}

/* A process with a second thread (blocked in pause) execs: the thread ends,
   the new program runs. */
static void exec_from_threads(const char *self) {
  pid_t pid = fork();
  if (pid == 0) {
    pthread_t thread;
    pthread_create(&thread, NULL, sleeper, NULL);
    char *args[] = {"procs", "--child", "11", NULL};
    char *env[] = {"DCPI_TEST=from-a-threaded-process", NULL};
    execve(self, args, env);
    _exit(97);
  }
  printf("exec: execve from a threaded process: child status %d\n", reap(pid));
}

static void exec_cases(const char *self) {
  pid_t pid = fork();
  if (pid == 0) {
    char *args[] = {"procs", "--child", "5", NULL};
    char *env[] = {"DCPI_TEST=from-execve", NULL};
    execve(self, args, env);
    _exit(99);
  }
  printf("exec: fork+execve: child status %d\n", reap(pid));

  pid = vfork();
  if (pid == 0) {
    char *args[] = {"procs", "--child", "6", NULL};
    execve(self, args, environ);
    _exit(98);
  }
  printf("exec: vfork+execve: child status %d\n", reap(pid));

  char *args[] = {"procs", "--child", "8", NULL};
  char *env[] = {"DCPI_TEST=from-posix_spawn", NULL};
  int rc = posix_spawn(&pid, self, NULL, NULL, args, env);
  printf("exec: posix_spawn: %d, child status %d\n", rc, rc == 0 ? reap(pid) : -1);
  char **volatile bad = (char **)8;
  printf("exec: execve with a bad argv: %s\n", err(execve(self, bad, env)));
  exec_from_threads(self);
}

int main(int argc, char **argv) {
  if (argc >= 3 && strcmp(argv[1], "--child") == 0) return child_main(argc, argv);
  setvbuf(stdout, NULL, _IOLBF, 0);

  pid_t pid = fork();
  if (pid == 0) {
    shared_value = 42;
    printf("  forked child sees %d after writing\n", shared_value);
    _exit(7);
  }
  printf("fork: child status %d, parent still sees %d\n", reap(pid), shared_value);

  if (!(argc >= 2 && strcmp(argv[1], "--no-exec") == 0)) exec_cases(argv[0]);

  pid = fork();
  if (pid == 0) _exit(9);
  siginfo_t info;
  memset(&info, 0, sizeof info);
  int rc = waitid(P_PID, pid, &info, WEXITED);
  printf("waitid: %d, code %s, status %d, pid right: %s\n", rc,
         info.si_code == CLD_EXITED ? "CLD_EXITED" : "?", info.si_status,
         info.si_pid == pid ? "yes" : "no");

  /* Failing paths. */
  int status;
  printf("wait with no children: %s\n", err(wait(&status)));
  char *args[] = {"procs", NULL};
  printf("execve of a missing file: %s\n", err(execve("/no/such/program", args, environ)));
  pid = fork();
  if (pid == 0) _exit(0);
  printf("wait4 into a bad pointer: %s\n", err(wait4(pid, (int *)8, 0, NULL)));
  printf("and it was reaped: %s\n", err(wait(&status)));
  return 0;
}
