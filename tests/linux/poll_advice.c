/* poll(2)'s corners and madvise(2)'s one promise, as event loops and
 * allocators rely on them: a negative fd is a switched-off slot (revents 0,
 * not counted) while a closed one is POLLNVAL; a pipe's write end whose
 * reader is gone is POLLERR and still POLLOUT (Linux's pipe_poll), its read
 * end after the writer's close POLLHUP; many pipes at once with a timeout.
 * MADV_DONTNEED drops private anonymous pages (the next touch reads zeros:
 * glibc's calloc counts on that for a thread arena's shrunk heap), keeps a
 * MAP_SHARED page's contents, and an unaligned start is EINVAL. Output
 * equals qemu-alpha's. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define N 24

int main(void) {
  int rd[N], wr[N];
  for (int i = 0; i < N; i++) {
    int p[2];
    if (pipe(p)) return 1;
    rd[i] = p[0];
    wr[i] = p[1];
  }
  struct pollfd pf[N];
  for (int i = 0; i < N; i++) pf[i] = (struct pollfd){rd[i], POLLIN, 0};
  printf("nothing to read: %d\n", poll(pf, N, 20));
  for (int i = 0; i < N; i += 5) write(wr[i], "x", 1);
  pf[10].fd = -pf[10].fd;  // switched off: ready, but not looked at
  int r = poll(pf, N, 1000);
  printf("ready %d:", r);
  for (int i = 0; i < N; i++)
    if (pf[i].revents) printf(" %d/%#x", i, pf[i].revents);
  printf("\n");
  struct pollfd odd[3] = {{-1, POLLIN, 0}, {900, POLLIN, 0}, {wr[1], POLLOUT, 0}};
  r = poll(odd, 3, 0);
  printf("-1, closed, writable: %d [%#x %#x %#x]\n", r, odd[0].revents, odd[1].revents,
         odd[2].revents);
  close(wr[2]);
  struct pollfd hup = {rd[2], POLLIN, 0};
  printf("writer gone: %d %#x\n", poll(&hup, 1, 0), hup.revents);
  close(rd[3]);
  struct pollfd err = {wr[3], POLLOUT, 0};
  printf("reader gone: %d %#x\n", poll(&err, 1, 0), err.revents);
  struct pollfd only_err = {wr[3], 0, 0};
  printf("reader gone, no events asked: %d %#x\n", poll(&only_err, 1, 0), only_err.revents);

  const long page = 8192;
  char *m = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(m, 'a', 4 * page);
  r = madvise(m + page, 2 * page, MADV_DONTNEED);
  printf("dontneed: %d, bytes %c %d %d %c\n", r, m[0], m[page], m[3 * page - 1], m[3 * page]);
  m[page] = 'b';
  printf("written again: %c\n", m[page]);
  r = madvise(m + 1, page, MADV_DONTNEED);
  printf("unaligned: %d %s\n", r, r ? strerror(errno) : "");
  printf("willneed %d sequential %d random %d normal %d\n", madvise(m, page, MADV_WILLNEED),
         madvise(m, page, MADV_SEQUENTIAL), madvise(m, page, MADV_RANDOM),
         madvise(m, page, MADV_NORMAL));
  char *s = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  s[0] = 's';
  printf("shared dontneed: %d %c\n", madvise(s, page, MADV_DONTNEED), s[0]);
  munmap(m, 4 * page);
  munmap(s, page);
  return 0;
}
