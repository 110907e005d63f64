/* Memory shared between processes and files mapped from /tmp: MAP_SHARED
 * anonymous memory across fork (and after mremap moves it), private memory
 * staying private, mkstemp and tmpfile in /tmp, a file the program wrote
 * mapped back (private and shared read-only); a file mapped shared and
 * writable (stores reach read(), write()s reach the mapping, a forked
 * child's stores the parent), POSIX shared memory (shm_open in /dev/shm),
 * a named semaphore (sem_open), an anonymous file (memfd_create) mapped
 * and shared the same way.
 * Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kChildren = 3, kAdds = 2000, kPage = 8192 };

static void wait_all(int n) {
  for (int i = 0; i < n; i++) wait(NULL);
}

static void shared_counters(void) {
  long *shared = mmap(NULL, 3 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int *private_word = malloc(sizeof *private_word);
  *private_word = 7;
  for (int c = 0; c < kChildren; c++) {
    if (fork() == 0) {
      for (int i = 0; i < kAdds; i++) __atomic_fetch_add(&shared[0], 1, __ATOMIC_SEQ_CST);
      shared[kPage / sizeof(long) * 2 + c] = 100 + c;  // the third page, untouched before
      *private_word = 99;
      _exit(0);
    }
  }
  wait_all(kChildren);
  long third = 0;
  for (int c = 0; c < kChildren; c++) third += shared[kPage / sizeof(long) * 2 + c];
  printf("shared counter %ld (of %d), third page %ld, private word %d\n", shared[0],
         kChildren * kAdds, third, *private_word);

  /* Moved by mremap (another mapping right after it), still shared. (Not the
   * grown part: Linux's shared anonymous object keeps its size, SIGBUS there.) */
  void *blocker = mmap((char *)shared + 3 * kPage, kPage, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  long *moved = mremap(shared, 3 * kPage, 6 * kPage, MREMAP_MAYMOVE);
  if (moved == MAP_FAILED) {
    perror("mremap");
    return;
  }
  printf("mremap moved it: %d, counter kept %ld\n", moved != shared || blocker == MAP_FAILED,
         moved[0]);
  if (fork() == 0) {
    moved[0] += 1;
    moved[2 * kPage / sizeof(long)] = 555;
    _exit(0);
  }
  wait_all(1);
  printf("after mremap a child's writes: counter %ld, third page %ld\n", moved[0],
         moved[2 * kPage / sizeof(long)]);
  munmap(moved, 6 * kPage);

  /* A shared page outlives the parent's munmap while a child holds it. */
  char *note = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int p[2];
  pipe(p);
  if (fork() == 0) {
    char c;
    read(p[0], &c, 1);  // the parent has unmapped it by now
    strcpy(note, "still here");
    printf("child after the parent's munmap: %s\n", note);
    fflush(stdout);
    _exit(0);
  }
  munmap(note, kPage);
  write(p[1], "g", 1);
  wait_all(1);
}

