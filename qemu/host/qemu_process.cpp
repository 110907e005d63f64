#include "qemu/host/qemu_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace dcpi::qemu {
namespace {

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

// In the child between fork and exec: only async-signal-safe calls. QEMU
// dies with dcpi, even by SIGKILL (PR_SET_PDEATHSIG); if dcpi is already
// gone (the parent changed), QEMU must not start at all. An exec failure is
// reported as its errno through `report` (close-on-exec: EOF means success).
[[noreturn]] void exec_child(char* const* args, pid_t parent, int console, int report) {
  int error = 0;
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) error = ESRCH;
  const int null = error ? -1 : open("/dev/null", O_RDONLY);
  if (!error && (null < 0 || dup2(null, 0) < 0 || dup2(console, 1) < 0 || dup2(console, 2) < 0))
    error = errno;
  if (!error) {
    execvp(args[0], args);
    error = errno;
  }
  (void)!write(report, &error, sizeof error);
  _exit(127);
}

}  // namespace

QemuProcess::QemuProcess(const std::vector<std::string>& argv, std::ostream* echo) : echo_(echo) {
  int console[2], report[2];
  if (pipe2(console, O_CLOEXEC) != 0) throw system_error("cannot create the console pipe");
  if (pipe2(report, O_CLOEXEC) != 0) {
    close(console[0]);
    close(console[1]);
    throw system_error("cannot create a pipe");
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) exec_child(args.data(), parent, console[1], report[1]);
  const int fork_error = errno;
  close(console[1]);
  close(report[1]);
  int exec_error = 0;
  if (pid_ > 0) {
    while (read(report[0], &exec_error, sizeof exec_error) < 0 && errno == EINTR) {
    }
  }
  close(report[0]);
  if (pid_ < 0 || exec_error != 0) {
    close(console[0]);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
    errno = pid_ < 0 ? fork_error : exec_error;
    pid_ = -1;
    throw system_error("cannot start " + argv[0]);
  }
  console_fd_ = console[0];
}

QemuProcess::~QemuProcess() {
  kill();
  if (console_fd_ >= 0) close(console_fd_);
}

void QemuProcess::pump(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (console_fd_ >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{console_fd_, POLLIN, 0};
    const int ready = poll(&p, 1, left > 0 ? static_cast<int>(left) : 0);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return;
    char buffer[4096];
    const ssize_t n = read(console_fd_, buffer, sizeof buffer);
    if (n <= 0) {  // QEMU closed its output: it is exiting
      close(console_fd_);
      console_fd_ = -1;
      return;
    }
    console_.append(buffer, static_cast<size_t>(n));
    if (echo_) echo_->write(buffer, n).flush();
  }
}

bool QemuProcess::wait_for(std::string_view marker, double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  size_t searched = 0;
  for (;;) {
    const size_t start = searched >= marker.size() ? searched - marker.size() : 0;
    if (console_.find(marker, start) != std::string::npos) return true;
    searched = console_.size();
    const double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left <= 0 || console_fd_ < 0) return false;
    pump(left < 0.1 ? left : 0.1);
  }
}

void QemuProcess::reap(bool block) {
  if (pid_ < 0 || wait_status_) return;
  int status = 0;
  const pid_t done = waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (done == pid_) wait_status_ = status;
}

bool QemuProcess::running() {
  reap(false);
  return pid_ >= 0 && !wait_status_;
}

bool QemuProcess::wait_exit(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (running()) {
    if (Clock::now() >= deadline) return false;
    if (console_fd_ >= 0)
      pump(0.05);
    else
      usleep(10'000);  // output closed, exit imminent
  }
  pump(0);
  return true;
}

std::string QemuProcess::exit_description() {
  reap(false);
  if (!wait_status_) return "";
  const int status = *wait_status_;
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "killed by signal " + std::to_string(WTERMSIG(status));
}

void QemuProcess::terminate(double seconds) {
  if (running()) ::kill(pid_, SIGTERM);
  wait_exit(seconds);
  kill();
}

void QemuProcess::kill() {
  if (running()) ::kill(pid_, SIGKILL);
  reap(true);
}

}  // namespace dcpi::qemu
