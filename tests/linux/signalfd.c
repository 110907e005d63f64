/* signalfd against Linux (qemu-alpha passes it to the host kernel): blocked
   signals read as struct signalfd_siginfo records instead of run as
   handlers. kill (SI_USER and the sender's pid), sigqueue's value
   (SI_QUEUE), pthread_kill (SI_TKILL), a child's end (SIGCHLD with
   CLD_EXITED and its status, CLD_KILLED and the signal), several records in
   one read, a signal outside the mask left pending until the mask of the
   same descriptor is changed (signalfd with fd != -1), poll, select and
   epoll seeing it, O_NONBLOCK's EAGAIN, a blocking read woken by another
   process's kill and one interrupted by a handled signal (EINTR), a forked
   child reading its own signals through the inherited descriptor, and the
   error paths (bad flags, a descriptor that is not a signalfd, a closed one,
   a short buffer, write). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *err(long rc) { return rc >= 0 ? "ok" : strerror(errno); }

static const char *signal_name(unsigned sig) {
  switch (sig) {
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGCHLD:
      return "SIGCHLD";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "?";
  }
}

static const char *code_name(int code) {
  switch (code) {
    case SI_USER:
      return "SI_USER";
    case SI_QUEUE:
      return "SI_QUEUE";
    case SI_TKILL:
      return "SI_TKILL";
    case CLD_EXITED:
      return "CLD_EXITED";
    case CLD_KILLED:
      return "CLD_KILLED";
    default:
      return "?";
  }
}

/* One record as read: the signal, the code, whether the pid is `sender`. */
static void show(const char *what, const struct signalfd_siginfo *r, pid_t sender) {
  printf("%s: %s %s pid %s", what, signal_name(r->ssi_signo), code_name(r->ssi_code),
         (pid_t)r->ssi_pid == sender ? "right" : "wrong");
  if (r->ssi_code == SI_QUEUE) printf(" int %d ptr %lu", r->ssi_int, (unsigned long)r->ssi_ptr);
  if (r->ssi_signo == SIGCHLD) printf(" status %d", r->ssi_status);
  printf("\n");
}

static int readable(int fd) {
  struct pollfd p = {fd, POLLIN | POLLOUT, 0};
  int n = poll(&p, 1, 0);
  return n == 1 ? p.revents : n;
}

static void sleep_ms(long ms) {
  struct timespec t = {0, ms * 1000000};
  nanosleep(&t, NULL);
}

static sigset_t set_of(int a, int b, int c) {
  sigset_t set;
  sigemptyset(&set);
  if (a) sigaddset(&set, a);
  if (b) sigaddset(&set, b);
  if (c) sigaddset(&set, c);
  return set;
}

