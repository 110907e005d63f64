// The wall clock (kernel/clock.h realtime_cycles): dcpi run boots the guest
// at the host's time, so time(), gettimeofday, CLOCK_REALTIME and new files'
// times say today, and the absolute wall-clock deadlines glibc passes
// (pthread_cond_timedwait and sem_timedwait through FUTEX_CLOCK_REALTIME,
// clock_nanosleep, a timerfd and a POSIX timer on CLOCK_REALTIME) expire
// when they should; output compared with qemu-alpha's.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
static long ms_since(struct timespec a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}
int main() {
  time_t now = time(0);
  printf("time plausible %d\n", now > 1700000000);
  struct tm tm;
  localtime_r(&now, &tm);
  printf("year plausible %d\n", tm.tm_year + 1900 >= 2024);
  struct timeval tv;
  gettimeofday(&tv, 0);
  printf("gettimeofday close %d\n", tv.tv_sec - now <= 1 && tv.tv_sec >= now);
  struct timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  printf("realtime close %d\n", rt.tv_sec - now <= 1);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  struct timespec dl;
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_nsec += 50000000;
  if (dl.tv_nsec >= 1000000000) {
    dl.tv_sec++;
    dl.tv_nsec -= 1000000000;
  }
  pthread_mutex_lock(&m);
  int r = pthread_cond_timedwait(&c, &m, &dl);
  pthread_mutex_unlock(&m);
  long e = ms_since(t0);
  printf("cond_timedwait %s after ~50ms %d\n", r == ETIMEDOUT ? "ETIMEDOUT" : strerror(r),
         e >= 40 && e < 1000);
  sem_t s;
  sem_init(&s, 0, 0);
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_sec += 0;
  dl.tv_nsec += 30000000;
  if (dl.tv_nsec >= 1000000000) {
    dl.tv_sec++;
    dl.tv_nsec -= 1000000000;
  }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  r = sem_timedwait(&s, &dl);
  e = ms_since(t0);
  printf("sem_timedwait %d %s %d\n", r, r ? strerror(errno) : "", e >= 20 && e < 1000);
  clock_gettime(CLOCK_REALTIME, &dl);
  dl.tv_nsec += 20000000;
  if (dl.tv_nsec >= 1000000000) {
    dl.tv_sec++;
    dl.tv_nsec -= 1000000000;
  }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &dl, 0);
  e = ms_since(t0);
  printf("clock_nanosleep abs %d %d\n", r, e >= 15 && e < 1000);
  int fd = timerfd_create(CLOCK_REALTIME, 0);
  struct itimerspec its = {0};
  clock_gettime(CLOCK_REALTIME, &its.it_value);
  its.it_value.tv_nsec += 20000000;
  if (its.it_value.tv_nsec >= 1000000000) {
    its.it_value.tv_sec++;
    its.it_value.tv_nsec -= 1000000000;
  }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, 0);
  uint64_t n;
  read(fd, &n, 8);
  e = ms_since(t0);
  printf("timerfd abs %lu %d\n", (unsigned long)n, e >= 15 && e < 1000);
  timer_t tid;
  struct sigevent sev = {0};
  sev.sigev_notify = SIGEV_NONE;
  timer_create(CLOCK_REALTIME, &sev, &tid);
  clock_gettime(CLOCK_REALTIME, &its.it_value);
  its.it_value.tv_sec += 5;
  timer_settime(tid, TIMER_ABSTIME, &its, 0);
  struct itimerspec cur;
  timer_gettime(tid, &cur);
  printf("timer abs remaining ~5s %d\n", cur.it_value.tv_sec >= 4 && cur.it_value.tv_sec <= 5);
  int f = open("/tmp/t.txt", O_CREAT | O_WRONLY, 0644);
  write(f, "x", 1);
  close(f);
  struct stat st;
  stat("/tmp/t.txt", &st);
  printf("file mtime close %d ctime close %d\n", st.st_mtime - now <= 2 && st.st_mtime >= now,
         st.st_ctime - now <= 2 && st.st_ctime >= now);
  return 0;
}
