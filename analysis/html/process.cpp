#include "analysis/html/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dcpi::html {
namespace {

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

// A pipe whose ends close themselves; ends handed to the child are close-on-exec.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) throw system_error("cannot create a pipe");
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
  void close_end(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

// In the child between fork and exec: only async-signal-safe calls. An exec
// failure goes back through `report` as its errno (EOF there means success).
[[noreturn]] void exec_child(char* const* args, Pipe& in, Pipe& out, Pipe& err, int report) {
  int error = 0;
  if (dup2(in.fd[0], 0) < 0 || dup2(out.fd[1], 1) < 0 || dup2(err.fd[1], 2) < 0) error = errno;
  if (!error) {
    execvp(args[0], args);
    error = errno;
  }
  (void)!write(report, &error, sizeof error);
  _exit(127);
}

// Feeds `input` to `to_child` and drains `from_out` / `from_err` until both
// reach EOF.
void exchange(int to_child, int from_out, int from_err, const std::string& input,
              ProcessOutput& output) {
  size_t written = 0;
  if (input.empty()) close(to_child), to_child = -1;
  // Non-blocking: a blocking write of more than the pipe holds would wait for
  // the child, which may itself be waiting for us to read its output.
  if (to_child >= 0) fcntl(to_child, F_SETFL, fcntl(to_child, F_GETFL) | O_NONBLOCK);
  while (from_out >= 0 || from_err >= 0) {
    pollfd fds[3] = {{from_out, POLLIN, 0}, {from_err, POLLIN, 0}, {to_child, POLLOUT, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      throw system_error("poll");
    }
    if (to_child >= 0 && fds[2].revents) {
      const ssize_t n = write(to_child, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      const bool again = n < 0 && (errno == EAGAIN || errno == EINTR);
      if ((n < 0 && !again) || written == input.size()) close(to_child), to_child = -1;
    }
    int* sources[2] = {&from_out, &from_err};
    std::string* sinks[2] = {&output.out, &output.err};
    for (int i = 0; i < 2; ++i) {
      if (*sources[i] < 0 || !fds[i].revents) continue;
      char buffer[65536];
      const ssize_t n = read(*sources[i], buffer, sizeof buffer);
      if (n > 0)
        sinks[i]->append(buffer, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR)
        close(*sources[i]), *sources[i] = -1;
    }
  }
  if (to_child >= 0) close(to_child);
}

}  // namespace

ProcessOutput run_program(const std::vector<std::string>& argv, const std::string& input) {
  if (argv.empty()) throw std::invalid_argument("run_program: no program");
  Pipe in, out, err, report;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // A child that exits before reading all its input must not kill us: EPIPE
  // instead of SIGPIPE while it runs, the caller's disposition restored after.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  const pid_t pid = fork();
  if (pid < 0) {
    sigaction(SIGPIPE, &previous, nullptr);
    throw system_error("cannot fork to run " + argv[0]);
  }
  if (pid == 0) exec_child(args.data(), in, out, err, report.fd[1]);
  in.close_end(0), out.close_end(1), err.close_end(1), report.close_end(1);
  int exec_error = 0;
  while (read(report.fd[0], &exec_error, sizeof exec_error) < 0 && errno == EINTR) {
  }
  ProcessOutput output;
  if (exec_error == 0) {
    exchange(in.fd[1], out.fd[0], err.fd[0], input, output);
    in.fd[1] = out.fd[0] = err.fd[0] = -1;  // closed by exchange
  }
  sigaction(SIGPIPE, &previous, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_error != 0)
    throw ProgramNotFound("cannot run " + argv[0] + ": " + std::strerror(exec_error));
  output.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return output;
}

}  // namespace dcpi::html
