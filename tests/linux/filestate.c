/* A file's state under glibc (issue 29: what sqlite3 and xz do around their
   files): POSIX record locks between a parent and its child (a conflict,
   F_GETLK naming the holder, a lock split by an unlock in its middle, locks
   released by any close of the file, F_SETLKW waiting for the holder),
   pwrite, fsync/fdatasync, posix_fadvise, fchmod and futimens seen by stat,
   fchown to root; and the failing paths: a bad l_whence or l_type (EINVAL),
   a write lock on a read-only descriptor (EBADF), a lock structure at a bad
   pointer (EFAULT), fsync of a pipe (EINVAL), a bad fadvise advice (EINVAL),
   a bad nanosecond count (EINVAL), a closed descriptor (EBADF); flock's
   whole-file locks, per open file description (a second open conflicts, a
   dup and a fork child share the lock, the last close drops it, a blocked
   LOCK_EX waits for the holder's LOCK_UN). Paths are
   relative, so that the output under qemu-alpha, run in an empty directory,
   is byte for byte the same.

   filestate   the tour */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err(long rc) {
  if (rc >= 0) return "ok";
  return errno == EAGAIN   ? "EAGAIN"
         : errno == EACCES ? "EAGAIN" /* POSIX allows either for a conflict */
         : errno == EINVAL ? "EINVAL"
         : errno == EBADF  ? "EBADF"
         : errno == EFAULT ? "EFAULT"
         : errno == EPERM  ? "EPERM"
                           : strerror(errno);
}

static int lock(int fd, int command, short type, off_t start, off_t length) {
  struct flock l = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = length};
  return fcntl(fd, command, &l);
}

/* What F_GETLK says about [start, start + length) from this process. */
static void probe(const char *who, int fd, off_t start, off_t length, pid_t holder) {
  struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = length};
  if (fcntl(fd, F_GETLK, &l) != 0) {
    printf("%s: F_GETLK %s\n", who, err(-1));
    return;
  }
  if (l.l_type == F_UNLCK)
    printf("%s: [%ld, +%ld) free\n", who, (long)start, (long)length);
  else
    printf("%s: [%ld, +%ld) %s lock [%ld, +%ld) by %s\n", who, (long)start, (long)length,
           l.l_type == F_WRLCK ? "write" : "read", (long)l.l_start, (long)l.l_len,
           l.l_pid == holder ? "its holder" : "someone else");
}

/* The child's view, at each step the parent signals over a pipe. */
static void child_checks(int go, int done, pid_t parent) {
  char step;
  int fd = open("locked.db", O_RDWR);
  while (read(go, &step, 1) == 1) {
    if (step == 'a') {
      printf("child: write lock on [0, 100): %s\n", err(lock(fd, F_SETLK, F_WRLCK, 0, 100)));
      printf("child: read lock on [200, 300): %s\n", err(lock(fd, F_SETLK, F_RDLCK, 200, 100)));
      probe("child", fd, 0, 10, parent);
      probe("child", fd, 50, 10, parent);
    } else if (step == 'b') {
      probe("child", fd, 40, 10, parent);
      probe("child", fd, 30, 5, parent);
      probe("child", fd, 70, 5, parent);
    } else if (step == 'c') {
      probe("child", fd, 0, 0, parent);
      printf("child: write lock on everything: %s\n", err(lock(fd, F_SETLK, F_WRLCK, 0, 0)));
    } else if (step == 'd') {
      const int waited = lock(fd, F_SETLKW, F_WRLCK, 0, 10);
      const int waited_errno = errno;
      /* The parent's line first, as on one CPU: on several the child could
         print between the parent's unlock and its printf. */
      read(go, &step, 1);
      errno = waited_errno;
      printf("child: F_SETLKW on [0, 10) (the parent unlocks in 20 ms): %s\n", err(waited));
    }
    fflush(stdout);
    write(done, &step, 1);
  }
  _exit(0);
}

