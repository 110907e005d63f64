/* Stream sockets with names: an AF_UNIX server and a forked client over a
 * path in /tmp (a socket node: stat, EADDRINUSE until unlinked, ENOENT
 * after), an abstract name, an AF_INET loopback server on an ephemeral port
 * (read back with getsockname) answering a client thread over several
 * sequential connections, a thread pool accepting on one listener, a
 * backlog of 0 (one connection, then EAGAIN), epoll and select on a listener,
 * non-blocking accept (EAGAIN), accept4's flags, poll on a listener, a
 * non-blocking connect (EINPROGRESS, then POLLOUT and SO_ERROR 0; refused:
 * POLLERR and SO_ERROR ECONNREFUSED),
 * ECONNREFUSED, EADDRINUSE, shutdown and end of file, getpeername,
 * socket options, the errors of sockets in the wrong state and of names
 * refused, accept interrupted by a handled signal (EINTR). Nothing
 * printed depends on a port number, a pid or a path, so the output equals
 * qemu-alpha's (which uses the host's loopback). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err(long rc) { return rc >= 0 ? "ok" : strerror(errno); }

static socklen_t unix_name(struct sockaddr_un *a, const char *path) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX;
  strcpy(a->sun_path, path);
  return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

static struct sockaddr_in loopback(unsigned short port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

static unsigned short port_of(int fd) {
  struct sockaddr_in a;
  socklen_t length = sizeof a;
  getsockname(fd, (struct sockaddr *)&a, &length);
  return ntohs(a.sin_port);
}

/* Reads until end of file or `size - 1` bytes; the count. */
static long read_all(int fd, char *buf, size_t size) {
  size_t done = 0;
  for (;;) {
    ssize_t n = read(fd, buf + done, size - 1 - done);
    if (n <= 0) break;
    done += (size_t)n;
  }
  buf[done] = 0;
  return (long)done;
}

/* The forked client: its verdict is its exit status. */
static int unix_client(const char *path) {
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a;
  socklen_t length = unix_name(&a, path);
  if (connect(c, (struct sockaddr *)&a, length) != 0) return 1;
  struct sockaddr_un peer;
  socklen_t peer_length = sizeof peer;
  if (getpeername(c, (struct sockaddr *)&peer, &peer_length) != 0 || peer_length != length ||
      strcmp(peer.sun_path, path) != 0)
    return 2;
  if (write(c, "hello from the child", 20) != 20) return 3;
  shutdown(c, SHUT_WR);
  char buf[64];
  read_all(c, buf, sizeof buf);
  if (strcmp(buf, "hello, child") != 0) return 4;
  close(c);
  return 0;
}

