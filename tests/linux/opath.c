/* O_PATH descriptors against Linux (qemu-alpha passes them to the host
   kernel): a descriptor that names a file without opening it. Usable for
   fstat, fstatat(AT_EMPTY_PATH), fstatfs, fchdir (a directory), as the dirfd
   of openat, fstatat, mkdirat, unlinkat, and for close, dup, dup2 and
   fcntl's F_DUPFD, F_GETFD, F_SETFD, F_GETFL; everything that would use
   the file itself is EBADF (read, write, lseek, getdents64, mmap, fchmod,
   ftruncate, fsync, flock, record locks, ioctl, F_SETFL, epoll_ctl); poll
   says POLLNVAL and select never finds it ready. O_NOFOLLOW on a symbolic
   link opens the link itself (S_IFLNK, readlinkat with an empty path); a
   FIFO opens without waiting; a file nobody may read opens; O_CREAT,
   O_TRUNC and the access mode are ignored, O_DIRECTORY is not; closing one
   leaves the process's record locks on the file. Everything happens in a
   fresh directory made by mkdtemp in /tmp, removed at the end. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char top[64]; /* the mkdtemp directory */

static const char *err(long rc) {
  if (rc >= 0) return "ok";
  switch (errno) {
    case EBADF:
      return "EBADF";
    case ENOENT:
      return "ENOENT";
    case ENOTDIR:
      return "ENOTDIR";
    case EINVAL:
      return "EINVAL";
    case ELOOP:
      return "ELOOP";
    case EISDIR:
      return "EISDIR";
    default:
      return strerror(errno);
  }
}

static const char *type_of(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "file";
    case S_IFDIR:
      return "directory";
    case S_IFLNK:
      return "link";
    case S_IFIFO:
      return "fifo";
    case S_IFCHR:
      return "char device";
    default:
      return "?";
  }
}

static const char *in_top(const char *name) {
  static char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", top, name);
  return path;
}

static void show_stat(const char *what, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    printf("%s: fstat %s\n", what, err(-1));
    return;
  }
  if (S_ISDIR(st.st_mode)) { /* sizes and mkdir's modes differ between file systems */
    printf("%s: fstat ok, %s\n", what, type_of(st.st_mode));
    return;
  }
  printf("%s: fstat ok, %s, size %ld, mode %o\n", what, type_of(st.st_mode), (long)st.st_size,
         st.st_mode & 07777);
}

/* F_GETFL's O_PATH bit and the other bits Linux keeps with it. */
static void show_flags(const char *what, int fd) {
  const int fl = fcntl(fd, F_GETFL);
  printf("%s: F_GETFL O_PATH %d, O_DIRECTORY %d, O_NOFOLLOW %d, access mode %d, others %#x\n", what,
         !!(fl & O_PATH), !!(fl & O_DIRECTORY), !!(fl & O_NOFOLLOW), fl & O_ACCMODE,
         fl & ~(O_PATH | O_DIRECTORY | O_NOFOLLOW | O_ACCMODE | O_LARGEFILE));
}

/* What a path-only descriptor refuses: everything that uses the file. */
static void refused(const char *what, int fd) {
  char buffer[16];
  printf("%s: read %s, write %s, lseek %s, pread %s\n", what, err(read(fd, buffer, 4)),
         err(write(fd, "x", 1)), err(lseek(fd, 0, SEEK_SET)), err(pread(fd, buffer, 4, 0)));
  printf("%s: fchmod %s, ftruncate %s, fsync %s, flock %s\n", what, err(fchmod(fd, 0644)),
         err(ftruncate(fd, 0)), err(fsync(fd)), err(flock(fd, LOCK_SH)));
  struct flock lock = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
  int available;
  printf("%s: F_SETLK %s, F_SETFL %s, ioctl %s, getdents64 %s\n", what,
         err(fcntl(fd, F_SETLK, &lock)), err(fcntl(fd, F_SETFL, O_NONBLOCK)),
         err(ioctl(fd, FIONREAD, &available)),
         err(syscall(SYS_getdents64, fd, buffer, sizeof buffer)));
  void *map = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, fd, 0);
  printf("%s: mmap %s\n", what, map == MAP_FAILED ? err(-1) : "ok");
  struct pollfd p = {fd, POLLIN, 0};
  printf("%s: poll %d, POLLNVAL %d\n", what, poll(&p, 1, 0), !!(p.revents & POLLNVAL));
  fd_set in;
  FD_ZERO(&in);
  FD_SET(fd, &in);
  struct timeval none = {0, 0};
  printf("%s: select %s\n", what, err(select(fd + 1, &in, NULL, NULL, &none)));
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN};
  printf("%s: epoll_ctl %s\n", what, err(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)));
  close(ep);
}

