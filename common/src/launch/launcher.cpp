#include "mcm/launch/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace mcm::launch {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
constexpr int kCount = sizeof kForwarded / sizeof kForwarded[0];

volatile sig_atomic_t g_child = 0;  // the pid signals go to; 0 when none

void forward(int signal, siginfo_t* info, void*) {
  if (info != nullptr && info->si_code == SI_KERNEL) return;  // the child got it too
  const pid_t child = g_child;
  if (child > 0) kill(child, signal);
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

pid_t wait_for(pid_t pid, int& status) {
  pid_t r;
  do {
    r = waitpid(pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  return r;
}

/// Copies what `fd` has to stderr and hands each complete line to `on_line`; `pending`
/// keeps a partial line. Returns false at end of file or on an error.
bool pass_on(int fd, std::string& pending, const std::function<void(std::string_view)>& on_line) {
  char buffer[4096];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  std::size_t written = 0;
  while (written < static_cast<std::size_t>(n)) {
    const ssize_t w = write(STDERR_FILENO, buffer + written, static_cast<std::size_t>(n) - written);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    written += static_cast<std::size_t>(w);
  }
  pending.append(buffer, static_cast<std::size_t>(n));
  std::size_t start = 0;
  for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
    on_line(std::string_view(pending).substr(start, end - start));
  pending.erase(0, start);
  return true;
}

/// run_and_wait(), with the child's stdout into `stdout_file` (unless empty) and its
/// stderr through `on_stderr_line` (unless null).
int run(const std::vector<std::string>& argv, const std::string& stdout_file,
        const std::function<void(std::string_view)>* on_stderr_line) {
  std::vector<char*> args = c_argv(argv);
  int out_fd = -1;
  if (!stdout_file.empty()) {
    out_fd = open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out_fd < 0)
      throw std::runtime_error("cannot open '" + stdout_file + "': " + std::strerror(errno));
  }

  int err_pipe[2] = {-1, -1};
  if (on_stderr_line != nullptr && pipe2(err_pipe, O_CLOEXEC) != 0) {
    const int error = errno;
    if (out_fd >= 0) close(out_fd);
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(error));
  }
  auto close_pipe = [&] {
    for (int& fd : err_pipe)
      if (fd >= 0) close(std::exchange(fd, -1));
  };

  // Block the forwarded signals until the child's pid is known, so none is lost.
  sigset_t forwarded, previous_mask;
  sigemptyset(&forwarded);
  for (int s : kForwarded) sigaddset(&forwarded, s);
  sigprocmask(SIG_BLOCK, &forwarded, &previous_mask);

  struct sigaction previous[kCount];
  struct sigaction handler {};
  handler.sa_sigaction = forward;
  handler.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&handler.sa_mask);
  for (int i = 0; i < kCount; ++i) {
    sigaction(kForwarded[i], nullptr, &previous[i]);
    sigaction(kForwarded[i], &handler, nullptr);
  }
  auto restore = [&] {
    for (int i = 0; i < kCount; ++i) sigaction(kForwarded[i], &previous[i], nullptr);
    sigprocmask(SIG_SETMASK, &previous_mask, nullptr);
  };

  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    restore();
    if (out_fd >= 0) close(out_fd);
    close_pipe();
    throw std::runtime_error(std::string("cannot fork: ") + std::strerror(error));
  }
  if (pid == 0) {
    restore();
    if (out_fd >= 0) {
      const int null = open("/dev/null", O_RDONLY);
      dup2(null, STDIN_FILENO);
      dup2(out_fd, STDOUT_FILENO);
    }
    if (err_pipe[1] >= 0) dup2(err_pipe[1], STDERR_FILENO);
    execv(args[0], args.data());
    std::fprintf(stderr, "mcmrun: cannot run '%s': %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  g_child = pid;
  if (out_fd >= 0) close(out_fd);
  sigprocmask(SIG_SETMASK, &previous_mask, nullptr);

  int status = 0;
  pid_t r;
  if (on_stderr_line != nullptr) {
    close(std::exchange(err_pipe[1], -1));
    fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
    std::string pending;
    bool open = true;
    for (;;) {
      // Until the child exits; its descendants may hold the pipe open after it.
      r = waitpid(pid, &status, WNOHANG);
      if (r != 0 && !(r < 0 && errno == EINTR)) break;
      pollfd ready{err_pipe[0], POLLIN, 0};
      if (open && poll(&ready, 1, 100) > 0) open = pass_on(err_pipe[0], pending, *on_stderr_line);
      if (!open) {
        r = wait_for(pid, status);
        break;
      }
    }
    while (open && pass_on(err_pipe[0], pending, *on_stderr_line)) {
      pollfd ready{err_pipe[0], POLLIN, 0};
      if (poll(&ready, 1, 0) <= 0) break;
    }
    if (!pending.empty()) (*on_stderr_line)(pending);
    close_pipe();
  } else {
    r = wait_for(pid, status);
  }
  g_child = 0;
  restore();
  if (r < 0) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int run_and_wait(const std::vector<std::string>& argv) {
  return run(argv, "", nullptr);
}

int run_and_wait(const std::vector<std::string>& argv, const std::string& stdout_file) {
  return run(argv, stdout_file, nullptr);
}

int run_and_wait(const std::vector<std::string>& argv,
                 const std::function<void(std::string_view line)>& on_stderr_line) {
  return run(argv, "", &on_stderr_line);
}

std::optional<std::string> capture_output(const std::vector<std::string>& argv) {
  std::vector<char*> args = c_argv(argv);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return std::nullopt;
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_RDWR);
    dup2(null, STDIN_FILENO);
    dup2(null, STDERR_FILENO);
    dup2(pipe_fds[1], STDOUT_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  std::string out;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  if (wait_for(pid, status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::nullopt;
  return out;
}

}  // namespace mcm::launch
