/* Signals under glibc (issue 29): handlers installed with sigaction (with and
   without SA_SIGINFO, so both Linux/Alpha frames and both sigreturns), raise
   and kill, a blocked signal left pending and delivered when unblocked,
   rt_sigsuspend, registers and FP values intact across a handler, SA_RESETHAND,
   SIGCHLD from a child, a signal's default action killing a child (and the
   parent seeing it), and the failing paths (bad signal, bad pid, bad
   pointer). Its output must be identical under our kernel and qemu-alpha. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count, usr2_count, chld_count, last_signal;
static volatile int info_ok;

static void on_usr1(int sig) {
  usr1_count++;
  last_signal = sig;
}

static void on_usr2(int sig, siginfo_t *info, void *context) {
  usr2_count++;
  info_ok = info->si_signo == sig && info->si_code == SI_USER && info->si_pid == getpid() &&
            context != NULL;
}

static void on_chld(int sig) {
  (void)sig;
  chld_count++;
}

static const char *err(int rc) {
  if (rc == 0) return "0";
  return errno == EINVAL   ? "EINVAL"
         : errno == ESRCH  ? "ESRCH"
         : errno == EFAULT ? "EFAULT"
         : errno == ECHILD ? "ECHILD"
                           : strerror(errno);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  raise(SIGUSR1);
  printf("raise(SIGUSR1): handler ran %d time(s), signal %d\n", (int)usr1_count, (int)last_signal);

  /* Registers and FP values survive a handler that runs between them. */
  volatile double x = 1.5;
  double y = x * 3.0;
  kill(getpid(), SIGUSR1);
  y += x;
  printf("after kill: handler ran %d time(s); fp %.2f\n", (int)usr1_count, y);

  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_usr2;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR2, &sa, NULL);
  kill(getpid(), SIGUSR2);
  printf("SA_SIGINFO: handler ran %d time(s), siginfo right: %s\n", (int)usr2_count,
         info_ok ? "yes" : "no");

  /* Blocked: pending until unblocked. */
  sigset_t block, old, pending;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &old);
  raise(SIGUSR1);
  sigpending(&pending);
  printf("blocked: ran %d time(s), pending %d\n", (int)usr1_count, sigismember(&pending, SIGUSR1));
  sigprocmask(SIG_SETMASK, &old, NULL);
  printf("unblocked: ran %d time(s)\n", (int)usr1_count);

  /* sigsuspend: blocked, then waited for with an empty mask. */
  sigprocmask(SIG_BLOCK, &block, &old);
  kill(getpid(), SIGUSR1);
  sigset_t none;
  sigemptyset(&none);
  int rc = sigsuspend(&none);
  printf("sigsuspend returned %d (%s), ran %d time(s)\n", rc, errno == EINTR ? "EINTR" : "?",
         (int)usr1_count);
  sigprocmask(SIG_SETMASK, &old, NULL);

  /* SA_RESETHAND: once, then the default (ignore, for SIGWINCH). */
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGWINCH, &sa, NULL);
  raise(SIGWINCH);
  raise(SIGWINCH);
  printf("SA_RESETHAND: ran %d time(s), last %s\n", (int)usr1_count,
         last_signal == SIGWINCH ? "SIGWINCH" : "other");

  /* SIGCHLD and exit statuses. */
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_chld;
  sigaction(SIGCHLD, &sa, NULL);
  pid_t child = fork();
  if (child == 0) _exit(3);
  int status;
  pid_t got = waitpid(child, &status, 0);
  printf("child exited: reaped %s, status %d, SIGCHLD %d\n", got == child ? "it" : "other",
         WIFEXITED(status) ? WEXITSTATUS(status) : -1, (int)chld_count);
  child = fork();
  if (child == 0) {
    signal(SIGTERM, SIG_DFL);
    for (;;) pause();
  }
  kill(child, SIGTERM);
  waitpid(child, &status, 0);
  printf("child killed: signaled %d, signal %d\n", WIFSIGNALED(status), WTERMSIG(status));
  child = fork();
  if (child == 0) abort();
  waitpid(child, &status, 0);
  /* RLIMIT_CORE's default soft limit is 0: no core, so WCOREDUMP is 0. */
  printf("child aborted: signaled %d, signal %d, core dumped %d\n", WIFSIGNALED(status),
         WTERMSIG(status), WCOREDUMP(status) ? 1 : 0);

  /* A signal during a blocking read: restarted with SA_RESTART, EINTR without. */
  for (int restart = 1; restart >= 0; restart--) {
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = restart ? SA_RESTART : 0;
    sigaction(SIGUSR1, &sa, NULL);
    int fds[2];
    pipe(fds);
    int before = usr1_count;
    pid_t writer = fork();
    if (writer == 0) {
      struct timespec pause_50ms = {0, 50 * 1000 * 1000};
      nanosleep(&pause_50ms, NULL);
      kill(getppid(), SIGUSR1);
      nanosleep(&pause_50ms, NULL);
      write(fds[1], "data", 4);
      _exit(0);
    }
    char buffer[8];
    long n = read(fds[0], buffer, sizeof buffer);
    printf("read interrupted (SA_RESTART %d): %ld%s, handler ran %d time(s)\n", restart, n,
           n < 0 && errno == EINTR ? " EINTR" : "", (int)(usr1_count - before));
    waitpid(writer, &status, 0);
    close(fds[0]);
    close(fds[1]);
  }

  /* Failing paths. */
  printf("waitpid with no children: %s\n", err(waitpid(-1, &status, 0)));
  printf("sigaction(0): %s\n", err(sigaction(0, &sa, NULL)));
  printf("sigaction(SIGKILL): %s\n", err(sigaction(SIGKILL, &sa, NULL)));
  printf("kill(bad signal): %s\n", err(kill(getpid(), 999)));
  printf("kill(no such pid): %s\n", err(kill(999999, SIGUSR1)));
  printf("rt_sigaction(bad pointer): %s\n",
         err((int)syscall(SYS_rt_sigaction, SIGUSR1, (void *)8, NULL, 8, NULL)));
  printf("rt_sigprocmask(bad pointer): %s\n",
         err((int)syscall(SYS_rt_sigprocmask, SIG_BLOCK, (void *)8, NULL, 8)));
  return 0;
}