static void directory(void) {
  int dfd = open(top, O_PATH | O_DIRECTORY);
  printf("open the directory O_PATH|O_DIRECTORY: %s\n", err(dfd));
  show_stat("directory", dfd);
  show_flags("directory", dfd);
  printf("directory: F_GETFD %d\n", fcntl(dfd, F_GETFD));
  refused("directory", dfd);
  struct statfs fs;
  printf("directory: fstatfs %s\n", err(fstatfs(dfd, &fs)));
  struct stat st;
  printf("directory: fstatat AT_EMPTY_PATH %s, %s\n", err(fstatat(dfd, "", &st, AT_EMPTY_PATH)),
         type_of(st.st_mode));

  /* As the dirfd of *at() calls. */
  int f = openat(dfd, "file", O_RDONLY);
  char text[16] = "";
  printf("openat(dirfd, file) and read: %s, %s, \"%.*s\"\n", err(f), err(read(f, text, 5)), 5,
         text);
  close(f);
  printf("fstatat(dirfd, file): %s, %s\n", err(fstatat(dfd, "file", &st, 0)), type_of(st.st_mode));
  printf("mkdirat(dirfd, made): %s\n", err(mkdirat(dfd, "made", 0755)));
  printf("fstatat(dirfd, made): %s, %s\n", err(fstatat(dfd, "made", &st, 0)), type_of(st.st_mode));
  printf("unlinkat(dirfd, made, AT_REMOVEDIR): %s\n", err(unlinkat(dfd, "made", AT_REMOVEDIR)));

  /* dup, dup2 and F_DUPFD give more path-only descriptors. */
  int copy = dup(dfd);
  int copy2 = dup2(dfd, 40);
  int copy3 = fcntl(dfd, F_DUPFD_CLOEXEC, 20);
  printf("dup %s, dup2 %s, F_DUPFD_CLOEXEC %s (>= 20: %d, FD_CLOEXEC %d)\n", err(copy), err(copy2),
         err(copy3), copy3 >= 20, fcntl(copy3, F_GETFD));
  show_flags("the dup", copy);
  char buffer[4];
  printf("the dups: read %s %s %s\n", err(read(copy, buffer, 1)), err(read(copy2, buffer, 1)),
         err(read(copy3, buffer, 1)));
  printf("F_SETFD FD_CLOEXEC: %s, F_GETFD %d\n", err(fcntl(copy, F_SETFD, FD_CLOEXEC)),
         fcntl(copy, F_GETFD));
  close(copy);
  close(copy2);
  close(copy3);

  /* fchdir there and back. */
  int here = open(".", O_PATH);
  printf("fchdir to the directory: %s\n", err(fchdir(dfd)));
  char cwd[PATH_MAX];
  printf("getcwd is it: %s\n", getcwd(cwd, sizeof cwd) && strcmp(cwd, top) == 0 ? "yes" : "no");
  f = open("file", O_RDONLY);
  printf("open(file) relative to it: %s\n", err(f));
  close(f);
  printf("fchdir back through an O_PATH \".\": %s\n", err(fchdir(here)));
  close(here);
  printf("close: %s, close again: %s\n", err(close(dfd)), err(close(dfd)));
  printf("O_PATH|O_WRONLY of the directory (the access mode is ignored): %s\n",
         err(dfd = open(top, O_PATH | O_WRONLY)));
  close(dfd);
}