static void unix_server(void) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/stream_sockets.%d", (int)getpid());
  unlink(path);
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  printf("unix listen before bind: %s\n", err(listen(s, 4)));
  struct sockaddr_un a;
  socklen_t length = unix_name(&a, path);
  printf("unix bind: %s\n", err(bind(s, (struct sockaddr *)&a, length)));
  struct stat st;
  printf("its name is a socket: %d\n", stat(path, &st) == 0 && S_ISSOCK(st.st_mode));
  printf("open of the name: %s\n", err(open(path, O_RDONLY)));
  int again = socket(AF_UNIX, SOCK_STREAM, 0);
  printf("bind the same path again: %s\n", err(bind(again, (struct sockaddr *)&a, length)));
  printf("connect before listen: %s\n", err(connect(again, (struct sockaddr *)&a, length)));
  close(again);
  printf("listen: %s\n", err(listen(s, 4)));
  struct sockaddr_un got;
  socklen_t got_length = sizeof got;
  getsockname(s, (struct sockaddr *)&got, &got_length);
  printf("getsockname: AF_UNIX %d, the path %d\n", got.sun_family == AF_UNIX,
         got_length == length && strcmp(got.sun_path, path) == 0);
  printf("read on a listener: %s\n", err(read(s, &got, 1)));
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) _exit(unix_client(path));
  struct sockaddr_un peer;
  socklen_t peer_length = sizeof peer;
  int conn = accept(s, (struct sockaddr *)&peer, &peer_length);
  printf("accept: %s, the client unnamed %d\n", err(conn),
         peer_length == offsetof(struct sockaddr_un, sun_path) && peer.sun_family == AF_UNIX);
  got_length = sizeof got;
  getsockname(conn, (struct sockaddr *)&got, &got_length);
  printf("accepted socket's name is the listener's: %d\n", strcmp(got.sun_path, path) == 0);
  char buf[64];
  printf("read until the client's shutdown: %ld\n", read_all(conn, buf, sizeof buf));
  printf("got: %s\n", buf);
  printf("write back: %ld\n", (long)write(conn, "hello, child", 12));
  close(conn);
  int status;
  waitpid(child, &status, 0);
  printf("child: exit %d\n", WEXITSTATUS(status));
  close(s);
  int late = socket(AF_UNIX, SOCK_STREAM, 0);
  printf("connect after the listener closed: %s\n",
         err(connect(late, (struct sockaddr *)&a, length)));
  printf("unlink: %s\n", err(unlink(path)));
  printf("connect after unlink: %s\n", err(connect(late, (struct sockaddr *)&a, length)));
  printf("bind after unlink: %s\n", err(bind(late, (struct sockaddr *)&a, length)));
  close(late);
  unlink(path);
  int file = open(path, O_CREAT | O_WRONLY, 0600);
  close(file);
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  printf("connect to a regular file: %s\n", err(connect(c, (struct sockaddr *)&a, length)));
  close(c);
  unlink(path);
}

static void abstract_name(void) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "stream_sockets.%d", (int)getpid());
  socklen_t length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  printf("abstract bind: %s\n", err(bind(s, (struct sockaddr *)&a, length)));
  int again = socket(AF_UNIX, SOCK_STREAM, 0);
  printf("abstract bind again: %s\n", err(bind(again, (struct sockaddr *)&a, length)));
  close(again);
  listen(s, 1);
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  printf("abstract connect: %s\n", err(connect(c, (struct sockaddr *)&a, length)));
  int conn = accept(s, NULL, NULL);
  send(c, "abc", 3, 0);
  char buf[8] = {0};
  printf("abstract recv: %ld %s\n", (long)recv(conn, buf, sizeof buf - 1, 0), buf);
  struct sockaddr_un got;
  socklen_t got_length = sizeof got;
  getpeername(c, (struct sockaddr *)&got, &got_length);
  printf("abstract peer name: %d\n", got_length == length && got.sun_path[0] == 0 &&
                                         memcmp(got.sun_path, a.sun_path, length - 2) == 0);
  close(c), close(conn), close(s);
}

/* The loopback client thread: three connections in turn, each sending a
 * word and reading the server's answer to end of file. */
static unsigned short server_port;
static char answers[3][32];
static int peer_ok;

static void *inet_client(void *unused) {
  (void)unused;
  static const char *words[3] = {"one", "two", "three"};
  for (int i = 0; i < 3; ++i) {
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(server_port);
    if (connect(c, (struct sockaddr *)&a, sizeof a) != 0) {
      snprintf(answers[i], sizeof answers[i], "connect: %s", strerror(errno));
      continue;
    }
    struct sockaddr_in peer;
    socklen_t length = sizeof peer;
    getpeername(c, (struct sockaddr *)&peer, &length);
    peer_ok += length == sizeof peer && ntohs(peer.sin_port) == server_port &&
               peer.sin_addr.s_addr == htonl(INADDR_LOOPBACK);
    write(c, words[i], strlen(words[i]));
    shutdown(c, SHUT_WR);
    read_all(c, answers[i], sizeof answers[i]);
    close(c);
  }
  return NULL;
}

