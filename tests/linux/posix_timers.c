/* POSIX timers and queued signals as programs use them (kernel/posix_timers.h):
 * a periodic SIGEV_SIGNAL timer with its value and SI_TIMER, overruns while
 * its signal is blocked, timer_gettime and timer_delete, glibc's SIGEV_THREAD
 * (a helper thread reading si_value), a timer on the process's CPU time,
 * sigqueue's SI_QUEUE value, and the errors. Prints only what does not depend
 * on the machine's speed, so the output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t fired, last_value, last_code;
static volatile int thread_calls, thread_arg;
static volatile double sink;

static void on_signal(int sig, siginfo_t *info, void *context) {
  (void)sig, (void)context;
  fired++;
  last_value = info->si_value.sival_int;
  last_code = info->si_code;
}

static void on_thread(union sigval value) {
  thread_arg = value.sival_int;
  thread_calls++;
}

static void sleep_ms(long ms) {
  struct timespec left = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0) {
  }
}

static const char *code_name(int code) {
  return code == SI_TIMER ? "SI_TIMER" : code == SI_QUEUE ? "SI_QUEUE" : "other";
}

/* A sigevent: `notify` with SIGUSR1 and `value`. */
static struct sigevent event(int notify, int value) {
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = notify;
  ev.sigev_signo = SIGUSR1;
  ev.sigev_value.sival_int = value;
  return ev;
}

static void periodic(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);
  struct sigevent ev = event(SIGEV_SIGNAL, 4242);
  timer_t timer;
  printf("create: %d\n", timer_create(CLOCK_MONOTONIC, &ev, &timer));
  struct itimerspec every = {{0, 20000000}, {0, 20000000}};
  printf("settime: %d\n", timer_settime(timer, 0, &every, NULL));
  while (fired < 3) sleep_ms(5);
  printf("fired 3 times, value %d, %s\n", last_value, code_name(last_code));
  struct itimerspec now;
  timer_gettime(timer, &now);
  printf("gettime: interval %ld ms, value within it %d\n", now.it_interval.tv_nsec / 1000000,
         now.it_value.tv_sec == 0 && now.it_value.tv_nsec <= 20000000);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  sleep_ms(100); /* five periods: one signal pending, the others overruns */
  siginfo_t info;
  int sig = sigwaitinfo(&set, &info);
  printf("sigwaitinfo: %s %s value %d, overruns >= 2: %d, getoverrun >= 2: %d\n",
         sig == SIGUSR1 ? "SIGUSR1" : "?", code_name(info.si_code), info.si_value.sival_int,
         info.si_overrun >= 2, timer_getoverrun(timer) >= 2);
  printf("delete: %d\n", timer_delete(timer));
  errno = 0;
  printf("delete again: %d %s\n", timer_delete(timer), strerror(errno));
  sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void in_a_thread(void) {
  struct sigevent ev = event(SIGEV_THREAD, 77);
  ev.sigev_notify_function = on_thread;
  timer_t timer;
  printf("SIGEV_THREAD create: %d\n", timer_create(CLOCK_REALTIME, &ev, &timer));
  struct itimerspec once = {{0, 0}, {0, 5000000}};
  printf("SIGEV_THREAD settime: %d\n", timer_settime(timer, 0, &once, NULL));
  for (int i = 0; i < 400 && thread_calls == 0; i++) sleep_ms(5);
  printf("SIGEV_THREAD calls %d, value %d\n", thread_calls, thread_arg);
  timer_delete(timer);
}

static void on_cpu_time(void) {
  struct sigevent ev = event(SIGEV_SIGNAL, 5);
  timer_t timer;
  printf("CPU-time create: %d\n", timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &timer));
  fired = 0;
  struct itimerspec once = {{0, 0}, {0, 30000000}}; /* 30 ms of the process's time */
  timer_settime(timer, 0, &once, NULL);
  for (long i = 0; fired == 0 && i < 2000000000L; i++) sink = sink * 0.5 + 1.0;
  printf("CPU-time fired %d, value %d\n", fired, last_value);
  timer_delete(timer);
}

static void queued(void) {
  union sigval value = {.sival_int = 99};
  fired = 0;
  printf("sigqueue: %d\n", sigqueue(getpid(), SIGUSR1, value));
  printf("queued: fired %d, value %d, %s\n", fired, last_value, code_name(last_code));
}

static void errors(void) {
  timer_t timer;
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = 0; /* not a signal */
  errno = 0;
  printf("bad signal: %d %s\n", timer_create(CLOCK_MONOTONIC, &ev, &timer), strerror(errno));
  ev.sigev_signo = SIGUSR1;
  errno = 0;
  printf("bad clock: %d %s\n", timer_create(12345, &ev, &timer), strerror(errno));
  /* The default sigevent: SIGALRM with the timer's id as its value. */
  printf("default sigevent: %d\n", timer_create(CLOCK_MONOTONIC, NULL, &timer));
  timer_delete(timer);
}

int main(void) {
  periodic();
  in_a_thread();
  on_cpu_time();
  queued();
  errors();
  printf("posix_timers: done\n");
  return 0;
}
