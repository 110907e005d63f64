/* Symbolic links and FIFOs in the kernel's RAM file system, against Linux
   (qemu-alpha on the host's file system): symlink and readlink with
   relative and absolute targets, stat (follows) against lstat (does not),
   links to directories as path components and ".." after one (the link's
   target directory's parent, not the link's), dangling links (O_CREAT
   makes the target, O_CREAT|O_EXCL is EEXIST), ELOOP (a self-loop, two
   links in a ring, 41 links in a chain where 40 resolve), unlink and rename
   of a link, link(2) of a link against linkat(AT_SYMLINK_FOLLOW), chdir
   through a link, getdents64's DT_LNK and DT_FIFO, O_NOFOLLOW; FIFOs made
   by mkfifo, a forked writer and reader on each side (each open waits for
   the other), O_NONBLOCK opens (a reader at once, a writer without a
   reader ENXIO), O_RDWR, a waiting open ended by a signal (EINTR), mknod
   of a regular file and of a bad type.
   Everything happens in a fresh directory made by mkdtemp in /tmp (its
   name printed as D), removed at the end. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static char top[64]; /* the mkdtemp directory */

static const char *err(long rc) {
  if (rc >= 0) return "ok";
  switch (errno) {
    case ENOENT:
      return "ENOENT";
    case EEXIST:
      return "EEXIST";
    case ELOOP:
      return "ELOOP";
    case EINVAL:
      return "EINVAL";
    case ENOTDIR:
      return "ENOTDIR";
    case EISDIR:
      return "EISDIR";
    case ENXIO:
      return "ENXIO";
    case ESPIPE:
      return "ESPIPE";
    case EPERM:
      return "EPERM";
    case EAGAIN:
      return "EAGAIN";
    case EINTR:
      return "EINTR";
    default:
      return strerror(errno);
  }
}

/* `text` with the temporary directory's name as D. */
static const char *shown(const char *text) {
  static char out[512];
  size_t n = strlen(top);
  if (strncmp(text, top, n) == 0)
    snprintf(out, sizeof out, "D%s", text + n);
  else
    snprintf(out, sizeof out, "%s", text);
  return out;
}

static const char *type_of(mode_t mode) {
  return S_ISREG(mode)    ? "file"
         : S_ISDIR(mode)  ? "dir"
         : S_ISLNK(mode)  ? "link"
         : S_ISFIFO(mode) ? "fifo"
                          : "other";
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    printf("create %s: %s\n", path, err(-1));
    return;
  }
  if (write(fd, text, strlen(text)) < 0) printf("write %s: %s\n", path, err(-1));
  close(fd);
}

static void show_file(const char *path, int flags) {
  char buffer[64];
  int fd = open(path, O_RDONLY | flags);
  if (fd < 0) {
    printf("read %s: %s\n", path, err(-1));
    return;
  }
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  buffer[n > 0 ? n : 0] = 0;
  printf("read %s: \"%s\"\n", path, buffer);
  close(fd);
}

static void show_stat(const char *path) {
  struct stat st;
  long rc = stat(path, &st);
  if (rc < 0)
    printf("stat %s: %s\n", path, err(rc));
  else
    printf("stat %s: %s size %ld\n", path, type_of(st.st_mode),
           S_ISDIR(st.st_mode) ? 0L : (long)st.st_size);
  rc = lstat(path, &st);
  if (rc < 0)
    printf("lstat %s: %s\n", path, err(rc));
  else
    printf("lstat %s: %s size %ld\n", path, type_of(st.st_mode),
           S_ISDIR(st.st_mode) ? 0L : (long)st.st_size);
}

static void show_link(const char *path, size_t size) {
  char buffer[256];
  ssize_t n = readlink(path, buffer, size < sizeof buffer ? size : sizeof buffer);
  if (n < 0) {
    printf("readlink %s: %s\n", path, err(n));
    return;
  }
  buffer[n] = 0;
  printf("readlink %s (%zu): %zd \"%s\"\n", path, size, n, shown(buffer));
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's entries with their getdents64 types, sorted. */
static void list(const char *path) {
  DIR *d = opendir(path);
  if (d == NULL) {
    printf("opendir %s: %s\n", path, err(-1));
    return;
  }
  char *names[32];
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && count < 32) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    const char *type = e->d_type == DT_REG    ? "file"
                       : e->d_type == DT_DIR  ? "dir"
                       : e->d_type == DT_LNK  ? "link"
                       : e->d_type == DT_FIFO ? "fifo"
                                              : "other";
    if (asprintf(&names[count], "%s:%s", e->d_name, type) > 0) ++count;
  }
  closedir(d);
  qsort(names, count, sizeof names[0], by_name);
  printf("list %s:", path);
  for (int i = 0; i < count; ++i) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf("\n");
}

