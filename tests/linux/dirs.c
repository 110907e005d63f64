/* Directories under glibc (issue 29), over the kernel's RAM file system:
   renaming a directory with what is in it (also over an empty directory),
   fchdir back to a directory opened earlier, sysinfo (what sysconf's page
   counts read), and the failing paths: a directory into itself (EINVAL),
   over a full directory (ENOTEMPTY), a file over a directory (EISDIR), a
   directory over a file (ENOTDIR), into a missing directory (ENOENT), fchdir
   to a file (ENOTDIR) or a closed descriptor (EBADF), sysinfo into a bad
   pointer (EFAULT); the *at() calls relative to a directory descriptor;
   paths with ".", ".." and extra slashes, realpath, faccessat; hard links.
   Paths are relative, so that the output under qemu-alpha,
   run in an empty directory, is byte for byte the same.

   dirs            the tour
   dirs --initrd   renames a directory of the initrd: EXDEV, as overlayfs
                   answers for a lower layer's directory; one made in RAM
                   where the initrd's was removed leaves no trace when
                   renamed away (the guest only) */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
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
         : errno == EINVAL    ? "EINVAL"
         : errno == EXDEV     ? "EXDEV"
                              : strerror(errno);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL) {
    printf("create %s: %s\n", path, err(-1));
    return;
  }
  fputs(text, f);
  fclose(f);
}

static void show(const char *path) {
  char buffer[128];
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    printf("%s: %s\n", path, err(-1));
    return;
  }
  size_t n = fread(buffer, 1, sizeof buffer - 1, f);
  buffer[n] = 0;
  fclose(f);
  printf("%s: [%s]\n", path, strtok(buffer, "\n"));
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

static void rename_directories(void) {
  mkdir("a", 0755);
  mkdir("a/b", 0755);
  write_file("a/top.txt", "top\n");
  write_file("a/b/deep.txt", "deep\n");
  printf("rename a c: %s\n", err(rename("a", "c")));
  list("c");
  list("c/b");
  show("c/b/deep.txt");
  show("a/top.txt");
  mkdir("empty", 0755);
  printf("rename c over an empty directory: %s\n", err(rename("c", "empty")));
  list("empty");
  list("c");
  printf("renameat back: %s\n", err(renameat(AT_FDCWD, "empty", AT_FDCWD, "c")));
  show("c/top.txt");
  /* The failing paths. */
  printf("rename c into itself: %s\n", err(rename("c", "c/b/inside")));
  mkdir("full", 0755);
  write_file("full/x", "x\n");
  printf("rename c over a full directory: %s\n", err(rename("c", "full")));
  printf("rename a file over a directory: %s\n", err(rename("full/x", "c")));
  printf("rename a directory over a file: %s\n", err(rename("c", "full/x")));
  printf("rename into a missing directory: %s\n", err(rename("c", "nowhere/c")));
  printf("rename a missing directory: %s\n", err(rename("gone", "c2")));
}

static void change_directories(void) {
  const int top = open(".", O_RDONLY | O_DIRECTORY);
  printf("chdir c/b: %s\n", err(chdir("c/b")));
  show("deep.txt");
  const int deep = open(".", O_RDONLY | O_DIRECTORY);
  printf("fchdir back: %s\n", err(fchdir(top)));
  show("c/top.txt");
  printf("fchdir deep: %s\n", err(fchdir(deep)));
  show("deep.txt");
  printf("chdir ../..: %s\n", err(chdir("../..")));
  show("c/b/deep.txt");
  const int file = open("c/top.txt", O_RDONLY);
  printf("fchdir to a file: %s\n", err(fchdir(file)));
  close(deep);
  printf("fchdir to a closed descriptor: %s\n", err(fchdir(deep)));
  printf("fchdir -1: %s\n", err(fchdir(-1)));
  close(file);
  close(top);
}

static void system_information(void) {
  struct sysinfo info;
  const int rc = sysinfo(&info);
  printf("sysinfo: %s, ram %s, free <= total %s, unit %s, procs %s\n", err(rc),
         info.totalram > 0 ? "yes" : "no", info.freeram <= info.totalram ? "yes" : "no",
         info.mem_unit > 0 ? "yes" : "no", info.procs > 0 ? "yes" : "no");
  printf("sysconf pages: %s\n",
         sysconf(_SC_PHYS_PAGES) > 0 && sysconf(_SC_AVPHYS_PAGES) > 0 ? "yes" : "no");
  printf("sysinfo into a bad pointer: %s\n", err(syscall(SYS_sysinfo, (void *)8)));
}

/* The *at() calls relative to a directory descriptor, as libstdc++'s
   filesystem::remove_all walks a tree: openat, fstatat, mkdirat, unlinkat. */