static void inet_server(void) {
  int s = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
  int one = 1, value = 0;
  socklen_t size = sizeof value;
  printf("SO_REUSEADDR: %s\n", err(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one)));
  getsockopt(s, SOL_SOCKET, SO_REUSEADDR, &value, &size);
  printf("SO_REUSEADDR reads %d\n", value != 0);
  size = sizeof value;
  getsockopt(s, SOL_SOCKET, SO_TYPE, &value, &size);
  printf("SO_TYPE: stream %d, size %d\n", value == SOCK_STREAM, (int)size);
  struct sockaddr_in a = loopback(0);
  printf("inet bind to port 0: %s\n", err(bind(s, (struct sockaddr *)&a, sizeof a)));
  server_port = port_of(s);
  printf("an ephemeral port: %d\n", server_port >= 1024);
  printf("inet listen: %s\n", err(listen(s, 8)));
  size = sizeof value;
  getsockopt(s, SOL_SOCKET, SO_ACCEPTCONN, &value, &size);
  printf("SO_ACCEPTCONN: %d\n", value);
  int taken = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(taken, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  a = loopback(server_port);
  printf("bind a listening port: %s\n", err(bind(taken, (struct sockaddr *)&a, sizeof a)));
  close(taken);
  pthread_t client;
  pthread_create(&client, NULL, inet_client, NULL);
  for (int i = 0; i < 3; ++i) {
    struct sockaddr_in peer;
    socklen_t length = sizeof peer;
    int conn = accept(s, (struct sockaddr *)&peer, &length);
    printf("accept %d: %s, peer AF_INET %d, 127.0.0.1 %d, another port %d\n", i, err(conn),
           length == sizeof peer && peer.sin_family == AF_INET,
           peer.sin_addr.s_addr == htonl(INADDR_LOOPBACK), ntohs(peer.sin_port) != server_port);
    int nodelay = 1;
    setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
    char word[16];
    long n = read_all(conn, word, sizeof word);
    printf("  read %ld to end of file: %s\n", n, word);
    char answer[32];
    int length_out = snprintf(answer, sizeof answer, "%s back", word);
    write(conn, answer, (size_t)length_out);
    close(conn);
  }
  pthread_join(client, NULL);
  for (int i = 0; i < 3; ++i) printf("client got: %s\n", answers[i]);
  printf("client's getpeername right: %d of 3\n", peer_ok);
  close(s);
}

/* A thread pool: three threads accept on one listener, each answers one. */
static int pool_listener;
static void *pool_worker(void *unused) {
  (void)unused;
  int conn = accept(pool_listener, NULL, NULL);
  if (conn < 0) return NULL;
  char buf[16];
  ssize_t n = read(conn, buf, sizeof buf);
  if (n > 0) write(conn, buf, (size_t)n);
  close(conn);
  return NULL;
}

static void thread_pool(void) {
  pool_listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = loopback(0);
  bind(pool_listener, (struct sockaddr *)&a, sizeof a);
  listen(pool_listener, 16);
  a = loopback(port_of(pool_listener));
  pthread_t workers[3];
  for (int i = 0; i < 3; ++i) pthread_create(&workers[i], NULL, pool_worker, NULL);
  int answered = 0;
  for (int i = 0; i < 3; ++i) {
    int c = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(c, (struct sockaddr *)&a, sizeof a) != 0) continue;
    char buf[16] = {0};
    write(c, "echo", 4);
    answered += read(c, buf, sizeof buf) == 4 && strcmp(buf, "echo") == 0;
    close(c);
  }
  for (int i = 0; i < 3; ++i) pthread_join(workers[i], NULL);
  printf("thread pool: %d answers\n", answered);
  close(pool_listener);
}

/* A backlog of 0 takes one connection (Linux's backlog + 1); epoll and
 * select see a listener readable while one waits. */