static void step(int go, int done, char which) {
  fflush(stdout);
  write(go, &which, 1);
  read(done, &which, 1);
}

static void locks(void) {
  int fd = open("locked.db", O_RDWR | O_CREAT | O_TRUNC, 0644);
  write(fd, "0123456789", 10);
  int to_child[2], from_child[2];
  pipe(to_child);
  pipe(from_child);
  fflush(stdout);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    close(to_child[1]);
    close(from_child[0]);
    child_checks(to_child[0], from_child[1], parent);
  }
  close(to_child[0]);
  close(from_child[1]);
  printf("parent: write lock on [0, 100): %s\n", err(lock(fd, F_SETLK, F_WRLCK, 0, 100)));
  printf("parent: read lock on [200, 300): %s\n", err(lock(fd, F_SETLK, F_RDLCK, 200, 100)));
  step(to_child[1], from_child[0], 'a');
  printf("parent: unlock [30, 60): %s\n", err(lock(fd, F_SETLK, F_UNLCK, 30, 30)));
  step(to_child[1], from_child[0], 'b');
  /* POSIX: closing any descriptor of the file drops the process's locks. */
  close(open("locked.db", O_RDONLY));
  printf("parent: closed another descriptor of the file\n");
  step(to_child[1], from_child[0], 'c');
  /* The child now holds everything: the parent waits, then takes it back. */
  probe("parent", fd, 0, 10, child);
  printf("parent: write lock while the child holds it: %s\n",
         err(lock(fd, F_SETLK, F_WRLCK, 0, 10)));
  close(to_child[1]);
  waitpid(child, NULL, 0);
  printf("parent: after the child exited, write lock: %s\n",
         err(lock(fd, F_SETLK, F_WRLCK, 0, 10)));
  /* The failing paths. */
  struct flock bad = {.l_type = F_WRLCK, .l_whence = 7};
  printf("l_whence 7: %s\n", err(fcntl(fd, F_SETLK, &bad)));
  printf("l_type 99: %s\n", err(lock(fd, F_SETLK, 99, 0, 1)));
  int readonly = open("locked.db", O_RDONLY);
  printf("write lock on a read-only descriptor: %s\n", err(lock(readonly, F_SETLK, F_WRLCK, 0, 1)));
  printf("lock at a bad pointer: %s\n", err(syscall(SYS_fcntl, fd, F_SETLK, (void *)8)));
  close(readonly);
  close(fd);
  unlink("locked.db");
}

/* F_SETLKW: the child blocks until the parent's unlock. */
static void waiting_lock(void) {
  int fd = open("locked.db", O_RDWR | O_CREAT | O_TRUNC, 0644);
  lock(fd, F_SETLK, F_WRLCK, 0, 10);
  int to_child[2], from_child[2];
  pipe(to_child);
  pipe(from_child);
  fflush(stdout);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    close(to_child[1]);
    close(from_child[0]);
    child_checks(to_child[0], from_child[1], parent);
  }
  close(to_child[0]);
  close(from_child[1]);
  char which = 'd';
  write(to_child[1], &which, 1);
  usleep(20000);
  printf("parent: unlock: %s\n", err(lock(fd, F_SETLK, F_UNLCK, 0, 10)));
  fflush(stdout);
  write(to_child[1], &which, 1); /* now the child's line */
  read(from_child[0], &which, 1);
  close(to_child[1]);
  waitpid(child, NULL, 0);
  close(fd);
  unlink("locked.db");
}