static void directory_descriptors(void) {
  mkdir("t", 0755);
  int dir = open("t", O_RDONLY | O_DIRECTORY);
  int f = openat(dir, "inside.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  printf("openat a directory's descriptor: %s\n", f >= 0 ? "ok" : strerror(errno));
  write(f, "abc", 3);
  struct stat st;
  printf("fstatat: %s, size %ld\n", err(fstatat(dir, "inside.txt", &st, 0)), (long)st.st_size);
  printf("mkdirat: %s, then fstatat through it: %s\n", err(mkdirat(dir, "sub", 0755)),
         err(fstatat(dir, "sub/../inside.txt", &st, 0)));
  printf("openat a file's descriptor: %s\n", err(openat(f, "x", O_RDONLY)));
  printf("openat a closed descriptor: %s\n", err(openat(99, "x", O_RDONLY)));
  printf("unlinkat: %s, rmdir by unlinkat: %s\n", err(unlinkat(dir, "inside.txt", 0)),
         err(unlinkat(dir, "sub", AT_REMOVEDIR)));
  close(f);
  close(dir);
  list("t");
  printf("rmdir t: %s\n", err(rmdir("t")));
}

/* Paths with ".", "..", doubled and trailing slashes, absolute (from
   getcwd) and relative, as realpath and libstdc++'s filesystem::canonical
   write them; access checks through faccessat and faccessat2 (glibc's for
   AT_EACCESS). */
static void dotted_paths(void) {
  char cwd[512], path[700];
  if (!getcwd(cwd, sizeof cwd)) return;
  const char *root = strcmp(cwd, "/") == 0 ? "" : cwd;
  mkdir("p", 0755);
  mkdir("p/q", 0755);
  write_file("p/f.txt", "dots");
  struct stat st;
  const char *forms[] = {"%s/p/q/../f.txt", "%s/./p//f.txt", "%s/p/q/", "%s/p/q/..",
                         "%s//p/./q/../../p/f.txt"};
  for (unsigned i = 0; i < sizeof forms / sizeof *forms; i++) {
    snprintf(path, sizeof path, forms[i], root);
    printf("stat %s: %s\n", forms[i] + 2, err(stat(path, &st)));
  }
  printf("stat relative p/q/../f.txt: %s\n", err(stat("p/q/../f.txt", &st)));
  printf("open ./p/../p/f.txt: %s\n",
         open("./p/../p/f.txt", O_RDONLY) >= 0 ? "ok" : strerror(errno));
  snprintf(path, sizeof path, "%s/p/q/../f.txt", root);
  char *real = realpath(path, NULL);
  const char *tail = real && strlen(real) >= 8 ? real + strlen(real) - 8 : "";
  printf("realpath: %s\n",
         real ? (strcmp(tail, "/p/f.txt") == 0 ? "ends /p/f.txt" : real) : strerror(errno));
  free(real);
  printf("realpath of a missing file: %s\n", realpath("p/none/../f.txt", NULL) ? "found" : "none");
  printf("access p/q/../f.txt: %s\n", err(access("p/q/../f.txt", R_OK)));
  int dir = open("p", O_RDONLY | O_DIRECTORY);
  printf("faccessat dir f.txt: %s\n", err(faccessat(dir, "f.txt", R_OK, 0)));
  printf("faccessat dir none: %s\n", err(faccessat(dir, "none", R_OK, 0)));
  printf("faccessat AT_EACCESS: %s\n", err(faccessat(AT_FDCWD, "p/f.txt", W_OK, AT_EACCESS)));
  close(dir);
  unlink("p/f.txt");
  rmdir("p/q");
  printf("rmdir p/: %s\n", err(rmdir("p/")));
}

/* Hard links: two names of one file (inode, link count, data), the first
   name removed, a rename between names of one file, the refusals. */
static void hard_links(void) {
  write_file("h1", "linked");
  struct stat a, b;
  printf("link h1 h2: %s\n", err(link("h1", "h2")));
  stat("h1", &a);
  stat("h2", &b);
  printf("same inode: %s, links %ld\n", a.st_ino == b.st_ino ? "yes" : "no", (long)a.st_nlink);
  int fd = open("h2", O_WRONLY | O_APPEND);
  write(fd, "+2", 2);
  close(fd);
  show("h1");
  printf("unlink h1: %s\n", err(unlink("h1")));
  stat("h2", &b);
  printf("h2 links %ld\n", (long)b.st_nlink);
  show("h2");
  write_file("h7", "other");
  printf("link onto a name: %s\n", err(link("h2", "h7")));
  unlink("h7");
  printf("link a missing file: %s\n", err(link("none", "h5")));
  mkdir("hd", 0755);
  printf("link a directory: %s\n", err(link("hd", "h6")));
  rmdir("hd");
  printf("link into a missing directory: %s\n", err(link("h2", "nodir/h")));
  link("h2", "h3");
  printf("rename h2 over h3 (one file): %s\n", err(rename("h2", "h3")));
  printf("h2 and h3 still there: %s %s\n", err(stat("h2", &a)), err(stat("h3", &b)));
  printf("rename h3 h4: %s\n", err(rename("h3", "h4")));
  fd = open("h4", O_RDONLY);
  unlink("h2");
  unlink("h4");
  char text[16] = {0};
  printf("read after every name went: %ld %s\n", (long)read(fd, text, sizeof text - 1), text);
  close(fd);
}

static void clean_up(void) {
  unlink("c/b/deep.txt");
  rmdir("c/b");
  unlink("c/top.txt");
  rmdir("c");
  unlink("full/x");
  rmdir("full");
  list("c");
  list("full");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--initrd") == 0) {
    printf("rename lib: %s\n", err(rename("lib", "lib2")));
    printf("rename a directory over lib: %s\n", err((mkdir("d", 0755), rename("d", "lib"))));
    list("lib2");
    /* The initrd's empty data/ removed, made again in RAM, renamed away: the
       old name stays gone. */
    printf("rmdir data: %s\n", err(rmdir("data")));
    printf("mkdir data: %s\n", err(mkdir("data", 0755)));
    printf("rename data data2: %s\n", err(rename("data", "data2")));
    struct stat st;
    printf("stat data: %s\n", err(stat("data", &st)));
    list("data2");
    return 0;
  }
  rename_directories();
  change_directories();
  system_information();
  directory_descriptors();
  dotted_paths();
  hard_links();
  clean_up();
  printf("dirs: done\n");
  return 0;
}
