/* The kernel's copies between descriptors: sendfile (a 100 KB RAM file at
   an offset and at the file's own, to a RAM file, to a pipe a child reads,
   to stdout, to /dev/null, to a socket, from /dev/zero), copy_file_range
   (with and without offsets, past the end, within one file), splice (a
   pipe to a file and back, pipe to pipe, to /dev/null and stdout) and tee,
   and their error paths; a blocked sendfile interrupted by a signal.
   Results and checksums are printed, never how many bytes one call moved
   into a pipe (Linux's pipes hold 64 KB, this kernel's 8 KB, and stdout is
   a pipe under qemu-alpha, the console under dcpi run). Relative paths,
   so that qemu-alpha run in an empty directory prints the same. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kSize = 100 * 1024, kLine = 64 };

static const char *err(long rc) {
  static const struct {
    int number;
    const char *name;
  } names[] = {{EBADF, "EBADF"}, {EINVAL, "EINVAL"},      {EFAULT, "EFAULT"}, {ESPIPE, "ESPIPE"},
               {EPIPE, "EPIPE"}, {EAGAIN, "EAGAIN"},      {EINTR, "EINTR"},   {EISDIR, "EISDIR"},
               {EXDEV, "EXDEV"}, {EOVERFLOW, "EOVERFLOW"}};
  if (rc >= 0) return "ok";
  for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
    if (names[i].number == errno) return names[i].name;
  return strerror(errno);
}

static void result(const char *what, long rc) {
  if (rc < 0)
    printf("%s: -1 %s\n", what, err(rc));
  else
    printf("%s: %ld\n", what, rc);
}

static uint64_t fnv(uint64_t hash, const char *data, size_t n) {
  for (size_t i = 0; i < n; ++i) hash = (hash ^ (unsigned char)data[i]) * 0x100000001b3ull;
  return hash;
}
static const uint64_t kFnvStart = 0xcbf29ce484222325ull;

static char source[kSize];

/* A file's size and checksum. */
static void describe(const char *label, const char *path) {
  static char buffer[4 * kSize];
  int fd = open(path, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, buffer, sizeof buffer);
  if (fd >= 0) close(fd);
  printf("%s: %s size %zd checksum %016llx\n", label, path, n,
         (unsigned long long)fnv(kFnvStart, buffer, n < 0 ? 0 : (size_t)n));
}

static void range_checksum(const char *label, long from, long count) {
  printf("%s: source [%ld, %ld) checksum %016llx\n", label, from, from + count,
         (unsigned long long)fnv(kFnvStart, source + from, (size_t)count));
}

static long position(int fd) { return (long)lseek(fd, 0, SEEK_CUR); }

/* A child that reads `fd` to its end and prints the bytes' size and checksum. */
static pid_t reader(int fd, int other_end, const char *label) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(other_end);
    static char buffer[4 * kSize];
    size_t total = 0;
    ssize_t n;
    while ((n = read(fd, buffer + total, sizeof buffer - total)) > 0) total += (size_t)n;
    printf("  %s reader: %zu bytes checksum %016llx\n", label, total,
           (unsigned long long)fnv(kFnvStart, buffer, total));
    fflush(stdout);
    _exit(0);
  }
  return pid;
}

static void reap(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) printf("  child status %#x\n", status);
}

