/* Interval timers and descriptor waits as programs use them (alarm and
 * setitimer's three timers, select and pselect, sigwait and sigtimedwait,
 * getrusage, clock_getres, the CPU-time clocks). Prints only what does not
 * depend on the machine's speed, so the output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms, vtalarms, profs;
static volatile double sink;

static void on_alarm(int sig) { (void)sig; alarms++; }
static void on_vtalarm(int sig) { (void)sig; vtalarms++; }
static void on_prof(int sig) { (void)sig; profs++; }

static void handle(int sig, void (*fn)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fn;
  sa.sa_flags = flags;
  sigaction(sig, &sa, NULL);
}

static void spin(long n) {
  double x = 0;
  for (long i = 0; i < n; i++) x += i * 0.5;
  sink = x;
}

static void arm(int which, long value_us, long interval_us) {
  struct itimerval it = {{interval_us / 1000000, interval_us % 1000000},
                         {value_us / 1000000, value_us % 1000000}};
  if (setitimer(which, &it, NULL) != 0) perror("setitimer");
}

static void interval_timers(void) {
  handle(SIGALRM, on_alarm, SA_RESTART);
  arm(ITIMER_REAL, 10000, 10000);
  struct itimerval now;
  getitimer(ITIMER_REAL, &now);
  printf("real armed: %d, interval %ld us\n",
         now.it_value.tv_sec == 0 && now.it_value.tv_usec > 0 && now.it_value.tv_usec <= 10000,
         (long)now.it_interval.tv_usec);
  while (alarms < 5) spin(20000);
  arm(ITIMER_REAL, 0, 0);
  getitimer(ITIMER_REAL, &now);
  printf("real: %d signals, then disarmed: %d\n", alarms >= 5,
         now.it_value.tv_sec == 0 && now.it_value.tv_usec == 0 && now.it_interval.tv_usec == 0);

  handle(SIGVTALRM, on_vtalarm, SA_RESTART);
  arm(ITIMER_VIRTUAL, 20000, 20000);
  while (vtalarms < 3) spin(20000);
  arm(ITIMER_VIRTUAL, 0, 0);
  printf("virtual: 3 signals from user time\n");

  handle(SIGPROF, on_prof, SA_RESTART);
  arm(ITIMER_PROF, 20000, 20000);
  while (profs < 3) spin(20000);
  arm(ITIMER_PROF, 0, 0);
  printf("prof: 3 signals\n");

  struct itimerval bad = {{0, 0}, {0, 1000000}};
  errno = 0;
  printf("usec 1000000: %d %s\n", setitimer(ITIMER_REAL, &bad, NULL), strerror(errno));
  errno = 0;
  printf("which 7: %d %s\n", setitimer(7, &bad, NULL), strerror(errno));
}

static void alarm_and_pause(void) {
  alarms = 0;
  alarm(1);
  pause();
  printf("alarm ended pause: %d\n", alarms == 1);
  alarm(5);
  unsigned left = alarm(0);
  printf("alarm(0) returns what was left: %d\n", left >= 4 && left <= 5);
}

static void waits(void) {
  int p[2];
  pipe(p);
  fd_set r, w;
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  struct timeval tv = {0, 20000};
  int n = select(p[0] + 1, &r, NULL, NULL, &tv);
  printf("select, empty pipe, 20 ms: %d, read set %d, time left %ld.%06ld\n", n,
         FD_ISSET(p[0], &r), (long)tv.tv_sec, (long)tv.tv_usec);
  write(p[1], "x", 1);
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  FD_ZERO(&w);
  FD_SET(p[1], &w);
  FD_SET(p[0], &w);
  int top = p[0] > p[1] ? p[0] : p[1];
  n = select(top + 1, &r, &w, NULL, NULL);
  printf("select, a byte in the pipe: %d ready, read end readable %d, write end writable %d, "
         "read end writable %d\n",
         n, FD_ISSET(p[0], &r), FD_ISSET(p[1], &w), FD_ISSET(p[0], &w));
  struct timespec ts = {1, 0};
  sigset_t mask;
  sigemptyset(&mask);
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  printf("pselect, readable: %d\n", pselect(p[0] + 1, &r, NULL, NULL, &ts, &mask));
  FD_ZERO(&r);
  FD_SET(60, &r);
  errno = 0;
  printf("select, fd not open: %d %s\n", select(61, &r, NULL, NULL, NULL), strerror(errno));
  tv.tv_sec = 0;
  tv.tv_usec = 10000;
  printf("select, no descriptors, 10 ms: %d\n", select(0, NULL, NULL, NULL, &tv));
  /* A handler ends select with EINTR, SA_RESTART or not (signal(7)). */
  handle(SIGALRM, on_alarm, SA_RESTART);
  arm(ITIMER_REAL, 20000, 0);
  errno = 0;
  n = select(0, NULL, NULL, NULL, NULL);
  printf("select, interrupted: %d %s\n", n, strerror(errno));
  close(p[0]);
  close(p[1]);
}

