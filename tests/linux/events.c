/* eventfd and epoll, what event loops (glib, libuv) are made of. eventfd:
 * a read takes the count and a semaphore one, EAGAIN when empty and
 * non-blocking, a write that would pass 2^64 - 2 waits or fails, poll sees
 * both; a thread sleeping in read is woken by another's write, a forked
 * child's writes reach the parent (the counter belongs to the open file).
 * epoll: level-triggered reports, EPOLLET once per edge, EPOLLONESHOT until
 * re-armed, EPOLLHUP, an entry gone with its descriptor, the errors of
 * epoll_ctl, a thread woken in epoll_wait. timerfd: one shot and periodic
 * expirations counted by read, gettime, disarming, epoll waking on one.
 * Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *err(long rc) { return rc >= 0 ? "ok" : strerror(errno); }

static void counting(void) {
  int fd = eventfd(3, EFD_NONBLOCK);
  uint64_t v = 4;
  printf("write 4: %s\n", err(write(fd, &v, 8)));
  printf("read: %s ", err(read(fd, &v, 8)));
  printf("%lu\n", (unsigned long)v);
  printf("read empty: %s\n", err(read(fd, &v, 8)));
  printf("read 4 bytes: %s\n", err(read(fd, &v, 4)));
  v = UINT64_MAX;
  printf("write 2^64-1: %s\n", err(write(fd, &v, 8)));
  v = UINT64_MAX - 1;
  printf("write 2^64-2: %s\n", err(write(fd, &v, 8)));
  v = 1;
  printf("write 1 more: %s\n", err(write(fd, &v, 8)));
  struct pollfd p = {fd, POLLIN | POLLOUT, 0};
  printf("poll full: %d in %d out %d\n", poll(&p, 1, 0), !!(p.revents & POLLIN),
         !!(p.revents & POLLOUT));
  read(fd, &v, 8);
  p.revents = 0;
  printf("poll empty: %d in %d out %d\n", poll(&p, 1, 0), !!(p.revents & POLLIN),
         !!(p.revents & POLLOUT));
  struct stat st;
  printf("lseek: %s\n", err(lseek(fd, 0, SEEK_SET)));
  printf("fstat: %s\n", err(fstat(fd, &st)));
  close(fd);
  fd = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC);
  for (int i = 0; i < 3; i++) {
    v = 0;
    long r = read(fd, &v, 8);
    printf("semaphore read %d: %s %lu\n", i, err(r), (unsigned long)v);
  }
  close(fd);
  printf("bad flags: %s\n", err(eventfd(0, 0x40)));
}

static int shared;

static void *writer(void *arg) {
  (void)arg;
  struct timespec pause = {0, 2000000};
  nanosleep(&pause, NULL);
  uint64_t v = 7;
  write(shared, &v, 8);
  return NULL;
}

static void waking(void) {
  shared = eventfd(0, 0);
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  uint64_t v = 0;
  printf("blocking read: %s %lu\n", err(read(shared, &v, 8)), (unsigned long)v);
  pthread_join(t, NULL);
  pid_t child = fork();
  if (child == 0) {
    v = 5;
    write(shared, &v, 8);
    write(shared, &v, 8);
    _exit(0);
  }
  int status;
  waitpid(child, &status, 0);
  printf("from the child: %s %lu\n", err(read(shared, &v, 8)), (unsigned long)v);
  struct pollfd p = {shared, POLLIN, 0};
  printf("poll with a timeout: %d\n", poll(&p, 1, 5));
  close(shared);
}

/* One epoll_wait: how many events, and each one's data and events. */
static void show(int ep, const char *what, int timeout) {
  struct epoll_event got[8];
  int n = epoll_wait(ep, got, 8, timeout);
  printf("%s: %d", what, n);
  for (int i = 0; i < n; i++)
    printf(" [%lu%s%s%s]", (unsigned long)got[i].data.u64, got[i].events & EPOLLIN ? " in" : "",
           got[i].events & EPOLLOUT ? " out" : "", got[i].events & EPOLLHUP ? " hup" : "");
  printf("\n");
}

static void *poke(void *arg) {
  struct timespec pause = {0, 3000000};
  nanosleep(&pause, NULL);
  uint64_t one = 1;
  write(*(int *)arg, &one, 8);
  return NULL;
}

