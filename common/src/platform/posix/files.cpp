#include "platform/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdint>
#include <cerrno>

namespace kiln::platform {

namespace {

FileStatus status_from(const struct stat& st) {
  FileStatus out;
  out.is_directory = S_ISDIR(st.st_mode);
  out.is_regular = S_ISREG(st.st_mode);
  out.kind = S_ISREG(st.st_mode)    ? "a regular file"
             : S_ISDIR(st.st_mode)  ? "a directory"
             : S_ISFIFO(st.st_mode) ? "a FIFO"
             : S_ISSOCK(st.st_mode) ? "a socket"
             : S_ISCHR(st.st_mode)  ? "a character device"
             : S_ISBLK(st.st_mode)  ? "a block device"
                                    : "a special file";
  out.size = static_cast<std::uint64_t>(st.st_size);
  out.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  out.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  out.device = static_cast<std::uint64_t>(st.st_dev);
  out.file = static_cast<std::uint64_t>(st.st_ino);
  return out;
}

}  // namespace

int open_for_reading(const std::filesystem::path& path) {
  return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

int open_utf8_for_reading(const char* utf8) { return ::open(utf8, O_RDONLY | O_CLOEXEC | O_NONBLOCK); }

int open_regular_for_reading(const std::filesystem::path& path, bool follow_link, FileStatus* status) {
  return open_regular_utf8_for_reading(path.c_str(), follow_link, status);
}

int open_regular_utf8_for_reading(const char* utf8, bool follow_link, FileStatus* status) {
  const int fd = ::open(utf8, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (follow_link ? 0 : O_NOFOLLOW));
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {   // O_NONBLOCK changes nothing for it
    if (status) *status = status_from(st);
    return fd;
  }
  const int error = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
  ::close(fd);
  errno = error;
  return -1;
}

int open_for_writing(const std::filesystem::path& path, bool truncate, bool follow_link) {
  return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0) | (follow_link ? 0 : O_NOFOLLOW),
                0666);
}

int close_file(int fd) { return ::close(fd); }

bool status_of(int fd, FileStatus& out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  out = status_from(st);
  return true;
}

bool status_of(const std::filesystem::path& path, FileStatus& out) { return status_of_utf8(path.c_str(), out); }

bool status_of_utf8(const char* utf8, FileStatus& out) {
  struct stat st {};
  if (::stat(utf8, &st) != 0) return false;
  out = status_from(st);
  return true;
}

DirectoryStatus::~DirectoryStatus() {
  if (m_fd >= 0) ::close(m_fd);
}

bool DirectoryStatus::status_of(const std::string& directory, const std::string& name, FileStatus& out) {
  int at = AT_FDCWD;
  if (!directory.empty()) {
    if (!m_open || m_directory != directory) {
      if (m_fd >= 0) ::close(m_fd);
      m_fd = ::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
      m_directory = directory;
      m_open = true;
    }
    if (m_fd < 0) return false;
    at = m_fd;
  }
  struct stat st {};
  if (::fstatat(at, name.c_str(), &st, 0) != 0) return false;
  out = status_from(st);
  return true;
}

long read_some(int fd, void* buffer, std::size_t size) { return ::read(fd, buffer, size); }

long read_at(int fd, void* buffer, std::size_t size, std::uint64_t offset) {
  return ::pread(fd, buffer, size, static_cast<off_t>(offset));
}

long write_some(int fd, const void* buffer, std::size_t size) { return ::write(fd, buffer, size); }

bool sync_file(int fd) { return ::fsync(fd) == 0; }

void sync_directory(const std::filesystem::path& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

int make_temporary(std::string& path_template) { return ::mkostemp(path_template.data(), O_CLOEXEC); }

bool share_like_other_outputs(int fd) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return ::fchmod(fd, 0666 & ~mask) == 0;
}

bool make_private_directory(std::string& path_template) { return ::mkdtemp(path_template.data()) != nullptr; }

bool memory_backed_with_room(const std::filesystem::path& directory, std::uint64_t bytes) {
  constexpr long k_tmpfs_magic = 0x01021994;   // TMPFS_MAGIC of <linux/magic.h>
  constexpr std::uint64_t k_spare_bytes = 16ull << 20;
  struct statfs kind {};
  struct statvfs space {};
  if (::statfs(directory.c_str(), &kind) != 0 || static_cast<long>(kind.f_type) != k_tmpfs_magic) return false;
  if (::access(directory.c_str(), W_OK | X_OK) != 0 || ::statvfs(directory.c_str(), &space) != 0) return false;
  const std::uint64_t free = static_cast<std::uint64_t>(space.f_bavail) * space.f_frsize;
  return free >= 2 * bytes + k_spare_bytes;
}

std::filesystem::path default_temporary_directory() { return "/tmp"; }

std::filesystem::path user_cache_directory(const std::function<std::optional<std::string>(const char*)>& env,
                                           const std::string& application) {
  return user_cache_directory_utf8(env, application);
}

std::string user_cache_directory_utf8(const std::function<std::optional<std::string>(const char*)>& env,
                                      const std::string& application) {
  const auto set = [](const std::optional<std::string>& value) { return value && value->starts_with('/'); };
  const auto join = [](std::string directory, const std::string& name) {
    if (directory.back() != '/') directory += '/';
    return directory + name;
  };
  if (const std::optional<std::string> xdg = env("XDG_CACHE_HOME"); set(xdg)) return join(*xdg, application);
  if (const std::optional<std::string> home = env("HOME"); set(home)) return join(join(*home, ".cache"), application);
  return {};
}

bool lock_file(int fd, bool wait) {
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0)
    if (errno != EINTR) return false;
  return true;
}

bool replace_file(const std::filesystem::path& from, const std::filesystem::path& to) {
  return ::rename(from.c_str(), to.c_str()) == 0;
}

bool directory_writable(const std::filesystem::path& directory) {
  return ::access(directory.c_str(), W_OK | X_OK) == 0;
}

bool touch_now(const std::filesystem::path& path) {
  const struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};   // the access time stays
  return ::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0;
}

long current_process_id() { return static_cast<long>(::getpid()); }

bool process_gone(long pid) { return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

void* reserve_memory(std::size_t size) {
  // Anonymous and NORESERVE: pages never read are never backed.
  void* memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  // No huge pages unless prefer_huge_pages asks (a system whose THP setting is "always" would give
  // them to every 2 MiB block, and a small image read into one would pay for zeroing all of it).
  // A mapping smaller than a huge page holds no aligned block of one: no system call needed.
  constexpr std::size_t huge = std::size_t{2} << 20;
  if (size >= huge) ::madvise(memory, size, MADV_NOHUGEPAGE);
  return memory;
}

void prefer_huge_pages(void* at, std::size_t size) {
  // A large image is read with a few page faults instead of one per 4 KiB (50 MiB: 32 ms -> 9 ms,
  // bench/results/package-open.md); only blocks the read fills whole.
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(at);
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (begin + size) & ~(huge - 1);
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

void release_memory(void* memory, std::size_t size) {
  if (memory) ::munmap(memory, size);
}

}  // namespace kiln::platform
