#include "qemu/qemu_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace dcpi::qemu {
namespace {

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

QemuProcess::QemuProcess(const std::vector<std::string>& argv, std::ostream* echo) : echo_(echo) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw system_error("cannot create the console pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int error = posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (error != 0) {
    close(pipe_fds[0]);
    errno = error;
    throw system_error("cannot start " + argv[0]);
  }
  console_fd_ = pipe_fds[0];
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

void QemuProcess::kill() {
  if (running()) ::kill(pid_, SIGKILL);
  reap(true);
}

}  // namespace dcpi::qemu
