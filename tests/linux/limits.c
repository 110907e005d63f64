/* What programs assume of a Linux system beyond the calls themselves: more
 * than a handful of descriptors, hundreds of threads alive at once, the
 * memory devices (/dev/zero, /dev/urandom, mmap of /dev/zero), a host name,
 * the calls benchmark harnesses make (priorities, policies, mlock, umask).
 * Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kFiles = 48, kThreads = 200 };

static pthread_barrier_t barrier;

static void *wait_for_all(void *arg) {
  pthread_barrier_wait(&barrier);
  return arg;
}

static void many_threads(void) {
  pthread_t threads[kThreads];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_barrier_init(&barrier, NULL, kThreads + 1);
  int created = 0;
  for (; created < kThreads; created++)
    if (pthread_create(&threads[created], &attr, wait_for_all, (void *)(long)created) != 0) break;
  if (created == kThreads) pthread_barrier_wait(&barrier);
  long sum = 0;
  for (int i = 0; i < created; i++) {
    void *r;
    pthread_join(threads[i], &r);
    sum += (long)r;
  }
  printf("%d threads alive at once: %d, joined sum %ld\n", kThreads, created == kThreads, sum);
}

static void many_descriptors(void) {
  int fds[kFiles], opened = 0;
  for (; opened < kFiles; opened++) {
    char name[64];
    snprintf(name, sizeof name, "/tmp/limits-%d", opened);
    fds[opened] = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fds[opened] < 0) break;
    dprintf(fds[opened], "file %d\n", opened);
  }
  int cloexec = fcntl(fds[opened - 1], F_SETFD, FD_CLOEXEC) == 0 &&
                fcntl(fds[opened - 1], F_GETFD) == FD_CLOEXEC;
  char line[32] = "";
  lseek(fds[opened - 1], 0, SEEK_SET);
  read(fds[opened - 1], line, sizeof line - 1);
  printf("%d files open at once: %d, the last reads back %s", kFiles, opened == kFiles, line);
  printf("FD_CLOEXEC on a high descriptor: %d\n", cloexec);
  pid_t child = fork();
  if (child == 0) _exit(fcntl(fds[opened - 2], F_GETFD) == 0 ? 0 : 1);
  int status;
  waitpid(child, &status, 0);
  printf("a fork child has them too: %d\n", WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < opened; i++) {
    char name[64];
    snprintf(name, sizeof name, "/tmp/limits-%d", i);
    close(fds[i]);
    unlink(name);
  }
}

static void memory_devices(void) {
  unsigned char buffer[4096];
  memset(buffer, 0xff, sizeof buffer);
  int zero = open("/dev/zero", O_RDONLY);
  ssize_t n = read(zero, buffer, sizeof buffer);
  int all_zero = 1;
  for (size_t i = 0; i < sizeof buffer; i++) all_zero &= buffer[i] == 0;
  printf("/dev/zero: read %zd, all zero %d\n", n, all_zero);
  int *anon = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE, zero, 0);
  printf("mmap of /dev/zero: %d\n", anon != MAP_FAILED && anon[0] == 0 && (anon[100] = 5) == 5);
  close(zero);
  int random = open("/dev/urandom", O_RDONLY);
  unsigned char a[32], b[32];
  read(random, a, sizeof a);
  read(random, b, sizeof b);
  printf("/dev/urandom: two reads differ %d\n", memcmp(a, b, sizeof a) != 0);
  close(random);
  struct stat st;
  stat("/dev/zero", &st);
  printf("/dev/zero is a character device: %d; write to /dev/null: %zd\n", S_ISCHR(st.st_mode),
         write(open("/dev/null", O_WRONLY), "abc", 3));
  printf("access /dev/urandom: %d\n", access("/dev/urandom", R_OK));
}

/* What benchmark harnesses set before they measure: priorities, the
 * scheduling policy, locked memory, the file mode mask. */
static void harness_calls(void) {
  printf("setpriority 5: %d, getpriority %d, nice(1) %d\n", setpriority(PRIO_PROCESS, 0, 5),
         getpriority(PRIO_PROCESS, 0), nice(1));
  errno = 0;
  printf("getpriority of no such thread: %d %s\n", getpriority(PRIO_PROCESS, 999999),
         strerror(errno));
  struct sched_param param = {0};
  printf("sched_setscheduler SCHED_BATCH: %d, now %d; SCHED_OTHER: %d, now %d\n",
         sched_setscheduler(0, SCHED_BATCH, &param), sched_getscheduler(0),
         sched_setscheduler(0, SCHED_OTHER, &param), sched_getscheduler(0));
  printf("priority range FIFO %d..%d, OTHER %d..%d\n", sched_get_priority_min(SCHED_FIFO),
         sched_get_priority_max(SCHED_FIFO), sched_get_priority_min(SCHED_OTHER),
         sched_get_priority_max(SCHED_OTHER));
  printf("sched_getparam: %d, priority %d\n", sched_getparam(0, &param), param.sched_priority);
  char *memory = mmap(NULL, 4 * 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("mlock: %d, the pages read zero %d, munlock %d\n", mlock(memory, 4 * 8192),
         memory[3 * 8192] == 0, munlock(memory, 4 * 8192));
  unsigned char resident[8];
  printf("msync: %d, mincore %d\n", msync(memory, 4 * 8192, MS_SYNC),
         mincore(memory, 4 * 8192, resident));
  printf("mlockall: %d, munlockall %d\n", mlockall(MCL_CURRENT), munlockall());
  umask(027);
  printf("umask: %o then %o\n", umask(022), umask(022));
  int fd = open("/tmp/limits-mode", O_WRONLY | O_CREAT, 0644);
  struct stat st;
  printf("chmod 0600: %d, mode %o\n", chmod("/tmp/limits-mode", 0600),
         (stat("/tmp/limits-mode", &st), st.st_mode & 0777));
  close(fd);
  unlink("/tmp/limits-mode");
  gid_t groups[8];
  printf("getgroups: %d\n", getgroups(8, groups));
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  many_threads();
  many_descriptors();
  memory_devices();
  harness_calls();
  char host[256] = "";
  printf("gethostname: %d, a name %d\n", gethostname(host, sizeof host), host[0] != 0);
  errno = 0;
  printf("gethostname into 1 byte: %d %s\n", gethostname(host, 1), strerror(errno));
  printf("limits: done\n");
  return 0;
}