/* Whether another process finds `path` write-locked (F_GETLK). */
static int locked_for_others(const char *path) {
  pid_t child = fork();
  if (child == 0) {
    int fd = open(path, O_RDONLY);
    struct flock query = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    _exit(fcntl(fd, F_GETLK, &query) == 0 && query.l_type != F_UNLCK ? 1 : 0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

/* Closing an O_PATH descriptor leaves the process's record locks on the
   file (Linux's filp_flush skips them); closing any other drops them. */
static void locks_at_close(void) {
  int fd = open(in_top("file"), O_RDWR);
  struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  printf("write lock: %s\n", err(fcntl(fd, F_SETLK, &lock)));
  close(open(in_top("file"), O_PATH));
  printf("after an O_PATH descriptor's close, still locked: %s\n",
         locked_for_others(in_top("file")) ? "yes" : "no");
  close(open(in_top("file"), O_RDONLY));
  printf("after a reading descriptor's close, still locked: %s\n",
         locked_for_others(in_top("file")) ? "yes" : "no");
  close(fd);
}

static void file(void) {
  int fd = open(in_top("file"), O_PATH | O_TRUNC | O_CLOEXEC);
  printf("open the file O_PATH|O_TRUNC|O_CLOEXEC: %s\n", err(fd));
  show_stat("file (O_TRUNC ignored)", fd);
  show_flags("file", fd);
  printf("file: F_GETFD %d\n", fcntl(fd, F_GETFD));
  refused("file", fd);
  printf("file: openat(fd, x) %s, fchdir %s\n", err(openat(fd, "x", O_RDONLY)), err(fchdir(fd)));
  struct stat st;
  printf("file: fstatat AT_EMPTY_PATH %s, %s\n", err(fstatat(fd, "", &st, AT_EMPTY_PATH)),
         type_of(st.st_mode));
  close(fd);
  printf("O_PATH|O_DIRECTORY of the file: %s\n", err(open(in_top("file"), O_PATH | O_DIRECTORY)));
  printf("O_PATH|O_CREAT of a missing file (O_CREAT ignored): %s\n",
         err(open(in_top("missing"), O_PATH | O_CREAT, 0644)));
  printf("the missing file is still missing: %s\n", err(access(in_top("missing"), F_OK)));
  /* No access is checked: a file nobody may read or write. */
  fd = open(in_top("secret"), O_CREAT | O_WRONLY, 0);
  fchmod(fd, 0);
  close(fd);
  fd = open(in_top("secret"), O_PATH);
  printf("open a mode-0 file O_PATH: %s\n", err(fd));
  show_stat("mode-0 file", fd);
  close(fd);
}

static void link_and_others(void) {
  int fd = open(in_top("link"), O_PATH);
  printf("open the link O_PATH (followed): %s\n", err(fd));
  show_stat("link followed", fd);
  close(fd);
  fd = open(in_top("link"), O_PATH | O_NOFOLLOW);
  printf("open the link O_PATH|O_NOFOLLOW (the link itself): %s\n", err(fd));
  show_stat("link itself", fd);
  show_flags("link itself", fd);
  char target[32];
  ssize_t n = readlinkat(fd, "", target, sizeof target);
  printf("readlinkat(fd, \"\"): %s, \"%.*s\"\n", err(n), n > 0 ? (int)n : 0, target);
  printf("link itself: read %s, openat %s, fchdir %s\n", err(read(fd, target, 1)),
         err(openat(fd, "x", O_RDONLY)), err(fchdir(fd)));
  close(fd);
  printf("O_NOFOLLOW without O_PATH: %s\n", err(open(in_top("link"), O_RDONLY | O_NOFOLLOW)));
  fd = open(in_top("file"), O_PATH);
  n = readlinkat(fd, "", target, sizeof target);
  printf("readlinkat(a file's fd, \"\"): %s\n", err(n));
  close(fd);
  fd = open(in_top("dirlink"), O_PATH | O_NOFOLLOW | O_DIRECTORY);
  printf("a link to a directory, O_PATH|O_NOFOLLOW|O_DIRECTORY: %s\n", err(fd));
  fd = open(in_top("dirlink"), O_PATH | O_DIRECTORY);
  printf("a link to a directory, O_PATH|O_DIRECTORY (followed): %s\n", err(fd));
  show_stat("directory through a link", fd);
  close(fd);

  fd = open(in_top("fifo"), O_PATH); /* no writer: an ordinary open would wait */
  printf("open a FIFO O_PATH (no waiting): %s\n", err(fd));
  show_stat("fifo", fd);
  printf("fifo: read %s, write %s\n", err(read(fd, target, 1)), err(write(fd, "x", 1)));
  close(fd);
  fd = open("/dev/null", O_PATH | O_WRONLY);
  printf("open /dev/null O_PATH: %s\n", err(fd));
  show_stat("/dev/null", fd);
  printf("/dev/null: write %s\n", err(write(fd, "x", 1)));
  close(fd);
}

int main(void) {
  strcpy(top, "/tmp/opath-XXXXXX");
  if (!mkdtemp(top)) {
    perror("mkdtemp");
    return 1;
  }
  int fd = open(in_top("file"), O_CREAT | O_WRONLY, 0644);
  write(fd, "hello", 5);
  close(fd);
  mkdir(in_top("sub"), 0755);
  symlink("file", in_top("link"));
  symlink("sub", in_top("dirlink"));
  mkfifo(in_top("fifo"), 0600);
  directory();
  file();
  locks_at_close();
  link_and_others();
  const char *names[] = {"file", "secret", "link", "dirlink", "fifo"};
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) unlink(in_top(names[i]));
  rmdir(in_top("sub"));
  printf("removed: %s\n", err(rmdir(top)));
  return 0;
}