/* Removes what `path` names (a link itself, never what it leads to). */
static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) < 0) return;
  if (!S_ISDIR(st.st_mode)) {
    unlink(path);
    return;
  }
  DIR *d = opendir(path);
  struct dirent *e;
  while (d != NULL && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char child[PATH_MAX];
    snprintf(child, sizeof child, "%s/%s", path, e->d_name);
    remove_tree(child);
  }
  if (d != NULL) closedir(d);
  rmdir(path);
}

static void symbolic_links(void) {
  char path[256], target[256];
  write_file("f", "hello");
  printf("symlink rel: %s\n", err(symlink("f", "rel")));
  snprintf(target, sizeof target, "%s/f", top);
  printf("symlink abs: %s\n", err(symlink(target, "abs")));
  show_stat("rel");
  show_stat("abs");
  show_link("rel", 64);
  show_link("abs", 64);
  show_link("abs", 3); /* cut, no NUL */
  show_link("f", 64);  /* EINVAL */
  show_link("missing", 64);
  show_file("rel", 0);
  show_file("abs", 0);
  printf("symlink over a name: %s\n", err(symlink("f", "rel")));
  printf("symlink empty target: %s\n", err(symlink("", "empty")));
  printf("symlink in a missing directory: %s\n", err(symlink("f", "nodir/l")));

  /* A directory reached through links, and ".." after one. */
  mkdir("dir", 0755);
  mkdir("dir/sub", 0755);
  write_file("dir/inner", "inside");
  write_file("dir/sub/deep", "deeper");
  printf("symlink dl: %s\n", err(symlink("dir", "dl")));
  printf("symlink sl: %s\n", err(symlink("dir/sub", "sl")));
  snprintf(target, sizeof target, "%s/dir/sub", top);
  printf("symlink asl: %s\n", err(symlink(target, "asl")));
  show_stat("dl");
  show_stat("dl/");
  show_file("dl/inner", 0);
  show_file("dl/sub/deep", 0);
  show_file("sl/../inner", 0); /* dir/inner: ".." of the link's target */
  show_file("asl/../inner", 0);
  show_stat("sl/..");
  show_file("dir/../f", 0);
  printf("symlink dir/up: %s\n", err(symlink("../f", "dir/up"))); /* relative to dir */
  show_file("dir/up", 0);
  show_file("dl/up", 0);
  printf("symlink chain: %s\n", err(symlink("rel", "chain")));
  show_stat("chain");
  show_link("chain", 64);
  list("dl");

  /* Dangling links. */
  printf("symlink dangle: %s\n", err(symlink("made", "dangle")));
  show_stat("dangle");
  int fd = open("dangle", O_WRONLY | O_CREAT, 0644); /* makes "made" */
  printf("open O_CREAT through dangle: %s\n", err(fd));
  if (fd >= 0) close(fd);
  show_stat("made");
  show_stat("dangle");
  printf("symlink dangle2: %s\n", err(symlink("made2", "dangle2")));
  fd = open("dangle2", O_WRONLY | O_CREAT | O_EXCL, 0644);
  printf("open O_CREAT|O_EXCL of dangle2: %s\n", err(fd));
  if (fd >= 0) close(fd);
  show_stat("made2");
  printf("mkdir over dangle2: %s\n", err(mkdir("dangle2", 0755)));

  /* Loops. */
  printf("symlink loop: %s\n", err(symlink("loop", "loop")));
  show_stat("loop");
  show_file("loop/x", 0);
  symlink("ring2", "ring1");
  symlink("ring1", "ring2");
  show_stat("ring1");
  symlink("f", "l0");
  for (int i = 1; i <= 40; ++i) {
    char from[16], to[16];
    snprintf(from, sizeof from, "l%d", i - 1);
    snprintf(to, sizeof to, "l%d", i);
    symlink(from, to);
  }
  show_stat("l39"); /* 40 links: resolved */
  show_stat("l40"); /* 41: ELOOP */

  /* O_NOFOLLOW: only the last component. */
  show_file("rel", O_NOFOLLOW);
  show_file("f", O_NOFOLLOW);
  show_file("dl/inner", O_NOFOLLOW);
  fd = open("rel", O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
  printf("open O_CREAT|O_NOFOLLOW of rel: %s\n", err(fd));
  if (fd >= 0) close(fd);

  /* Hard links of a link, with and without following. */
  printf("link rel hard: %s\n", err(link("rel", "hard")));
  show_stat("hard");
  show_link("hard", 64);
  printf("linkat follow rel hard2: %s\n",
         err(linkat(AT_FDCWD, "rel", AT_FDCWD, "hard2", AT_SYMLINK_FOLLOW)));
  show_stat("hard2");
  struct stat st;
  if (stat("f", &st) == 0) printf("f has %lu names\n", (unsigned long)st.st_nlink);

  /* Directory descriptors. */
  int dir = open("dl", O_RDONLY | O_DIRECTORY);
  printf("open dl O_DIRECTORY: %s\n", err(dir));
  printf("fstatat up nofollow: %s", err(fstatat(dir, "up", &st, AT_SYMLINK_NOFOLLOW)));
  printf(" %s\n", type_of(st.st_mode));
  printf("fstatat up: %s", err(fstatat(dir, "up", &st, 0)));
  printf(" %s\n", type_of(st.st_mode));
  ssize_t n = readlinkat(dir, "up", target, sizeof target - 1);
  target[n > 0 ? n : 0] = 0;
  printf("readlinkat up: %zd \"%s\"\n", n, target);
  printf("symlinkat dir/back: %s\n", err(symlinkat("inner", dir, "back")));
  show_file("dir/back", 0);
  close(dir);

  /* chdir through a link: the working directory is where it leads. */
  printf("chdir sl: %s\n", err(chdir("sl")));
  if (getcwd(path, sizeof path)) printf("cwd: %s\n", shown(path));
  printf("chdir ..: %s\n", err(chdir("..")));
  if (getcwd(path, sizeof path)) printf("cwd: %s\n", shown(path));
  chdir(top);

  /* unlink and rename act on the link. */
  printf("rmdir dl: %s\n", err(rmdir("dl")));
  printf("unlink dl: %s\n", err(unlink("dl")));
  show_stat("dl");
  show_stat("dir");
  printf("unlink rel: %s\n", err(unlink("rel")));
  show_stat("rel");
  show_stat("f");
  printf("rename abs abs2: %s\n", err(rename("abs", "abs2")));
  show_stat("abs");
  show_link("abs2", 64);
  write_file("g", "gee");
  printf("rename g over chain: %s\n", err(rename("g", "chain")));
  show_stat("chain");
  printf("rename sl over f: %s\n", err(rename("sl", "f")));
  show_stat("f");
  show_file("f/deep", 0);
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) {
  (void)sig;
  ++alarms;
}

/* A child at the other end of "fifo": it opens it for `flags` (waiting for
   the parent's open), writes or reads, and exits with what it read. */
static pid_t fifo_child(int flags) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int fd = open("fifo", flags);
  if (fd < 0) _exit(100);
  if (flags == O_WRONLY) {
    const char text[] = "through the fifo";
    if (write(fd, text, sizeof text - 1) != sizeof text - 1) _exit(101);
    close(fd);
    _exit(0);
  }
  char buffer[64];
  ssize_t total = 0, got;
  while ((got = read(fd, buffer, sizeof buffer)) > 0) total += got;
  _exit((int)total);
}

