/* eventfd, the wake-up counter of event loops (glib, libuv): a read takes
 * the count and a semaphore one, EAGAIN when empty and non-blocking, a
 * write that would pass 2^64 - 2 waits or fails, poll sees both; a thread
 * sleeping in read is woken by another's write, a forked child's writes
 * reach the parent (the counter belongs to the open file). Output equals
 * qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
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

int main(void) {
  counting();
  waking();
  printf("events: done\n");
  return 0;
}
