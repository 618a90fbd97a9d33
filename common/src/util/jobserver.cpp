#include "util/jobserver.hpp"

#include "util/signal_cleanup.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace kiln {

namespace {

std::optional<int> parse_fd(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool is_pipe(int fd) {
  struct stat info {};
  return fcntl(fd, F_GETFD) != -1 && fstat(fd, &info) == 0 && S_ISFIFO(info.st_mode);
}

std::string describe(const JobserverAuth& auth) {
  return auth.fifo.empty() ? "descriptors " + std::to_string(auth.read_fd) + "," + std::to_string(auth.write_fd)
                           : "fifo " + auth.fifo;
}

}  // namespace

std::optional<JobserverAuth> parse_makeflags(std::string_view makeflags) {
  std::optional<JobserverAuth> found;
  std::size_t at = 0;
  while (at < makeflags.size()) {
    const std::size_t end = std::min(makeflags.find(' ', at), makeflags.size());
    const std::string_view word = makeflags.substr(at, end - at);
    at = end + 1;
    std::string_view value;
    for (const std::string_view option : {"--jobserver-auth=", "--jobserver-fds="})
      if (word.substr(0, option.size()) == option) value = word.substr(option.size());
    if (value.empty()) continue;
    if (value.substr(0, 5) == "fifo:") {
      found = JobserverAuth{std::string(value.substr(5)), -1, -1};
      continue;
    }
    const std::size_t comma = value.find(',');
    const std::optional<int> r = parse_fd(value.substr(0, comma));
    const std::optional<int> w = comma == std::string_view::npos ? std::nullopt : parse_fd(value.substr(comma + 1));
    // Make writes -1 or -2 when it has no jobserver to give: the last word counts, so it clears.
    found = r && w && *r >= 0 && *w >= 0 ? std::optional(JobserverAuth{{}, *r, *w}) : std::nullopt;
  }
  return found;
}

Jobserver::Jobserver(int read_fd, int write_fd, bool owns_write)
    : m_read_fd(read_fd), m_write_fd(write_fd), m_owns_write(owns_write) {}

Result<std::unique_ptr<Jobserver>> Jobserver::connect(const JobserverAuth& auth) {
  if (!auth.fifo.empty()) {
    struct stat info {};
    if (stat(auth.fifo.c_str(), &info) != 0 || !S_ISFIFO(info.st_mode))
      return Error{"the jobserver's fifo " + auth.fifo + " is not there"};
    const int r = open(auth.fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    const int w = r < 0 ? -1 : open(auth.fifo.c_str(), O_WRONLY | O_CLOEXEC);
    if (r < 0 || w < 0) {
      const std::string why = std::strerror(errno);
      if (r >= 0) close(r);
      return Error{"cannot open the jobserver's fifo " + auth.fifo + ": " + why};
    }
    return std::unique_ptr<Jobserver>(new Jobserver(r, w, true));
  }
  if (!is_pipe(auth.read_fd) || !is_pipe(auth.write_fd))
    return Error{"the jobserver's " + describe(auth) + " are not open (make passes them only to rules marked '+' "
                 "or running $(MAKE))"};
  // A description of our own: O_NONBLOCK on make's would make make's reads fail.
  const std::string self = "/proc/self/fd/" + std::to_string(auth.read_fd);
  const int r = open(self.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (r < 0) return Error{"cannot open the jobserver's " + describe(auth) + ": " + std::strerror(errno)};
  return std::unique_ptr<Jobserver>(new Jobserver(r, auth.write_fd, false));
}

Result<std::unique_ptr<Jobserver>> Jobserver::from_environment() {
  const char* makeflags = std::getenv("MAKEFLAGS");
  if (!makeflags) return std::unique_ptr<Jobserver>();
  const std::optional<JobserverAuth> auth = parse_makeflags(makeflags);
  if (!auth) return std::unique_ptr<Jobserver>();
  return connect(*auth);
}

Jobserver::~Jobserver() {
  while (!m_tokens.empty()) release();
  close(m_read_fd);
  if (m_owns_write) close(m_write_fd);
}

bool Jobserver::try_acquire() {
  char token = 0;
  ssize_t n;
  while ((n = read(m_read_fd, &token, 1)) < 0 && errno == EINTR) {
  }
  if (n == 0) m_gone = true;   // every writer closed: make has gone, no token will come
  if (n != 1) return false;     // EAGAIN: none free now
  m_tokens.push_back(token);
  publish();
  return true;
}

void Jobserver::release() {
  if (m_tokens.empty()) return;
  const char token = m_tokens.back();
  while (write(m_write_fd, &token, 1) < 0 && errno == EINTR) {
  }
  m_tokens.pop_back();
  publish();
}

void Jobserver::wait(int milliseconds) const {
  struct pollfd fd {m_read_fd, POLLIN, 0};
  poll(&fd, m_gone ? 0 : 1, milliseconds);   // a pipe without writers is always "ready"; just sleep
}

void Jobserver::publish() const { cleanup::hold_tokens(m_write_fd, m_tokens.data(), held()); }

}  // namespace kiln