static void temporary_files(void) {
  char name[] = "/tmp/dcpiXXXXXX";
  int fd = mkstemp(name);
  if (fd < 0) {
    perror("mkstemp");
    return;
  }
  char text[3 * kPage];
  for (size_t i = 0; i < sizeof text; i++) text[i] = 'a' + i % 26;
  write(fd, text, sizeof text);
  char *copy = mmap(NULL, sizeof text, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  const char *view = mmap(NULL, sizeof text, PROT_READ, MAP_SHARED, fd, 0);
  if (copy == MAP_FAILED || view == MAP_FAILED) {
    perror("mmap of a /tmp file");
    return;
  }
  printf("mapped file: private %d, shared read-only %d\n", memcmp(copy, text, sizeof text) == 0,
         memcmp(view, text, sizeof text) == 0);
  copy[0] = 'Z';
  char first;
  pread(fd, &first, 1, 0);
  printf("a private mapping's write leaves the file alone: %c\n", first);
  errno = 0;
  char *past = mmap(NULL, kPage, PROT_READ, MAP_PRIVATE, fd, 4 * kPage);
  printf("a mapping past the end of the file: %d\n", past != MAP_FAILED);
  munmap(copy, sizeof text);
  munmap((void *)view, sizeof text);
  close(fd);
  printf("unlink: %d\n", unlink(name));

  FILE *t = tmpfile();
  if (t == NULL) {
    perror("tmpfile");
    return;
  }
  fputs("scratch line\n", t);
  rewind(t);
  char line[64] = "";
  fgets(line, sizeof line, t);
  fclose(t);
  printf("tmpfile: %s", line);
}

/* A file mapped MAP_SHARED, PROT_WRITE: the mapping is the file. */
static void shared_file(const char *path, int fd) {
  ftruncate(fd, 2 * kPage);
  char *map = mmap(NULL, 2 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  printf("%s: mmap shared writable: %s\n", path, map == MAP_FAILED ? strerror(errno) : "ok");
  if (map == MAP_FAILED) return;
  memcpy(map + kPage - 2, "store", 5); /* across the two pages */
  char back[8] = {0};
  pread(fd, back, 5, kPage - 2);
  printf("a store, read back: %s\n", back);
  pwrite(fd, "WRITE", 5, 100);
  printf("a write, in the mapping: %.5s\n", map + 100);
  printf("msync: %d\n", msync(map, 2 * kPage, MS_SYNC));
  if (fork() == 0) {
    memcpy(map + 200, "child", 5);
    _exit(0);
  }
  wait(NULL);
  printf("the child's store: %.5s\n", map + 200);
  munmap(map, 2 * kPage);
  memset(back, 0, sizeof back);
  pread(fd, back, 5, 200);
  printf("after munmap, in the file: %s\n", back);
}

/* A named semaphore between a parent and its child (glibc makes it in
   /dev/shm with link()). */
static void named_semaphore(void) {
  sem_t *sem = sem_open("/dcpi-sem", O_CREAT | O_EXCL, 0600, 0);
  printf("sem_open: %s\n", sem == SEM_FAILED ? strerror(errno) : "ok");
  if (sem == SEM_FAILED) return;
  if (fork() == 0) {
    sem_t *child = sem_open("/dcpi-sem", 0);
    sem_post(child);
    sem_post(child);
    _exit(0);
  }
  wait(NULL);
  int value = -1;
  sem_wait(sem);
  sem_getvalue(sem, &value);
  printf("posted twice, taken once: %d\n", value);
  sem_close(sem);
  printf("sem_unlink: %d, again: %s\n", sem_unlink("/dcpi-sem"),
         sem_unlink("/dcpi-sem") ? strerror(errno) : "ok");
}

static void shared_files(void) {
  int fd = open("/tmp/shared-map", O_CREAT | O_RDWR | O_TRUNC, 0600);
  shared_file("a /tmp file", fd);
  close(fd);
  fd = open("/tmp/shared-map", O_RDONLY);
  void *map = mmap(NULL, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  printf("read-only descriptor, shared writable: %s\n", map == MAP_FAILED ? strerror(errno) : "ok");
  close(fd);
  unlink("/tmp/shared-map");
  fd = shm_open("/dcpi-shared", O_CREAT | O_EXCL | O_RDWR, 0600);
  printf("shm_open: %s\n", fd < 0 ? strerror(errno) : "ok");
  if (fd < 0) return;
  shared_file("shm", fd);
  close(fd);
  printf("shm_unlink: %d\n", shm_unlink("/dcpi-shared"));
}

/* memfd_create: a file with no name, as a /tmp file otherwise. */
static void anonymous_file(void) {
  int fd = memfd_create("dcpi", MFD_CLOEXEC);
  printf("memfd_create: %s\n", fd < 0 ? strerror(errno) : "ok");
  if (fd < 0) return;
  shared_file("memfd", fd);
  struct stat st;
  fstat(fd, &st);
  printf("memfd: size %lld, regular %d, close-on-exec %d\n", (long long)st.st_size,
         S_ISREG(st.st_mode), fcntl(fd, F_GETFD) & FD_CLOEXEC);
  int copy = dup(fd);
  close(fd);
  char back[8] = {0};
  pread(copy, back, 5, 200);
  printf("through a dup after the first close: %s\n", back);
  close(copy);
  printf("memfd_create with a bad flag: %s\n",
         memfd_create("dcpi", 0x100) < 0 ? strerror(errno) : "ok");
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  shared_counters();
  temporary_files();
  shared_files();
  named_semaphore();
  anonymous_file();
  printf("shared: done\n");
  return 0;
}
