#include "util/scratch_names.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <system_error>

namespace kiln {

namespace fs = std::filesystem;

namespace {

const char* const k_kinds[] = {"build", "tmp"};

fs::path directory_of(const fs::path& output) {
  return output.parent_path().empty() ? fs::path(".") : output.parent_path();
}

// The pid in "<prefix><pid>-XXXXXX", or 0 when `name` is not such a name.
pid_t owner_of(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return 0;
  name.remove_prefix(prefix.size());
  long pid = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc{} || pid <= 0 || end == name.data() + name.size() || *end != '-') return 0;
  if (name.size() - static_cast<std::size_t>(end - name.data()) != 7) return 0;   // "-XXXXXX"
  return static_cast<pid_t>(pid);
}

// Whether the build that made `path` is gone: its pid runs nothing here and nobody holds its lock
// (the lock also covers a build in another pid namespace sharing the directory).
bool abandoned(const fs::path& path, pid_t owner) {
  if (owner == getpid()) return false;
  if (kill(owner, 0) == 0 || errno != ESRCH) return false;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool free = try_lock(fd);
  close(fd);
  return free;
}

}  // namespace

std::string scratch_template(const fs::path& output, std::string_view kind) {
  const std::string name = "." + output.filename().string() + "." + std::string(kind) + "-" +
                           std::to_string(getpid()) + "-XXXXXX";
  return (directory_of(output) / name).string();
}

bool try_lock(int fd) {
  while (flock(fd, LOCK_EX | LOCK_NB) != 0)
    if (errno != EINTR) return false;
  return true;
}

void remove_stale_scratch(const fs::path& output) {
  std::error_code ec;
  fs::directory_iterator it(directory_of(output), ec);
  if (ec) return;
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    for (const char* kind : k_kinds) {
      const pid_t owner = owner_of(name, "." + output.filename().string() + "." + kind + "-");
      if (owner == 0 || !abandoned(entry.path(), owner)) continue;
      std::error_code ignored;
      fs::remove_all(entry.path(), ignored);
    }
  }
}

void remove_stale_temporaries(const fs::path& dir) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return;
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    const std::size_t at = name.rfind(".tmp-");
    if (name.empty() || name[0] != '.' || at == std::string::npos) continue;
    const pid_t owner = owner_of(name, name.substr(0, at + 5));
    if (owner == 0 || !abandoned(entry.path(), owner)) continue;
    std::error_code ignored;
    fs::remove(entry.path(), ignored);
  }
}

void sync_directory(const fs::path& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

}  // namespace kiln
