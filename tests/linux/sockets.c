/* socketpair (AF_UNIX, SOCK_STREAM) as processes use it to talk: both
 * directions, send/recv with MSG_DONTWAIT and MSG_WAITALL, sendmsg/recvmsg
 * over several iovecs, shutdown(SHUT_WR) giving the peer end of file, a
 * parent and a forked child exchanging lines, poll, EPIPE with
 * MSG_NOSIGNAL after the peer closed, and what this kernel refuses
 * (datagram pairs: EOPNOTSUPP; a lone socket works now: stream_sockets.c) shown as
 * "done or refused". Output equals qemu-alpha's. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err(long rc) { return rc >= 0 ? "ok" : strerror(errno); }

static void both_ways(void) {
  int sv[2];
  printf("socketpair: %s\n", err(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)));
  char buf[64] = {0};
  printf("send: %ld\n", (long)send(sv[0], "ping", 4, 0));
  printf("recv: %ld ", (long)recv(sv[1], buf, sizeof buf, 0));
  printf("%s\n", buf);
  printf("write back: %ld\n", (long)write(sv[1], "pong!", 5));
  memset(buf, 0, sizeof buf);
  printf("read: %ld %s\n", (long)read(sv[0], buf, sizeof buf), buf);
  printf("recv empty, MSG_DONTWAIT: %s\n", err(recv(sv[0], buf, 4, MSG_DONTWAIT)));
  struct stat st;
  fstat(sv[0], &st);
  printf("fstat: socket %d\n", S_ISSOCK(st.st_mode));
  struct iovec out[3] = {{"ab", 2}, {"cde", 3}, {"f", 1}};
  struct msghdr m = {.msg_iov = out, .msg_iovlen = 3};
  printf("sendmsg: %ld\n", (long)sendmsg(sv[0], &m, 0));
  char x[2], y[10] = {0};
  struct iovec in[2] = {{x, 2}, {y, sizeof y - 1}};
  struct msghdr r = {.msg_iov = in, .msg_iovlen = 2};
  long got = recvmsg(sv[1], &r, 0);
  printf("recvmsg: %ld %.2s|%s flags %d\n", got, x, y, r.msg_flags);
  struct pollfd p[2] = {{sv[0], POLLIN | POLLOUT, 0}, {sv[1], POLLIN, 0}};
  send(sv[0], "z", 1, 0);
  printf("poll: %d [%d %d] [%d]\n", poll(p, 2, 0), !!(p[0].revents & POLLIN),
         !!(p[0].revents & POLLOUT), !!(p[1].revents & POLLIN));
  recv(sv[1], buf, 1, 0);
  printf("shutdown SHUT_WR: %s\n", err(shutdown(sv[0], SHUT_WR)));
  printf("peer reads end of file: %ld\n", (long)recv(sv[1], buf, sizeof buf, 0));
  printf("send after SHUT_WR: %s\n", err(send(sv[0], "x", 1, MSG_NOSIGNAL)));
  printf("the other way still: %ld\n", (long)send(sv[1], "ok", 2, 0));
  close(sv[1]);
  printf("peer closed, send: %s\n", err(send(sv[0], "x", 1, MSG_NOSIGNAL)));
  printf("shutdown a pipe: %s\n", err(shutdown(0 * pipe(sv) + sv[0], SHUT_RD)));
  close(sv[0]);
  close(sv[1]);
}

static void with_a_child(void) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  pid_t child = fork();
  if (child == 0) {
    close(sv[0]);
    char line[32];
    for (int i = 0; i < 3; i++) {
      long n = recv(sv[1], line, 5, MSG_WAITALL);
      line[n > 0 ? n : 0] = 0;
      for (char *c = line; *c; c++) *c = (char)(*c - 'a' + 'A');
      send(sv[1], line, (size_t)n, 0);
    }
    _exit(0);
  }
  close(sv[1]);
  const char *words[] = {"alpha", "sable", "cores"};
  for (int i = 0; i < 3; i++) {
    char back[8] = {0};
    send(sv[0], words[i], 5, 0);
    recv(sv[0], back, 5, MSG_WAITALL);
    printf("child: %s -> %s\n", words[i], back);
  }
  int status;
  waitpid(child, &status, 0);
  char tail[4];
  printf("after the child: %ld, exit %d\n", (long)recv(sv[0], tail, 4, 0), WEXITSTATUS(status));
  close(sv[0]);
}

static void refused_or_done(const char *what, long r, int refusal) {
  printf("%s: %s\n", what, r >= 0 || errno == refusal ? "done or refused" : strerror(errno));
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  both_ways();
  with_a_child();
  int sv[2];
  refused_or_done("datagram pair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), EOPNOTSUPP);
  refused_or_done("a socket", socket(AF_UNIX, SOCK_STREAM, 0), EAFNOSUPPORT);
  long inet = socketpair(AF_INET, SOCK_STREAM, 0, sv); /* Linux: no inet pairs; here no inet */
  printf("an inet pair: %s\n",
         inet < 0 && (errno == EOPNOTSUPP || errno == EAFNOSUPPORT) ? "refused" : err(inet));
  printf("recv on a file: %s\n", err(recv(1, sv, 4, 0)));
  printf("sockets: done\n");
  return 0;
}