static void backlog_and_readiness(void) {
  struct sockaddr_un a;
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "stream_sockets.b%d", (int)getpid());
  socklen_t length = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  bind(s, (struct sockaddr *)&a, length);
  listen(s, 0);
  int e = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event watch = {.events = EPOLLIN, .data.fd = s}, got;
  printf("epoll_ctl on a listener: %s\n", err(epoll_ctl(e, EPOLL_CTL_ADD, s, &watch)));
  printf("epoll_wait, nothing waiting: %d\n", epoll_wait(e, &got, 1, 0));
  int first = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int second = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  printf("backlog 0, first connect: %s\n", err(connect(first, (struct sockaddr *)&a, length)));
  printf("second connect, non-blocking: %s\n", err(connect(second, (struct sockaddr *)&a, length)));
  printf("epoll_wait: %d, EPOLLIN %d\n", epoll_wait(e, &got, 1, 1000),
         got.data.fd == s && (got.events & EPOLLIN) != 0);
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(s, &readable);
  struct timeval no_wait = {0, 0};
  printf("select: %d, readable %d\n", select(s + 1, &readable, NULL, NULL, &no_wait),
         FD_ISSET(s, &readable) != 0);
  int conn = accept(s, NULL, NULL);
  printf("after accept, second connect: %s\n", err(connect(second, (struct sockaddr *)&a, length)));
  close(conn);
  conn = accept(s, NULL, NULL);
  printf("and its accept: %s\n", err(conn));
  close(conn), close(first), close(second), close(e), close(s);
}