static void polling(void) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  int p[2], q[2], e = eventfd(0, EFD_NONBLOCK);
  pipe(p);
  pipe(q);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1};
  printf("add pipe: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev)));
  printf("add it again: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev)));
  ev = (struct epoll_event){.events = EPOLLIN | EPOLLET, .data.u64 = 2};
  printf("add eventfd, edge: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, e, &ev)));
  ev = (struct epoll_event){.events = EPOLLIN | EPOLLONESHOT, .data.u64 = 3};
  printf("add pipe, one shot: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, q[0], &ev)));
  show(ep, "nothing yet", 0);
  write(p[1], "x", 1);
  show(ep, "pipe written", 0);
  show(ep, "still readable (level)", 0);
  char c;
  read(p[0], &c, 1);
  uint64_t v = 1;
  write(e, &v, 8);
  show(ep, "eventfd written", 0);
  show(ep, "not again (edge)", 0);
  read(e, &v, 8);
  show(ep, "drained", 0);
  write(e, &v, 8);
  show(ep, "a new edge", 0);
  read(e, &v, 8);
  write(q[1], "y", 1);
  show(ep, "one shot", 0);
  show(ep, "disarmed", 0);
  ev = (struct epoll_event){.events = EPOLLIN | EPOLLONESHOT, .data.u64 = 4};
  printf("re-arm: %s\n", err(epoll_ctl(ep, EPOLL_CTL_MOD, q[0], &ev)));
  show(ep, "armed again", 0);
  printf("delete: %s, again: %s\n", err(epoll_ctl(ep, EPOLL_CTL_DEL, q[0], NULL)),
         err(epoll_ctl(ep, EPOLL_CTL_DEL, q[0], NULL)));
  show(ep, "deleted", 0);
  close(p[1]);
  show(ep, "writer gone", 0);
  close(p[0]);
  show(ep, "descriptor closed", 0);
  int file = open("/tmp/epoll-file", O_CREAT | O_RDWR, 0600);
  printf("add a file: %s\n", err(epoll_ctl(ep, EPOLL_CTL_ADD, file, &ev)));
  close(file);
  unlink("/tmp/epoll-file");
  printf("ctl on a pipe: %s\n", err(epoll_ctl(q[1], EPOLL_CTL_ADD, e, &ev)));
  printf("maxevents 0: %s\n", err(epoll_wait(ep, &ev, 0, 0)));
  int blocking = eventfd(0, 0);
  ev = (struct epoll_event){.events = EPOLLIN, .data.u64 = 5};
  epoll_ctl(ep, EPOLL_CTL_ADD, blocking, &ev);
  pthread_t t;
  pthread_create(&t, NULL, poke, &blocking);
  show(ep, "woken in epoll_wait", -1);
  pthread_join(t, NULL);
  close(ep);
}

static void timers(void) {
  int t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  uint64_t n = 0;
  printf("timerfd: %s, read before arming: %s\n", err(t), err(read(t, &n, 8)));
  struct itimerspec once = {.it_value = {0, 20000000}}, got;
  printf("arm 20 ms: %s\n", err(timerfd_settime(t, 0, &once, NULL)));
  timerfd_gettime(t, &got);
  printf("gettime: left > 0 %d, interval %ld\n", got.it_value.tv_nsec > 0,
         (long)got.it_interval.tv_nsec);
  struct pollfd p = {t, POLLIN, 0};
  printf("poll until it fires: %d\n", poll(&p, 1, 1000));
  printf("read: %s %lu\n", err(read(t, &n, 8)), (unsigned long)n);
  printf("read again: %s\n", err(read(t, &n, 8)));
  struct itimerspec every = {.it_interval = {0, 10000000}, .it_value = {0, 10000000}};
  timerfd_settime(t, 0, &every, NULL);
  struct timespec pause = {0, 55000000};
  nanosleep(&pause, NULL);
  read(t, &n, 8);
  printf("periodic 10 ms, after 55 ms: %s\n", n >= 4 && n <= 6 ? "4 to 6" : "other");
  struct itimerspec off = {0};
  printf("disarm: %s, ", err(timerfd_settime(t, 0, &off, &got)));
  printf("its interval was %ld ms\n", (long)(got.it_interval.tv_nsec / 1000000));
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 9};
  epoll_ctl(ep, EPOLL_CTL_ADD, t, &ev);
  once.it_value.tv_nsec = 5000000;
  timerfd_settime(t, 0, &once, NULL);
  show(ep, "epoll on a timerfd", 1000);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  struct itimerspec past = {.it_value = now};
  timerfd_settime(t, TFD_TIMER_ABSTIME, &past, NULL);
  printf("absolute, already passed: %s %lu\n", err(read(t, &n, 8)), (unsigned long)n);
  printf("a bad clock: %s, bad flags: %s\n", err(timerfd_create(99, 0)),
         err(timerfd_settime(t, 8, &once, NULL)));
  close(ep);
  close(t);
}

int main(void) {
  counting();
  waking();
  polling();
  timers();
  printf("events: done\n");
  return 0;
}
