/* What a program finds of its system besides the calls it makes: the
 * environment it was started with (dcpi run: a root login's and --env's;
 * the test gives qemu-alpha the same), the user database (getpwnam,
 * getgrgid: glibc tries nscd's socket first), file system facts (statfs),
 * resource limits it lowers and raises again, and the calls this kernel
 * refuses the way a Linux without them would: links (EPERM, as on vfat)
 * and datagram sockets (ESOCKTNOSUPPORT); its arguments as given, blanks, quotes,
 * '#', '&' and empty ones included. Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

extern char **environ;

static void environment(void) {
  for (char **e = environ; *e; e++) printf("env %s\n", *e);
  printf("getenv HOME=%s PATH=%s\n", getenv("HOME"), getenv("PATH"));
  printf("setenv %d, then %s\n", setenv("DCPI_SET", "1", 1), getenv("DCPI_SET"));
}

static void users(void) {
  const struct passwd *root = getpwnam("root");
  printf("getpwnam root: %s uid %d gid %d\n", root ? root->pw_name : "none",
         root ? (int)root->pw_uid : -1, root ? (int)root->pw_gid : -1);
  const struct passwd *zero = getpwuid(0);
  printf("getpwuid 0: %s\n", zero ? zero->pw_name : "none");
  const struct group *group = getgrgid(0);
  printf("getgrgid 0: %s\n", group ? group->gr_name : "none");
}

static void file_systems(void) {
  struct statfs fs;
  int r = statfs("/", &fs);
  printf("statfs /: %d, blocks %s, name length %ld\n", r, fs.f_bsize > 0 ? "sized" : "none",
         (long)fs.f_namelen);
  printf("statfs /missing: %s\n", statfs("/missing", &fs) ? strerror(errno) : "found");
  int pipe_ends[2];
  if (pipe(pipe_ends) == 0) {
    r = fstatfs(pipe_ends[0], &fs);
    printf("fstatfs pipe: %d type %#lx\n", r, (unsigned long)fs.f_type);
    close(pipe_ends[0]);
    close(pipe_ends[1]);
  }
  struct statfs64 wide;
  printf("statfs64 /: %d\n", statfs64("/", &wide));
  printf("fstatfs 99: %s\n", fstatfs(99, &fs) ? strerror(errno) : "ok");
}

static void limits(void) {
  struct rlimit files, lowered = {16, 0}, back;
  getrlimit(RLIMIT_NOFILE, &files);
  lowered.rlim_max = files.rlim_max;
  printf("setrlimit NOFILE 16: %d\n", setrlimit(RLIMIT_NOFILE, &lowered));
  getrlimit(RLIMIT_NOFILE, &back);
  printf("getrlimit NOFILE: %lu\n", (unsigned long)back.rlim_cur);
  printf("setrlimit NOFILE back: %d\n", setrlimit(RLIMIT_NOFILE, &files));
  getrlimit(RLIMIT_NOFILE, &back);
  printf("getrlimit NOFILE restored: %d\n", back.rlim_cur == files.rlim_cur);
  struct rlimit bad = {2, 1};
  printf("setrlimit soft > hard: %s\n", setrlimit(RLIMIT_CORE, &bad) ? strerror(errno) : "ok");
  struct rlimit core = {0, 0};
  printf("setrlimit CORE 0: %d\n", setrlimit(RLIMIT_CORE, &core));
  getrlimit(RLIMIT_CORE, &back);
  printf("getrlimit CORE: %lu %lu\n", (unsigned long)back.rlim_cur, (unsigned long)back.rlim_max);
}

/* Done, or refused the one way a Linux without the feature refuses. */
static void refused_or_done(const char *what, int r, int refusal) {
  printf("%s: %s\n", what, r >= 0 || errno == refusal ? "done or refused" : strerror(errno));
}

static void refusals(void) {
  int fd = open("/tmp/login-a", O_CREAT | O_WRONLY, 0644);
  close(fd);
  printf("link missing: %s\n", link("/tmp/login-none", "/tmp/login-b") ? strerror(errno) : "ok");
  printf("link onto a file: %s\n", link("/tmp/login-a", "/tmp/login-a") ? strerror(errno) : "ok");
  refused_or_done("link", link("/tmp/login-a", "/tmp/login-b"), EPERM);
  refused_or_done("symlink", symlink("/tmp/login-a", "/tmp/login-c"), EPERM);
  unlink("/tmp/login-a");
  unlink("/tmp/login-b");
  unlink("/tmp/login-c");
  int pair[2];
  refused_or_done("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, pair), EAFNOSUPPORT);
  refused_or_done("socket", socket(AF_INET, SOCK_DGRAM, 0), ESOCKTNOSUPPORT);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) printf("argv[%d] [%s]\n", i, argv[i]);
  environment();
  users();
  file_systems();
  limits();
  refusals();
  return 0;
}