static void basics(void) {
  sigset_t usr1 = set_of(SIGUSR1, 0, 0);
  int fd = signalfd(-1, &usr1, SFD_NONBLOCK | SFD_CLOEXEC);
  printf("signalfd: %s, FD_CLOEXEC %d, O_NONBLOCK %d, O_RDWR %d\n", err(fd),
         fcntl(fd, F_GETFD) & FD_CLOEXEC, !!(fcntl(fd, F_GETFL) & O_NONBLOCK),
         (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
  struct stat st;
  printf("fstat: %s, type bits %o, mode %o\n", err(fstat(fd, &st)), st.st_mode & S_IFMT,
         st.st_mode & 0777);
  struct signalfd_siginfo r[4];
  printf("read, nothing pending: %s\n", err(read(fd, r, sizeof r)));
  printf("poll, nothing pending: %d\n", readable(fd));
  printf("read 64 bytes: %s\n", err(read(fd, r, 64)));
  printf("write: %s\n", err(write(fd, r, sizeof r[0])));
  printf("lseek: %ld\n", (long)lseek(fd, 0, SEEK_CUR));

  kill(getpid(), SIGUSR1);
  printf("poll after kill: %#x\n", readable(fd));
  sigset_t pending;
  sigpending(&pending);
  printf("pending before the read: %d\n", sigismember(&pending, SIGUSR1));
  ssize_t n = read(fd, r, sizeof r);
  printf("read: %ld bytes\n", (long)n);
  show("kill", &r[0], getpid());
  sigpending(&pending);
  printf("pending after the read: %d, poll %d\n", sigismember(&pending, SIGUSR1), readable(fd));

  union sigval value = {.sival_int = 42};
  sigqueue(getpid(), SIGUSR1, value);
  n = read(fd, r, sizeof r);
  printf("read: %ld bytes\n", (long)n);
  show("sigqueue", &r[0], getpid());

  pthread_kill(pthread_self(), SIGUSR1);
  n = read(fd, r, sizeof r);
  printf("read: %ld bytes\n", (long)n);
  show("pthread_kill", &r[0], getpid());

  /* SIGUSR2 is blocked but not in the mask: it stays pending, unread, until
     the same descriptor's mask takes it in. */
  kill(getpid(), SIGUSR2);
  kill(getpid(), SIGUSR1);
  n = read(fd, r, sizeof r);
  printf("read with SIGUSR2 outside the mask: %ld bytes, %s\n", (long)n,
         signal_name(r[0].ssi_signo));
  printf("read again: %s\n", err(read(fd, r, sizeof r)));
  sigset_t both = set_of(SIGUSR1, SIGUSR2, 0);
  printf("new mask on the same fd: %s\n", signalfd(fd, &both, 0) == fd ? "same fd" : err(-1));
  kill(getpid(), SIGUSR1);
  n = read(fd, r, sizeof r);
  printf("read two at once: %ld bytes, %s then %s\n", (long)n, signal_name(r[0].ssi_signo),
         signal_name(r[1].ssi_signo));

  /* select and epoll. */
  kill(getpid(), SIGUSR2);
  fd_set in;
  FD_ZERO(&in);
  FD_SET(fd, &in);
  struct timeval none = {0, 0};
  printf("select: %d, readable %d\n", select(fd + 1, &in, NULL, NULL, &none), FD_ISSET(fd, &in));
  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 7};
  printf("epoll_ctl: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)));
  struct epoll_event got[2];
  n = epoll_wait(ep, got, 2, 100);
  printf("epoll_wait: %ld, data %u, EPOLLIN %d\n", (long)n, got[0].data.u32,
         !!(got[0].events & EPOLLIN));
  read(fd, r, sizeof r);
  printf("epoll_wait after the read: %d\n", epoll_wait(ep, got, 2, 0));
  close(ep);

  /* The error paths. */
  printf("bad flags: %s\n", err(signalfd(-1, &usr1, O_APPEND)));
  int pipe_fds[2];
  pipe(pipe_fds);
  printf("a pipe as the fd: %s\n", err(signalfd(pipe_fds[0], &usr1, 0)));
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  printf("a closed fd: %s\n", err(signalfd(60, &usr1, 0)));
  printf("fd -2: %s\n", err(signalfd(-2, &usr1, 0)));
  close(fd);
}

static void children(void) {
  sigset_t chld = set_of(SIGCHLD, 0, 0);
  int fd = signalfd(-1, &chld, 0); /* blocking */
  struct signalfd_siginfo r;
  pid_t child = fork();
  if (child == 0) _exit(7);
  ssize_t n = read(fd, &r, sizeof r);
  printf("read (waits for the child): %ld bytes\n", (long)n);
  show("child exits 7", &r, child);
  waitpid(child, NULL, 0);

  child = fork();
  if (child == 0) {
    kill(getpid(), SIGTERM);
    _exit(1);
  }
  waitpid(child, NULL, 0);
  read(fd, &r, sizeof r);
  show("child killed", &r, child);

  /* Another process's kill wakes a blocked read of the signals it sends. */
  sigset_t usr1 = set_of(SIGUSR1, 0, 0);
  int reader = signalfd(-1, &usr1, 0);
  pid_t parent = getpid();
  child = fork();
  if (child == 0) {
    sleep_ms(30);
    kill(parent, SIGUSR1);
    _exit(0);
  }
  n = read(reader, &r, sizeof r);
  printf("read woken by a child's kill: %ld bytes\n", (long)n);
  show("child's kill", &r, child);
  waitpid(child, NULL, 0);
  read(fd, &r, sizeof r);
  show("and its end", &r, child);

  /* A forked child reads its own signals through the inherited descriptor. */
  child = fork();
  if (child == 0) {
    kill(getpid(), SIGUSR1);
    struct signalfd_siginfo mine;
    ssize_t got = read(reader, &mine, sizeof mine);
    _exit(got == sizeof mine && mine.ssi_signo == SIGUSR1 && (pid_t)mine.ssi_pid == getpid() ? 5
                                                                                             : 6);
  }
  int status;
  waitpid(child, &status, 0);
  printf("a child reads its own SIGUSR1 through the inherited fd: %s\n",
         WEXITSTATUS(status) == 5 ? "yes" : "no");
  printf("the parent has nothing: poll %d\n", readable(reader));
  read(fd, &r, sizeof r); /* that child's SIGCHLD */
  close(reader);
  close(fd);
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

/* A blocking read that a handled signal interrupts: EINTR without
   SA_RESTART. */
static void interrupted(void) {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_handler = on_alarm;
  sigaction(SIGALRM, &act, NULL);
  sigset_t usr2 = set_of(SIGUSR2, 0, 0);
  int fd = signalfd(-1, &usr2, 0);
  struct itimerval in_20ms = {{0, 0}, {0, 20000}};
  setitimer(ITIMER_REAL, &in_20ms, NULL);
  struct signalfd_siginfo r;
  ssize_t n = read(fd, &r, sizeof r);
  printf("blocking read, SIGALRM handled meanwhile: %s, handler ran %d\n", err(n), (int)alarms);
  close(fd);
}

int main(void) {
  sigset_t blocked = set_of(SIGUSR1, SIGUSR2, SIGCHLD);
  sigprocmask(SIG_BLOCK, &blocked, NULL);
  basics();
  children();
  interrupted();
  printf("done\n");
  return 0;
}
