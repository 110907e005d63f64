/* What programs read of /proc and /sys about themselves and the machine
 * (kernel/procfs.h): /proc/self/maps (its stack line holds a local, main's
 * code is read-only, a large malloc read-write; pthread_getattr_np of the
 * main thread finds its stack there), /proc/self/status, /proc/meminfo,
 * /proc/cpuinfo, /sys/devices/system/cpu/online, the links /proc/self/fd/N,
 * /dev/stdout and /proc/self/exe. Prints facts that hold
 * under qemu-alpha too (its output is the oracle); with --guest, what only
 * this kernel's files say (Alpha's "cpus detected" against the CPUs
 * online; a re-exec through /proc/self/exe, which qemu-alpha cannot). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *yes(int fact) { return fact ? "yes" : "no"; }

/* The perms of the maps line whose range holds `address`, or "" if none. */
static const char *perms_at(const void *address, int *is_stack) {
  static char perms[8];
  char line[512];
  perms[0] = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  while (f && fgets(line, sizeof line, f)) {
    unsigned long start, end;
    char p[8];
    if (sscanf(line, "%lx-%lx %7s", &start, &end, p) != 3) continue;
    if ((uintptr_t)address < start || (uintptr_t)address >= end) continue;
    strcpy(perms, p);
    *is_stack = strstr(line, "[stack]") != NULL;
  }
  if (f) fclose(f);
  return perms;
}

/* The first line of `path` starting with `key`, its number after ':'. */
static long field(const char *path, const char *key) {
  char line[256];
  long value = -1;
  FILE *f = fopen(path, "r");
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, key, strlen(key)) == 0 && strchr(line, ':')) {
      value = strtol(strchr(line, ':') + 1, NULL, 10);
      break;
    }
  if (f) fclose(f);
  return value;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--reexec") == 0) return 42; /* the --guest re-exec */
  int local = 0, is_stack = 0;
  const char *p = perms_at(&local, &is_stack);
  printf("maps: a local is in [stack], read-write: %s\n",
         yes(is_stack && strncmp(p, "rw", 2) == 0));
  p = perms_at((const void *)main, &is_stack);
  printf("maps: main's code read-only: %s\n", yes(p[0] == 'r' && p[1] == '-'));
  char *big = malloc(1 << 20);
  big[0] = 1;
  p = perms_at(big, &is_stack);
  printf("maps: a 1 MB malloc read-write: %s\n", yes(strncmp(p, "rw", 2) == 0));
  pthread_attr_t attr;
  void *base = NULL;
  size_t size = 0;
  int r = pthread_getattr_np(pthread_self(), &attr);
  if (r == 0) pthread_attr_getstack(&attr, &base, &size);
  printf("pthread_getattr_np: %d, the stack holds a local: %s\n", r,
         yes((char *)&local >= (char *)base && (char *)&local < (char *)base + size));
  printf("status: Pid %s\n", yes(field("/proc/self/status", "Pid") == getpid()));
  printf("meminfo: MemTotal above 1 MB: %s\n", yes(field("/proc/meminfo", "MemTotal") > 1024));
  printf("cpuinfo readable: %s\n",
         yes(field("/proc/cpuinfo", "cpu") != -2 && fopen("/proc/cpuinfo", "r")));
  char online[32] = {0};
  FILE *f = fopen("/sys/devices/system/cpu/online", "r");
  if (f && fgets(online, sizeof online, f)) fclose(f);
  printf("cpu online list starts at 0: %s\n", yes(online[0] == '0'));
  int ends[2];
  char name[64], target[256] = "";
  if (pipe(ends) != 0) return 1;
  snprintf(name, sizeof name, "/proc/self/fd/%d", ends[0]);
  ssize_t n = readlink(name, target, sizeof target - 1);
  target[n > 0 ? n : 0] = 0;
  printf("fd link of a pipe: %s\n", yes(strncmp(target, "pipe:[", 6) == 0));
  const int file = open("/tmp/procfs-link.txt", O_CREAT | O_RDWR | O_TRUNC, 0600);
  snprintf(name, sizeof name, "/proc/self/fd/%d", file);
  n = readlink(name, target, sizeof target - 1);
  target[n > 0 ? n : 0] = 0;
  printf("fd link of a file: %s\n", target);
  snprintf(name, sizeof name, "/dev/fd/%d", file);
  const int again = open(name, O_RDONLY);
  printf("opened again through /dev/fd: %s\n", yes(again >= 0 && again != file));
  unlink("/tmp/procfs-link.txt");
  n = readlink("/dev/stdout", target, sizeof target - 1);
  target[n > 0 ? n : 0] = 0;
  printf("/dev/stdout links to %s\n", target);
  char magic[4] = "";
  const int exe = open("/proc/self/exe", O_RDONLY);
  printf("/proc/self/exe is an ELF file: %s\n",
         yes(exe >= 0 && read(exe, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0));
  if (argc > 1 && strcmp(argv[1], "--guest") == 0) {
    const pid_t child = fork();
    if (child == 0) {
      execl("/proc/self/exe", argv[0], "--reexec", (char *)0);
      _exit(99);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("guest: re-exec through /proc/self/exe: exit %d\n", WEXITSTATUS(status));
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("guest: cpus detected = online = %ld: %s\n", cpus,
           yes(field("/proc/cpuinfo", "cpus detected") == cpus));
    char want[16];
    snprintf(want, sizeof want, cpus == 1 ? "0\n" : "0-%ld\n", cpus - 1);
    printf("guest: /sys online is %s\n", yes(strcmp(online, want) == 0));
    printf("guest: status Threads %ld\n", field("/proc/self/status", "Threads"));
  }
  return 0;
}
