/* Process groups and sessions as a shell pipeline and a supervisor use
 * them: a job of three stages (a | b | c over pipes) in a group of its own
 * (setpgid from both sides), killed at once with kill(-pgid) and reaped
 * with waitpid(-pgid) and waitid(P_PGID); kill(0) and killpg reaching the
 * caller's group only; setsid in a child (a new session: getsid, getpgid),
 * setpgid's EPERM and ESRCH; waitid's WNOWAIT leaving the child to reap,
 * wait4(0); prctl(PR_SET_PDEATHSIG) signalling an orphan when its parent
 * ends, PR_GET_DUMPABLE; ptrace refused; RLIMIT_NOFILE lowered: open fails with EMFILE at
 * the limit, dup2 beyond it is EBADF, F_DUPFD EINVAL. The program first
 * makes a group of its own, so that kill(0) stays inside it under
 * qemu-alpha too. Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static void on_usr1(int sig) { got++; }
/* Waits for SIGUSR1 without losing one that comes before the wait: the
 * caller blocked it (block_usr1) before telling the sender it is ready. */
static void block_usr1(void) {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigprocmask(SIG_BLOCK, &usr1, NULL);
}
static void await_usr1(void) {
  sigset_t none;
  sigemptyset(&none);
  while (!got) sigsuspend(&none);
}
static const char *err(long rc) { return rc >= 0 ? "ok" : strerror(errno); }

static void describe(const char *what, int st) {
  if (WIFEXITED(st))
    printf("%s: exit %d\n", what, WEXITSTATUS(st));
  else if (WIFSIGNALED(st))
    printf("%s: signal %d\n", what, WTERMSIG(st));
  else
    printf("%s: status %#x\n", what, st);
}

/* A stage that reads its input until end of file, then waits to be killed. */
static void stage(int n) {
  char buf[256];
  long total = 0;
  ssize_t got_bytes;
  if (n == 0) {
    for (int i = 0; i < 500; i++) printf("line %d of the job\n", i);
    fflush(stdout);
  } else {
    while ((got_bytes = read(0, buf, sizeof buf)) > 0) total += got_bytes;
    if (n == 2) fprintf(stderr, "%s", "");
  }
  close(1);
  if (n == 2) {
    int fd = open("/dev/null", O_WRONLY);
    (void)fd;
  }
  for (;;) pause();
}