static void make_source(void) {
  for (int i = 0; i < kSize / kLine; ++i) {
    char line[kLine + 1];
    snprintf(line, sizeof line, "line %05d %-52.52s\n", i,
             "the quick brown fox jumps over the lazy dog 0123456789");
    memcpy(source + i * kLine, line, kLine);
  }
  int fd = open("source.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (write(fd, source, kSize) != kSize) printf("source write failed\n");
  close(fd);
  describe("source", "source.dat");
}

/* sendfile until `count` bytes or an error/end; the total. */
static long send_all(int out, int in, off_t *offset, long count, int *calls) {
  long total = 0;
  *calls = 0;
  while (total < count) {
    ssize_t n = sendfile(out, in, offset, (size_t)(count - total));
    ++*calls;
    if (n <= 0) return total ? total : n;
    total += n;
  }
  return total;
}

static void sendfile_files(void) {
  printf("== sendfile to files\n");
  int in = open("source.dat", O_RDONLY);
  int out = open("copy1.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  result("sendfile whole, no offset", sendfile(out, in, NULL, kSize + 1000));
  printf("input position %ld output position %ld\n", position(in), position(out));
  result("sendfile at end", sendfile(out, in, NULL, 100));
  close(out);
  describe("copy1", "copy1.dat");

  lseek(in, 123, SEEK_SET);
  out = open("copy2.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  off_t offset = 1000;
  result("sendfile offset 1000 count 50000", sendfile(out, in, &offset, 50000));
  printf("offset %ld input position %ld output position %ld\n", (long)offset, position(in),
         position(out));
  close(out);
  describe("copy2", "copy2.dat");
  range_checksum("copy2", 1000, 50000);

  offset = kSize - 400;
  out = open("copy3.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
  lseek(out, 10, SEEK_SET); /* the output's position: a hole of 10 bytes */
  result("sendfile near the end", sendfile(out, in, &offset, 1000));
  printf("offset %ld\n", (long)offset);
  offset = kSize + 5;
  result("sendfile past the end", sendfile(out, in, &offset, 1000));
  printf("offset %ld\n", (long)offset);
  offset = 0;
  result("sendfile count 0", sendfile(out, in, &offset, 0));
  close(out);
  describe("copy3", "copy3.dat");

  int null = open("/dev/null", O_WRONLY);
  offset = 0;
  result("sendfile to /dev/null", sendfile(null, in, &offset, kSize));
  printf("offset %ld\n", (long)offset);
  close(null);

  int zero = open("/dev/zero", O_RDONLY);
  out = open("zeros.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  result("sendfile from /dev/zero", sendfile(out, zero, NULL, 3000));
  close(out);
  close(zero);
  describe("zeros", "zeros.dat");
  close(in);
}

static void sendfile_pipes(void) {
  printf("== sendfile to pipes\n");
  int in = open("source.dat", O_RDONLY);
  int p[2];
  pipe(p);
  pid_t child = reader(p[0], p[1], "offset");
  close(p[0]);
  off_t offset = 0;
  int calls;
  long total = send_all(p[1], in, &offset, kSize, &calls);
  close(p[1]);
  reap(child);
  printf("sent %ld with an offset, offset %ld, input position %ld, several calls %d\n", total,
         (long)offset, position(in), calls > 1);

  pipe(p);
  child = reader(p[0], p[1], "no offset");
  close(p[0]);
  lseek(in, 4096, SEEK_SET);
  total = send_all(p[1], in, NULL, kSize, &calls);
  close(p[1]);
  reap(child);
  printf("sent %ld from the position, input position %ld\n", total, position(in));
  range_checksum("no offset", 4096, kSize - 4096);

  /* A socket: sendfile writes all of it, waiting for the reader. */
  int s[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, s);
  child = reader(s[1], s[0], "socket");
  close(s[1]);
  offset = 0;
  total = send_all(s[0], in, &offset, kSize, &calls);
  close(s[0]);
  reap(child);
  printf("sent %ld to a socket\n", total);

  /* A socket's bytes into a pipe, and from the pipe into a socket. */
  int t[2], between[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, t);
  pipe(between);
  write(t[1], "through a socket", 16);
  result("sendfile from a socket to a pipe", sendfile(between[1], t[0], NULL, 100));
  result("splice from the pipe to a socket", splice(between[0], NULL, t[0], NULL, 100, 0));
  char text[32];
  ssize_t length = read(t[1], text, sizeof text);
  printf("the socket's peer read %.*s\n", (int)(length < 0 ? 0 : length), text);
  shutdown(t[1], SHUT_WR);
  result("sendfile from a socket at its end", sendfile(between[1], t[0], NULL, 100));
  close(t[0]), close(t[1]), close(between[0]), close(between[1]);

  /* stdout: the console under dcpi run, a pipe under qemu-alpha. */
  fflush(stdout);
  offset = 20 * kLine;
  total = send_all(1, in, &offset, 5 * kLine, &calls);
  printf("sent %ld to stdout, offset %ld\n", total, (long)offset);

  /* /dev/zero into a pipe. */
  pipe(p);
  int zero = open("/dev/zero", O_RDONLY);
  result("sendfile /dev/zero to a pipe", sendfile(p[1], zero, NULL, 100));
  char buffer[200];
  ssize_t got = read(p[0], buffer, sizeof buffer);
  printf("read %zd, zeroes %d\n", got, got == 100 && buffer[0] == 0 && buffer[99] == 0);
  close(zero);

  /* A full O_NONBLOCK pipe, then one without a reader. */
  fcntl(p[1], F_SETFL, O_NONBLOCK);
  while (write(p[1], buffer, sizeof buffer) > 0) {
  }
  offset = 0;
  result("sendfile to a full O_NONBLOCK pipe", sendfile(p[1], in, &offset, 100));
  close(p[0]);
  signal(SIGPIPE, SIG_IGN);
  result("sendfile to a pipe without a reader", sendfile(p[1], in, &offset, 100));
  signal(SIGPIPE, SIG_DFL);
  close(p[1]);
  close(in);
}

static void on_alarm(int sig) { (void)sig; }

/* A sendfile blocked on a full pipe, and on a full socket, ended by a
   signal whose handler has no SA_RESTART: EINTR, or the bytes sent. */
static void sendfile_interrupted(void) {
  printf("== sendfile interrupted\n");
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_alarm;
  sigaction(SIGALRM, &action, NULL);
  int in = open("source.dat", O_RDONLY);
  int p[2];
  pipe2(p, O_NONBLOCK);
  char buffer[256] = {0};
  while (write(p[1], buffer, sizeof buffer) > 0) {
  }
  fcntl(p[1], F_SETFL, 0);
  struct itimerval timer = {{0, 0}, {0, 50000}};
  setitimer(ITIMER_REAL, &timer, NULL);
  off_t offset = 0;
  result("sendfile to a full pipe, a signal", sendfile(p[1], in, &offset, 100));
  printf("offset %ld\n", (long)offset);
  close(p[0]);
  close(p[1]);

  /* 1 MB to a socket nobody reads: more than its buffer on Linux too. */
  int big = open("big.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
  for (int i = 0; i < 10; ++i) write(big, source, kSize);
  int s[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, s);
  setitimer(ITIMER_REAL, &timer, NULL);
  offset = 0;
  ssize_t n = sendfile(s[0], big, &offset, 10 * kSize);
  printf("sendfile to a full socket, a signal: part sent %d, offset moved with it %d\n",
         n > 0 && n < 10 * kSize, (long)offset == (long)n);
  close(s[0]);
  close(s[1]);
  close(big);
  unlink("big.dat");
  close(in);
  signal(SIGALRM, SIG_DFL);
}

static void sendfile_errors(void) {
  printf("== sendfile errors\n");
  int in = open("source.dat", O_RDONLY);
  int out = open("errors.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  off_t offset = 0;
  result("bad output fd", sendfile(99, in, &offset, 10));
  result("bad input fd", sendfile(out, 99, &offset, 10));
  result("bad offset pointer", sendfile(out, in, (off_t *)8, 10));
  int p[2];
  pipe(p);
  write(p[1], "abc", 3);
  result("a pipe as input", sendfile(out, p[0], NULL, 10));
  result("a pipe as input, an offset", sendfile(out, p[0], &offset, 10));
  result("a pipe's read end as output", sendfile(p[0], in, &offset, 10));
  result("a pipe's write end as input", sendfile(out, p[1], NULL, 10));
  int s[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, s);
  write(s[1], "abc", 3);
  result("a socket as input", sendfile(out, s[0], NULL, 10));
  int append = open("append.dat", O_WRONLY | O_CREAT | O_APPEND, 0644);
  result("O_APPEND output", sendfile(append, in, &offset, 10));
  int readonly = open("errors.dat", O_RDONLY);
  result("read-only output", sendfile(readonly, in, &offset, 10));
  int writeonly = open("source.dat", O_WRONLY);
  result("write-only input", sendfile(out, writeonly, NULL, 10));
  int null = open("/dev/null", O_RDONLY);
  result("/dev/null as input", sendfile(out, null, NULL, 10));
  int directory = open(".", O_RDONLY | O_DIRECTORY);
  result("a directory as input", sendfile(out, directory, NULL, 10));
  result("a directory as output", sendfile(directory, in, &offset, 10));
  int counter = eventfd(0, 0);
  result("an eventfd as output", sendfile(counter, in, &offset, 10));
  offset = -1;
  result("a negative offset", sendfile(out, in, &offset, 10));
  offset = 0;
  result("a negative count", sendfile(out, in, &offset, (size_t)-1));
  printf("offset %ld\n", (long)offset);
  close(counter), close(directory), close(null), close(writeonly), close(readonly);
  close(append), close(s[0]), close(s[1]), close(p[0]), close(p[1]), close(out), close(in);
}

static void copy_file_ranges(void) {
  printf("== copy_file_range\n");
  int in = open("source.dat", O_RDONLY);
  int out = open("range1.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  long total = 0;
  ssize_t n;
  while ((n = copy_file_range(in, NULL, out, NULL, 30000, 0)) > 0) total += n;
  result("last copy_file_range", n);
  printf("copied %ld, positions %ld %ld\n", total, position(in), position(out));
  close(out);
  describe("range1", "range1.dat");

  out = open("range2.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
  loff_t from = 5000, to = 100;
  lseek(in, 7, SEEK_SET);
  result("with offsets", copy_file_range(in, &from, out, &to, 20000, 0));
  printf("offsets %ld %ld, positions %ld %ld\n", (long)from, (long)to, position(in), position(out));
  from = kSize - 10, to = 0;
  result("near the end", copy_file_range(in, &from, out, &to, 1000, 0));
  from = kSize + 10;
  result("past the end", copy_file_range(in, &from, out, &to, 1000, 0));
  printf("offsets %ld %ld\n", (long)from, (long)to);
  from = 0;
  result("only the input's offset", copy_file_range(in, &from, out, NULL, 50, 0));
  printf("offset %ld, output position %ld\n", (long)from, position(out));
  describe("range2", "range2.dat");

  /* Within one file: apart, and overlapping. */
  from = 0, to = 30000;
  result("one file, apart", copy_file_range(out, &from, out, &to, 1000, 0));
  from = 0, to = 500;
  result("one file, overlapping", copy_file_range(out, &from, out, &to, 1000, 0));
  from = 1000, to = 500;
  result("one file, overlapping before", copy_file_range(out, &from, out, &to, 1000, 0));
  close(out);
  describe("range2", "range2.dat");

  printf("== copy_file_range errors\n");
  out = open("range3.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  result("flags 1", copy_file_range(in, NULL, out, NULL, 10, 1));
  result("bad input fd", copy_file_range(99, NULL, out, NULL, 10, 0));
  result("bad output fd", copy_file_range(in, NULL, 99, NULL, 10, 0));
  result("bad offset pointer", copy_file_range(in, (loff_t *)8, out, NULL, 10, 0));
  int p[2];
  pipe(p);
  result("a pipe as input", copy_file_range(p[0], NULL, out, NULL, 10, 0));
  result("a pipe as output", copy_file_range(in, NULL, p[1], NULL, 10, 0));
  int directory = open(".", O_RDONLY | O_DIRECTORY);
  result("a directory as input", copy_file_range(directory, NULL, out, NULL, 10, 0));
  int null = open("/dev/null", O_WRONLY);
  result("/dev/null as output", copy_file_range(in, NULL, null, NULL, 10, 0));
  int append = open("append.dat", O_WRONLY | O_APPEND);
  result("O_APPEND output", copy_file_range(in, NULL, append, NULL, 10, 0));
  int readonly = open("range3.dat", O_RDONLY);
  result("read-only output", copy_file_range(in, NULL, readonly, NULL, 10, 0));
  int writeonly = open("source.dat", O_WRONLY);
  result("write-only input", copy_file_range(writeonly, NULL, out, NULL, 10, 0));
  int meminfo = open("/proc/meminfo", O_RDONLY);
  result("/proc/meminfo as input", copy_file_range(meminfo, NULL, out, NULL, 10, 0));
  from = -1;
  result("a negative offset", copy_file_range(in, &from, out, NULL, 1000, 0));
  from = 0;
  result("a huge count", copy_file_range(in, &from, out, NULL, (size_t)1 << 62, 0));
  close(meminfo), close(writeonly), close(readonly), close(append), close(null);
  close(directory), close(p[0]), close(p[1]), close(out), close(in);
}

static void splices(void) {
  printf("== splice and tee\n");
  int r[2], q[2];
  pipe(r);
  pipe(q);
  int file = open("spliced.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
  write(r[1], "hello world", 11);
  loff_t offset = 5;
  result("pipe to a file at 5", splice(r[0], NULL, file, &offset, 100, 0));
  printf("offset %ld, position %ld\n", (long)offset, position(file));
  offset = 0;
  result("the file to a pipe from 0", splice(file, &offset, r[1], NULL, 100, 0));
  printf("offset %ld\n", (long)offset);
  char buffer[64];
  ssize_t n = read(r[0], buffer, sizeof buffer);
  printf("read %zd:", n);
  for (ssize_t i = 0; i < n; ++i) printf(buffer[i] ? " %c" : " \\0", buffer[i]);
  printf("\n");
  write(r[1], "0123456789", 10);
  result("tee 4", tee(r[0], q[1], 4, 0));
  result("pipe to pipe 6", splice(r[0], NULL, q[1], NULL, 6, 0));
  n = read(q[0], buffer, sizeof buffer);
  printf("second pipe: %.*s\n", (int)n, buffer);
  result("the rest to /dev/null", splice(r[0], NULL, open("/dev/null", O_WRONLY), NULL, 100, 0));
  write(r[1], "to stdout\n", 10);
  fflush(stdout);
  result("pipe to stdout", splice(r[0], NULL, 1, NULL, 100, 0));
  lseek(file, 6, SEEK_SET);
  result("the file from its position", splice(file, NULL, r[1], NULL, 3, 0));
  printf("position %ld\n", position(file));
  n = read(r[0], buffer, sizeof buffer);
  printf("read %.*s\n", (int)n, buffer);
  lseek(file, 0, SEEK_END);
  write(r[1], "END", 3);
  result("pipe to the file's position", splice(r[0], NULL, file, NULL, 3, 0));
  printf("position %ld\n", position(file));

  /* The 100 KB file through a pipe both ways. */
  int in = open("source.dat", O_RDONLY);
  int p[2];
  pipe(p);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    close(p[0]);
    loff_t from = 0;
    while (from < kSize)
      if (splice(in, &from, p[1], NULL, kSize, 0) <= 0) _exit(1);
    _exit(0);
  }
  close(p[1]);
  int out = open("spliced2.dat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  long total = 0;
  while ((n = splice(p[0], NULL, out, NULL, kSize, 0)) > 0) total += n;
  result("last splice", n);
  reap(child);
  printf("spliced %ld through a pipe, position %ld\n", total, position(out));
  close(out);
  close(p[0]);
  describe("spliced2", "spliced2.dat");

  printf("== splice and tee errors\n");
  int empty[2];
  pipe2(empty, O_NONBLOCK);
  result("length 0, bad fds", splice(98, NULL, 99, NULL, 0, 0));
  result("bad flags", splice(r[0], NULL, file, NULL, 5, 0x100));
  result("bad fd", splice(99, NULL, file, NULL, 5, 0));
  result("an offset for a pipe", splice(r[0], &offset, file, NULL, 5, 0));
  result("a pipe to itself", splice(r[0], NULL, r[1], NULL, 5, 0));
  result("a file to a file", splice(in, NULL, file, NULL, 5, 0));
  result("a pipe's write end to read", splice(r[1], NULL, file, NULL, 5, 0));
  result("an empty O_NONBLOCK pipe", splice(empty[0], NULL, file, NULL, 5, 0));
  result("SPLICE_F_NONBLOCK", splice(r[0], NULL, file, NULL, 5, SPLICE_F_NONBLOCK));
  int append = open("append.dat", O_WRONLY | O_APPEND);
  write(r[1], "x", 1);
  result("O_APPEND output", splice(r[0], NULL, append, NULL, 5, 0));
  offset = -1;
  result("a negative offset", splice(r[0], NULL, file, &offset, 5, 0));
  result("a bad offset pointer", splice(r[0], NULL, file, (loff_t *)8, 5, 0));
  result("tee of a file", tee(in, q[1], 5, 0));
  result("tee to itself", tee(r[0], r[1], 5, 0));
  result("tee from a write end", tee(r[1], q[1], 5, 0));
  result("tee of an empty O_NONBLOCK pipe", tee(empty[0], q[1], 5, 0));
  close(empty[1]);
  result("tee at the end of file", tee(empty[0], q[1], 5, 0));
  result("splice at the end of file", splice(empty[0], NULL, file, NULL, 5, 0));
  close(append), close(empty[0]), close(in), close(file);
  close(r[0]), close(r[1]), close(q[0]), close(q[1]);
}

int main(void) {
  make_source();
  sendfile_files();
  sendfile_pipes();
  sendfile_interrupted();
  sendfile_errors();
  copy_file_ranges();
  splices();
  const char *made[] = {"source.dat", "copy1.dat",  "copy2.dat",   "copy3.dat",
                        "zeros.dat",  "errors.dat", "append.dat",  "range1.dat",
                        "range2.dat", "range3.dat", "spliced.dat", "spliced2.dat"};
  for (size_t i = 0; i < sizeof made / sizeof *made; ++i) unlink(made[i]);
  printf("done\n");
  return 0;
}