static void fifos(void) {
  printf("mkfifo: %s\n", err(mkfifo("fifo", 0600)));
  printf("mkfifo again: %s\n", err(mkfifo("fifo", 0600)));
  show_stat("fifo");

  pid_t child = fifo_child(O_WRONLY); /* waits for our open */
  int fd = open("fifo", O_RDONLY);
  char buffer[64];
  ssize_t total = 0, got;
  while ((got = read(fd, buffer + total, sizeof buffer - 1 - total)) > 0) total += got;
  buffer[total] = 0;
  printf("parent read: \"%s\"\n", buffer);
  close(fd);
  int status;
  waitpid(child, &status, 0);
  printf("writer exited %d\n", WEXITSTATUS(status));

  child = fifo_child(O_RDONLY);
  fd = open("fifo", O_WRONLY); /* waits for the child's open */
  printf("parent open for writing: %s\n", err(fd));
  printf("write: %zd\n", write(fd, "0123456789", 10));
  close(fd);
  waitpid(child, &status, 0);
  printf("reader read %d\n", WEXITSTATUS(status));

  fd = open("fifo", O_WRONLY | O_NONBLOCK);
  printf("open O_WRONLY|O_NONBLOCK without a reader: %s\n", err(fd));
  int reader = open("fifo", O_RDONLY | O_NONBLOCK);
  printf("open O_RDONLY|O_NONBLOCK: %s\n", err(reader));
  printf("read without a writer: %zd\n", read(reader, buffer, sizeof buffer));
  fd = open("fifo", O_WRONLY | O_NONBLOCK);
  printf("open O_WRONLY|O_NONBLOCK with a reader: %s\n", err(fd));
  printf("write: %zd\n", write(fd, "x", 1));
  got = read(reader, buffer, sizeof buffer);
  printf("read: %zd\n", got);
  got = read(reader, buffer, sizeof buffer);
  printf("read again: %s\n", err(got));
  struct stat st;
  fstat(fd, &st);
  printf("fstat: %s\n", type_of(st.st_mode));
  printf("lseek: %s\n", err(lseek(fd, 0, SEEK_SET)));
  close(fd);
  close(reader);

  fd = open("fifo", O_RDWR);
  printf("open O_RDWR: %s\n", err(fd));
  printf("write: %zd\n", write(fd, "ab", 2));
  got = read(fd, buffer, sizeof buffer);
  buffer[got > 0 ? got : 0] = 0;
  printf("read: %zd \"%s\"\n", got, buffer);
  close(fd);

  printf("mknod S_IFREG: %s\n", err(mknod("plain", S_IFREG | 0644, 0)));
  show_stat("plain");
  printf("mknod S_IFIFO: %s\n", err(mknod("fifo2", S_IFIFO | 0600, 0)));
  printf("mknod bad type: %s\n", err(mknod("bad", 0170000 | 0600, 0)));
  printf("mknod over a name: %s\n", err(mknod("plain", S_IFIFO | 0600, 0)));
  printf("symlink to fifo: %s\n", err(symlink("fifo", "fl")));
  show_stat("fl");
  mkdir("types", 0755);
  write_file("types/file", "");
  mkdir("types/dir", 0755);
  symlink("file", "types/link");
  mkfifo("types/fifo", 0600);
  list("types");
  /* A reader's open waiting for a writer, ended by a signal whose handler
     has no SA_RESTART: EINTR, and the FIFO has no reader left after it. */
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_alarm;
  sigaction(SIGALRM, &action, NULL);
  struct itimerval in_50ms = {{0, 0}, {0, 50000}};
  setitimer(ITIMER_REAL, &in_50ms, NULL);
  fd = open("fifo", O_RDONLY);
  printf("open interrupted: %s, alarms %d\n", err(fd), alarms);
  fd = open("fifo", O_WRONLY | O_NONBLOCK);
  printf("open O_WRONLY|O_NONBLOCK after it: %s\n", err(fd));
  if (fd >= 0) close(fd);
  printf("unlink fifo: %s\n", err(unlink("fifo")));
  show_stat("fifo");
}

int main(void) {
  snprintf(top, sizeof top, "/tmp/links-test-XXXXXX");
  if (mkdtemp(top) == NULL || chdir(top) != 0) {
    printf("mkdtemp: %s\n", err(-1));
    return 1;
  }
  symbolic_links();
  fifos();
  chdir("/");
  remove_tree(top);
  struct stat st;
  printf("removed: %s\n", lstat(top, &st) < 0 ? "yes" : "no");
  return 0;
}