static void job(void) {
  pid_t pids[3];
  int in = -1;
  for (int s = 0; s < 3; s++) {
    int p[2] = {-1, -1};
    if (s < 2 && pipe(p) < 0) exit(1);
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, s == 0 ? 0 : pids[0]);  // both sides set it, as a shell does
      if (in >= 0) {
        dup2(in, 0);
        close(in);
      }
      if (s < 2) {
        dup2(p[1], 1);
        close(p[1]);
        close(p[0]);
      }
      stage(s);
    }
    pids[s] = pid;
    setpgid(pid, pids[0]);
    if (in >= 0) close(in);
    if (s < 2) {
      close(p[1]);
      in = p[0];
    }
  }
  printf("job group is its first stage: %d %d %d\n", getpgid(pids[0]) == pids[0],
         getpgid(pids[1]) == pids[0], getpgid(pids[2]) == pids[0]);
  printf("not ours: %d\n", getpgid(pids[0]) != getpgrp());
  printf("kill(-job, SIGTERM): %s\n", err(kill(-pids[0], SIGTERM)));
  int st;
  pid_t w = waitpid(-pids[0], &st, 0);
  describe(w == pids[0] || w == pids[1] || w == pids[2] ? "a stage" : "?", st);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  int r = waitid(P_PGID, pids[0], &si, WEXITED);
  printf("waitid P_PGID: %d code %d signal %d\n", r, si.si_code == CLD_KILLED, si.si_status);
  w = waitpid(-pids[0], &st, 0);
  describe("the last stage", st);
  printf("group empty: %s\n", err(waitpid(-pids[0], &st, WNOHANG)));
  printf("kill(-job) now: %s\n", err(kill(-pids[0], SIGTERM)));
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("own group: %s, leader %d\n", err(setpgid(0, 0)), getpgrp() == getpid());
  /* getsid(0) is 0 under qemu-alpha in a container whose session leader is outside
     its pid namespace, so only success is compared. */
  printf("getpgid(0) == getpgrp: %d, getsid(0) >= 0: %d\n", getpgid(0) == getpgrp(), getsid(0) >= 0);
  job();

  signal(SIGUSR1, on_usr1);
  printf("kill(0): %s got %d\n", err(kill(0, SIGUSR1)), (int)got);
  printf("killpg(ours): %s got %d\n", err(killpg(getpgrp(), SIGUSR1)), (int)got);
  printf("kill(-999999): %s\n", err(kill(-999999, SIGUSR1)));

  /* A child in the group takes kill(0) too. */
  int sync[2];
  pipe(sync);
  pid_t c = fork();
  if (c == 0) {
    close(sync[0]);
    got = 0;
    block_usr1();
    write(sync[1], "r", 1);
    await_usr1();
    _exit(40 + got);
  }
  close(sync[1]);
  char ch;
  read(sync[0], &ch, 1);
  close(sync[0]);
  kill(0, SIGUSR1);
  int st;
  waitpid(c, &st, 0);
  describe("child of kill(0)", st);

  /* setsid in a child: a new session and group; not again. */
  c = fork();
  if (c == 0) {
    pid_t s = setsid();
    printf("child setsid: %d, sid %d, pgid %d\n", s == getpid(), getsid(0) == getpid(),
           getpgrp() == getpid());
    printf("again: %s\n", err(setsid()));
    printf("back into the parent's group: %s\n", err(setpgid(0, getppid())));
    _exit(0);
  }
  waitpid(c, &st, 0);
  printf("setsid as group leader: %s\n", err(setsid()));
  printf("setpgid of a stranger: %s\n", err(setpgid(1, 1)));
  printf("setpgid to a missing group: %s\n", err(setpgid(0, 999999)));
  printf("getpgid(999999): %s\n", err(getpgid(999999)));

  /* WNOWAIT, then the real reap; wait4(0). */
  c = fork();
  if (c == 0) _exit(4);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  int r = waitid(P_PID, c, &si, WEXITED | WNOWAIT);
  printf("WNOWAIT: %d pid ok %d status %d\n", r, si.si_pid == c, si.si_status);
  memset(&si, 0, sizeof si);
  r = waitid(P_ALL, 0, &si, WEXITED | WNOWAIT);
  printf("WNOWAIT again: %d status %d\n", r, si.si_status);
  printf("reaped: %d", waitpid(c, &st, 0) == c);
  describe("", st);
  c = fork();
  if (c == 0) _exit(6);
  printf("wait4(0): %d", waitpid(0, &st, 0) == c);
  describe("", st);
  printf("nothing left: %s\n", err(waitpid(0, &st, 0)));

  /* PR_SET_PDEATHSIG: the grandchild hears of its parent's end. */
  int report[2];
  pipe(report);
  c = fork();
  if (c == 0) {
    int ready[2];
    pipe(ready);
    if (fork() == 0) {
      close(report[0]);
      close(ready[0]);
      signal(SIGUSR1, on_usr1);
      prctl(PR_SET_PDEATHSIG, SIGUSR1);
      int sig = 0;
      prctl(PR_GET_PDEATHSIG, &sig);
      block_usr1();
      write(ready[1], "r", 1);
      await_usr1();
      dprintf(report[1], "orphan got SIGUSR1 (pdeathsig was %d)\n", sig);
      _exit(0);
    }
    close(ready[1]);
    read(ready[0], &ch, 1);
    _exit(0);  // the grandchild's parent ends
  }
  close(report[1]);
  waitpid(c, &st, 0);
  char line[128];
  ssize_t n = read(report[0], line, sizeof line - 1);
  line[n > 0 ? n : 0] = 0;
  printf("%s", line);
  printf("dumpable: %d\n", prctl(PR_GET_DUMPABLE));
  /* No tracing here (EPERM, as Yama's ptrace_scope 3; qemu-alpha: ENOSYS). */
  printf("ptrace(PTRACE_TRACEME): %ld\n", ptrace(PTRACE_TRACEME, 0, NULL, NULL));

  /* RLIMIT_NOFILE lowered to 10. */
  struct rlimit rl, low;
  getrlimit(RLIMIT_NOFILE, &rl);
  low.rlim_cur = 10;
  low.rlim_max = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &low);
  int fds[16], k;
  for (k = 0; k < 16; k++)
    if ((fds[k] = open("/dev/null", O_RDONLY)) < 0) break;
  printf("opened up to fd %d, then %s\n", k ? fds[k - 1] : -1, strerror(errno));
  for (int i = 0; i < k; i++) close(fds[i]);
  printf("dup2 to 12: %s\n", err(dup2(0, 12)));
  printf("F_DUPFD from 12: %s\n", err(fcntl(0, F_DUPFD, 12)));
  printf("dup2 to 9: %s\n", err(dup2(0, 9)));
  close(9);
  setrlimit(RLIMIT_NOFILE, &rl);
  printf("dup2 to 12 again: %s\n", err(dup2(0, 12)));
  close(12);
  return 0;
}
