/* Writable files under glibc (issue 29), over the kernel's RAM file system:
   create, write, append, read back, lseek, truncate, rename (over an
   existing file too), unlink (also while open), mkdir, rmdir, stat,
   directory listing (sorted here: the order of entries is the file
   system's), and the failing paths (ENOENT, EEXIST, ENOTEMPTY, EISDIR,
   EBADF, EFAULT). Paths are relative, so that the output under qemu-alpha,
   run in an empty directory, is byte for byte the same. It ends by writing
   result.txt (for dcpi run --output).

   files            the tour
   files --stdin    first reads its stdin and reports it (dcpi run ... < FILE) */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *err(long rc) {
  if (rc >= 0) return "ok";
  return errno == ENOENT      ? "ENOENT"
         : errno == EEXIST    ? "EEXIST"
         : errno == ENOTEMPTY ? "ENOTEMPTY"
         : errno == EISDIR    ? "EISDIR"
         : errno == EBADF     ? "EBADF"
         : errno == EFAULT    ? "EFAULT"
         : errno == ENOTDIR   ? "ENOTDIR"
                              : strerror(errno);
}

static void show(const char *path) {
  char buffer[256];
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    printf("%s: %s\n", path, err(-1));
    return;
  }
  size_t n = fread(buffer, 1, sizeof buffer - 1, f);
  buffer[n] = 0;
  fclose(f);
  struct stat st;
  stat(path, &st);
  printf("%s: %zu bytes [%s] size %lld regular %d\n", path, n, buffer, (long long)st.st_size,
         S_ISREG(st.st_mode));
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list(const char *path) {
  DIR *dir = opendir(path);
  if (dir == NULL) {
    printf("ls %s: %s\n", path, err(-1));
    return;
  }
  char *names[32];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL && n < 32)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
  closedir(dir);
  qsort(names, n, sizeof names[0], by_name);
  printf("ls %s:", path);
  for (int i = 0; i < n; i++) printf(" %s", names[i]), free(names[i]);
  printf("\n");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--stdin") == 0) {
    char input[256];
    size_t n = fread(input, 1, sizeof input - 1, stdin);
    input[n] = 0;
    printf("stdin: %zu bytes, first line: %.*s\n", n, (int)strcspn(input, "\n"), input);
  }
  FILE *f = fopen("out.txt", "w");
  fprintf(f, "hello, %d\n", 42);
  fclose(f);
  show("out.txt");
  f = fopen("out.txt", "a");
  fputs("appended\n", f);
  fclose(f);
  show("out.txt");

  int fd = open("out.txt", O_RDWR);
  lseek(fd, 7, SEEK_SET);
  write(fd, "XY", 2);
  printf("lseek end: %ld\n", (long)lseek(fd, 0, SEEK_END));
  ftruncate(fd, 5);
  close(fd);
  show("out.txt");

  printf("mkdir d: %s\n", err(mkdir("d", 0755)));
  printf("mkdir d again: %s\n", err(mkdir("d", 0755)));
  printf("rename out.txt d/moved.txt: %s\n", err(rename("out.txt", "d/moved.txt")));
  show("out.txt");
  show("d/moved.txt");
  f = fopen("d/other.txt", "w");
  fputs("other\n", f);
  fclose(f);
  printf("rename over an existing file: %s\n", err(rename("d/other.txt", "d/moved.txt")));
  show("d/moved.txt");
  list("d");

  /* Unlinked while open: still readable through the descriptor. */
  fd = open("d/moved.txt", O_RDONLY);
  printf("unlink d/moved.txt: %s\n", err(unlink("d/moved.txt")));
  char buffer[32] = {0};
  printf("read after unlink: %ld [%s]\n", (long)read(fd, buffer, sizeof buffer - 1), buffer);
  close(fd);
  list("d");

  f = fopen("d/keep", "w");
  fclose(f);
  printf("rmdir of a full directory: %s\n", err(rmdir("d")));
  printf("unlink d/keep: %s\n", err(unlink("d/keep")));
  printf("rmdir d: %s\n", err(rmdir("d")));

  /* Failing paths. */
  printf("open missing: %s\n", err(open("missing.txt", O_RDONLY)));
  printf("create in a missing directory: %s\n", err(open("nodir/x", O_WRONLY | O_CREAT, 0644)));
  fd = open("excl", O_WRONLY | O_CREAT | O_EXCL, 0644);
  printf("O_EXCL again: %s\n", err(open("excl", O_WRONLY | O_CREAT | O_EXCL, 0644)));
  printf("write to a read-only descriptor: %s\n", err(write(open("excl", O_RDONLY), "x", 1)));
  close(fd);
  mkdir("dir2", 0755);
  printf("open a directory for writing: %s\n", err(open("dir2", O_WRONLY)));
  printf("unlink a directory: %s\n", err(unlink("dir2")));
  printf("rename a missing file: %s\n", err(rename("missing", "x")));
  const void *volatile bad = (const void *)8;
  printf("write from a bad pointer: %s\n", err(write(open("excl", O_WRONLY), bad, 4)));
  printf("stat into a bad pointer: %s\n", err(syscall(SYS_stat64, "excl", (void *)8)));
  unlink("excl");
  rmdir("dir2");
  f = fopen("result.txt", "w");
  fputs("files: done\n", f);
  fclose(f);
  return 0;
}