/* What Linux answers for sockets in the wrong state or names it refuses. */
static void names_and_states(void) {
  int u = socket(AF_UNIX, SOCK_STREAM, 0), i = socket(AF_INET, SOCK_STREAM, 0), sv[2];
  struct sockaddr_storage ss;
  socklen_t l = sizeof ss;
  printf("getsockname unbound AF_UNIX: %s, length %d\n",
         err(getsockname(u, (struct sockaddr *)&ss, &l)), (int)l);
  l = sizeof ss;
  printf("getsockname unbound AF_INET: %s, length %d\n",
         err(getsockname(i, (struct sockaddr *)&ss, &l)), (int)l);
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  l = sizeof ss;
  printf("a pair's getsockname: %s, length %d\n",
         err(getsockname(sv[0], (struct sockaddr *)&ss, &l)), (int)l);
  l = sizeof ss;
  printf("a pair's getpeername: %s, length %d\n",
         err(getpeername(sv[0], (struct sockaddr *)&ss, &l)), (int)l);
  int v = 0;
  socklen_t vl = sizeof v;
  getsockopt(u, SOL_SOCKET, SO_DOMAIN, &v, &vl);
  printf("SO_DOMAIN AF_UNIX %d", v == AF_UNIX);
  getsockopt(i, SOL_SOCKET, SO_PROTOCOL, &v, &vl);
  printf(", SO_PROTOCOL TCP %d\n", v == IPPROTO_TCP);
  v = 1;
  printf("TCP_NODELAY on AF_UNIX: %s\n",
         err(setsockopt(u, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v)));
  printf("an unknown option: %s\n", err(setsockopt(i, SOL_SOCKET, 9999, &v, sizeof v)));
  printf("a short option: %s\n", err(setsockopt(i, SOL_SOCKET, SO_REUSEADDR, &v, 2)));
  printf("send unconnected: AF_UNIX %s, ", err(send(u, "x", 1, 0)));
  printf("AF_INET %s\n", err(send(i, "x", 1, 0)));
  printf("recv unconnected AF_UNIX: %s\n", err(recv(u, &v, 1, 0)));
  printf("shutdown unconnected: AF_UNIX %s, ", err(shutdown(u, SHUT_RDWR)));
  printf("AF_INET %s\n", err(shutdown(i, SHUT_RDWR)));
  struct sockaddr_un ua;
  memset(&ua, 0, sizeof ua);
  ua.sun_family = AF_UNIX;
  printf("sendto unconnected AF_UNIX: %s\n",
         err(sendto(u, "x", 1, 0, (struct sockaddr *)&ua, sizeof ua)));
  printf("accept, not listening: %s\n", err(accept(i, NULL, NULL)));
  struct sockaddr_in a = loopback(0);
  a.sin_addr.s_addr = inet_addr("10.1.2.3");
  printf("bind 10.1.2.3: %s\n", err(bind(i, (struct sockaddr *)&a, sizeof a)));
  a = loopback(0);
  printf("bind, 8 bytes: %s\n", err(bind(i, (struct sockaddr *)&a, 8)));
  printf("bind, sockaddr_storage's size: %s\n",
         err(bind(i, (struct sockaddr *)&a, sizeof(struct sockaddr_storage))));
  printf("bind twice: %s\n", err(bind(i, (struct sockaddr *)&a, sizeof a)));
  a = loopback(port_of(i));
  int j = socket(AF_INET, SOCK_STREAM, 0), k = socket(AF_INET, SOCK_STREAM, 0);
  v = 1;
  setsockopt(i, SOL_SOCKET, SO_REUSEADDR, &v, sizeof v);
  setsockopt(j, SOL_SOCKET, SO_REUSEADDR, &v, sizeof v);
  printf("both SO_REUSEADDR, neither listening: %s\n",
         err(bind(j, (struct sockaddr *)&a, sizeof a)));
  printf("without SO_REUSEADDR: %s\n", err(bind(k, (struct sockaddr *)&a, sizeof a)));
  printf("listen the first: %s, ", err(listen(i, 5)));
  printf("the second: %s\n", err(listen(j, 5)));
  int c = socket(AF_INET, SOCK_STREAM, 0);
  printf("connect: %s\n", err(connect(c, (struct sockaddr *)&a, sizeof a)));
  printf("listen connected: %s\n", err(listen(c, 1)));
  printf("connect a listener: %s\n", err(connect(i, (struct sockaddr *)&a, sizeof a)));
  int d = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in any = a, me;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  printf("connect to 0.0.0.0: %s", err(connect(d, (struct sockaddr *)&any, sizeof any)));
  l = sizeof me;
  getsockname(d, (struct sockaddr *)&me, &l);
  printf(", from 127.0.0.1 %d\n", me.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
  printf("sendto connected AF_INET with an address: %s\n",
         err(sendto(c, "x", 1, 0, (struct sockaddr *)&a, sizeof a)));
  printf("socket(AF_UNIX, SOCK_STREAM, 6): %s\n", err(socket(AF_UNIX, SOCK_STREAM, 6)));
  printf("socket(AF_INET, SOCK_STREAM, 17): %s\n", err(socket(AF_INET, SOCK_STREAM, 17)));
  printf("socket(AF_INET, 77, 0): %s\n", err(socket(AF_INET, 77, 0)));
  close(u), close(i), close(j), close(k), close(c), close(d), close(sv[0]), close(sv[1]);
}

static void on_alarm(int signal) { (void)signal; }

static void waiting_and_errors(void) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in a = loopback(0);
  bind(s, (struct sockaddr *)&a, sizeof a);
  listen(s, 4);
  a = loopback(port_of(s));
  printf("non-blocking accept: %s\n", err(accept(s, NULL, NULL)));
  struct pollfd p = {s, POLLIN, 0};
  printf("poll, nothing waiting: %d\n", poll(&p, 1, 0));
  int c = socket(AF_INET, SOCK_STREAM, 0);
  printf("connect: %s\n", err(connect(c, (struct sockaddr *)&a, sizeof a)));
  printf("connect again: %s\n", err(connect(c, (struct sockaddr *)&a, sizeof a)));
  p.revents = 0;
  printf("poll, one waiting: %d, POLLIN %d\n", poll(&p, 1, 1000), (p.revents & POLLIN) != 0);
  int conn = accept4(s, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  printf("accept4: %s, FD_CLOEXEC %d, O_NONBLOCK %d\n", err(conn),
         (fcntl(conn, F_GETFD) & FD_CLOEXEC) != 0, (fcntl(conn, F_GETFL) & O_NONBLOCK) != 0);
  char buf[16];
  printf("recv, nothing sent: %s\n", err(recv(conn, buf, sizeof buf, 0)));
  printf("client shutdown(SHUT_WR): %s\n", err(shutdown(c, SHUT_WR)));
  printf("server reads end of file: %ld\n", (long)read(conn, buf, sizeof buf));
  printf("server still writes: %ld\n", (long)write(conn, "late", 4));
  memset(buf, 0, sizeof buf);
  printf("client reads it: %ld %s\n", (long)read(c, buf, sizeof buf - 1), buf);
  close(conn);
  printf("client reads end of file: %ld\n", (long)read(c, buf, sizeof buf));
  close(c);

  /* A non-blocking connect: EINPROGRESS, then writable, SO_ERROR 0. */
  c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  printf("non-blocking connect: %s\n", err(connect(c, (struct sockaddr *)&a, sizeof a)));
  struct pollfd w = {c, POLLOUT, 0};
  printf("poll: %d, POLLOUT %d\n", poll(&w, 1, 1000), (w.revents & POLLOUT) != 0);
  int value = -1;
  socklen_t size = sizeof value;
  getsockopt(c, SOL_SOCKET, SO_ERROR, &value, &size);
  printf("SO_ERROR: %d\n", value);
  struct pollfd l = {s, POLLIN, 0};
  poll(&l, 1, 1000);
  conn = accept(s, NULL, NULL);
  printf("accepted it: %s\n", err(conn));
  close(conn), close(c);

  /* Nobody listens on a port bound but not listening. */
  int bound = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in b = loopback(0);
  bind(bound, (struct sockaddr *)&b, sizeof b);
  b = loopback(port_of(bound));
  c = socket(AF_INET, SOCK_STREAM, 0);
  printf("connect to a port nobody listens on: %s\n",
         err(connect(c, (struct sockaddr *)&b, sizeof b)));
  close(c);
  c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct pollfd fresh = {c, POLLIN | POLLOUT, 0};
  printf("poll a fresh socket: %d, revents %#x\n", poll(&fresh, 1, 0), fresh.revents);
  printf("non-blocking connect to it: %s\n", err(connect(c, (struct sockaddr *)&b, sizeof b)));
  fresh.revents = 0;
  printf("poll: %d, revents %#x\n", poll(&fresh, 1, 1000), fresh.revents);
  size = sizeof value;
  getsockopt(c, SOL_SOCKET, SO_ERROR, &value, &size);
  printf("SO_ERROR: %s, then %d\n", strerror(value),
         getsockopt(c, SOL_SOCKET, SO_ERROR, &value, &size) == 0 ? value : -1);
  struct sockaddr_in peer;
  socklen_t length = sizeof peer;
  printf("getpeername unconnected: %s\n", err(getpeername(c, (struct sockaddr *)&peer, &length)));
  close(c);
  c = socket(AF_INET, SOCK_STREAM, 0);
  printf("bind a bound port: %s\n", err(bind(c, (struct sockaddr *)&b, sizeof b)));
  printf("read unconnected: %s\n", err(read(c, buf, 1)));
  close(c), close(bound);

  /* A blocking accept interrupted by a handled signal. */
  int flags = fcntl(s, F_GETFL);
  fcntl(s, F_SETFL, flags & ~O_NONBLOCK);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_alarm;
  sigaction(SIGALRM, &action, NULL);
  struct itimerval timer = {{0, 0}, {0, 50000}};
  setitimer(ITIMER_REAL, &timer, NULL);
  printf("accept interrupted: %s\n", err(accept(s, NULL, NULL)));
  close(s);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  unix_server();
  abstract_name();
  inet_server();
  thread_pool();
  backlog_and_readiness();
  names_and_states();
  waiting_and_errors();
  printf("stream_sockets: done\n");
  return 0;
}