static void *signal_thread(void *arg) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  int sig = 0;
  int rc = sigwait(&set, &sig);
  *(int *)arg = rc == 0 ? sig : -1;
  return NULL;
}

/* sigwait in a thread of its own (the others block the signal), sigtimedwait
 * timing out, sigwaitinfo's sender, SIGCHLD (ignored by default) taken while
 * blocked. */
static void signal_waits(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  int got = 0;
  pthread_t t;
  pthread_create(&t, NULL, signal_thread, &got);
  struct timespec ms = {0, 20000000};
  nanosleep(&ms, NULL);
  kill(getpid(), SIGUSR1);
  pthread_join(t, NULL);
  printf("sigwait in a thread: %s\n", got == SIGUSR1 ? "SIGUSR1" : "?");
  struct timespec timeout = {0, 10000000};
  errno = 0;
  printf("sigtimedwait, nothing sent: %d %s\n", sigtimedwait(&set, NULL, &timeout),
         strerror(errno));
  kill(getpid(), SIGUSR1);
  siginfo_t info;
  int sig = sigwaitinfo(&set, &info);
  printf("sigwaitinfo: %s, from this process %d, code SI_USER %d\n",
         sig == SIGUSR1 ? "SIGUSR1" : "?", info.si_pid == getpid(), info.si_code == SI_USER);
  pid_t child = fork();
  if (child == 0) _exit(3);
  sig = sigwaitinfo(&set, &info);
  printf("sigwaitinfo: %s from the child %d\n", sig == SIGCHLD ? "SIGCHLD" : "?",
         info.si_pid == child);
  waitpid(child, NULL, 0);
  pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void *busy_thread(void *arg) {
  (void)arg;
  spin(3000000);
  return NULL;
}

static double seconds(const struct timespec *t) { return t->tv_sec + t->tv_nsec * 1e-9; }

static void cpu_time(void) {
  struct timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  printf("clock_getres: %d\n", res.tv_sec == 0 && res.tv_nsec > 0 && res.tv_nsec < 1000000);
  struct timespec process0, thread0, process, thread;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &process0);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &thread0);
  pthread_t t;
  pthread_create(&t, NULL, busy_thread, NULL);
  spin(3000000);
  pthread_join(t, NULL);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &process);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &thread);
  /* Both threads spun alike: the process's time grew by about twice this one's. */
  printf("process CPU time holds the joined thread's: %d\n",
         seconds(&process) - seconds(&process0) > (seconds(&thread) - seconds(&thread0)) * 1.5);
  struct rusage self;
  getrusage(RUSAGE_SELF, &self);
  double used = self.ru_utime.tv_sec + self.ru_stime.tv_sec +
                (self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1e-6;
  printf("getrusage self: time %d, max rss %d\n", used >= seconds(&process) * 0.9 && used > 0,
         self.ru_maxrss > 0);
  pid_t child = fork();
  if (child == 0) {
    spin(3000000);
    _exit(0);
  }
  waitpid(child, NULL, 0);
  struct rusage children;
  getrusage(RUSAGE_CHILDREN, &children);
  printf("getrusage children: %d\n", children.ru_utime.tv_sec + children.ru_stime.tv_sec +
                                             children.ru_utime.tv_usec + children.ru_stime.tv_usec > 0);
  errno = 0;
  printf("getrusage 5: %d %s\n", getrusage(5, &self), strerror(errno));
}

int main(void) {
  interval_timers();
  alarm_and_pause();
  waits();
  signal_waits();
  cpu_time();
  printf("timers: done\n");
  return 0;
}