static void whole_file_locks(void) {
  int a = open("flock.txt", O_CREAT | O_RDWR | O_TRUNC, 0600);
  int b = open("flock.txt", O_RDWR); /* a second description in this process */
  printf("flock a EX: %s\n", err(flock(a, LOCK_EX)));
  printf("flock b EX|NB: %s\n", err(flock(b, LOCK_EX | LOCK_NB)));
  printf("flock b SH|NB: %s\n", err(flock(b, LOCK_SH | LOCK_NB)));
  int c = dup(a);
  printf("flock dup of a EX|NB: %s\n", err(flock(c, LOCK_EX | LOCK_NB)));
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    printf("child, a inherited, EX|NB: %s\n", err(flock(a, LOCK_EX | LOCK_NB)));
    fflush(stdout);
    _exit(0);
  }
  waitpid(child, NULL, 0);
  printf("flock a SH (a conversion): %s\n", err(flock(a, LOCK_SH)));
  printf("flock b SH|NB: %s\n", err(flock(b, LOCK_SH | LOCK_NB)));
  printf("flock a EX|NB against b's SH: %s\n", err(flock(a, LOCK_EX | LOCK_NB)));
  close(b);
  printf("after b's close, flock a EX|NB: %s\n", err(flock(a, LOCK_EX | LOCK_NB)));
  fflush(stdout);
  child = fork();
  if (child == 0) { /* its own description: waits for the parent's LOCK_UN */
    int own = open("flock.txt", O_RDWR);
    int rc = flock(own, LOCK_EX);
    printf("child: blocking EX, after the parent's unlock: %s\n", err(rc));
    fflush(stdout);
    _exit(0);
  }
  usleep(20000);
  printf("parent: LOCK_UN: %s\n", err(flock(a, LOCK_UN)));
  fflush(stdout);
  waitpid(child, NULL, 0);
  printf("flock with a bad operation: %s, on a closed descriptor: %s\n", err(flock(a, 3)),
         err(flock(99, LOCK_EX)));
  close(a);
  close(c);
  unlink("flock.txt");
}

static void state(void) {
  int fd = open("state.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
  write(fd, "hello world\n", 12);
  printf("pwrite at 6: %ld\n", (long)pwrite(fd, "WORLD", 5, 6));
  char buffer[16] = {0};
  printf("pread: %ld [%.11s] offset still %ld\n", (long)pread(fd, buffer, 12, 0), buffer,
         (long)lseek(fd, 0, SEEK_CUR));
  printf("fsync: %s, fdatasync: %s\n", err(fsync(fd)), err(fdatasync(fd)));
  printf("posix_fadvise sequential: %d\n", posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL));
  printf("posix_fadvise advice 99: %s\n", posix_fadvise(fd, 0, 0, 99) == EINVAL ? "EINVAL" : "?");
  printf("fchmod 0600: %s\n", err(fchmod(fd, 0600)));
  printf("fchown to root: %s\n", err(fchown(fd, 0, 0)));
  const struct timespec times[2] = {{1000, 5}, {123456789, 42}};
  printf("futimens: %s\n", err(futimens(fd, times)));
  struct stat st;
  fstat(fd, &st);
  printf("stat: mode 0%o size %ld atime %ld.%ld mtime %ld.%ld\n", st.st_mode, (long)st.st_size,
         (long)st.st_atim.tv_sec, st.st_atim.tv_nsec, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  const struct timespec omit[2] = {{0, UTIME_OMIT}, {7, 0}};
  utimensat(AT_FDCWD, "state.txt", omit, 0);
  stat("state.txt", &st);
  printf("utimensat (atime omitted): atime %ld mtime %ld\n", (long)st.st_atim.tv_sec,
         (long)st.st_mtim.tv_sec);
  const struct timespec bad[2] = {{0, 2000000000}, {0, 0}};
  printf("futimens with 2e9 ns: %s\n", err(futimens(fd, bad)));
  int pipe_ends[2];
  pipe(pipe_ends);
  printf("fsync of a pipe: %s\n", err(fsync(pipe_ends[0])));
  close(pipe_ends[0]);
  close(pipe_ends[1]);
  close(fd);
  printf("fsync of a closed descriptor: %s\n", err(fsync(fd)));
  printf("fchmod of a closed descriptor: %s\n", err(fchmod(fd, 0600)));
  unlink("state.txt");
}

int main(void) {
  locks();
  waiting_lock();
  whole_file_locks();
  state();
  printf("filestate: done\n");
  return 0;
}
