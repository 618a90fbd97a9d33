#include "rtc/source_tree.hpp"

#include "format/tree_path.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace kiln::rtc {

namespace fs = std::filesystem;

namespace {

constexpr long k_tmpfs_magic = 0x01021994;   // TMPFS_MAGIC of <linux/magic.h>
constexpr std::uint64_t k_spare_bytes = 16ull << 20;
constexpr std::string_view k_prefix = "kiln-rtc-";
constexpr std::time_t k_stale_after_seconds = 60;

std::string reason() { return std::strerror(errno); }

// Trees other processes left: ours by name and owner, over a minute old, their lock free.
void remove_abandoned_trees(const fs::path& place) {
  DIR* dir = opendir(place.c_str());
  if (!dir) return;
  std::vector<std::string> abandoned;
  const std::time_t now = std::time(nullptr);
  while (const dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name.substr(0, k_prefix.size()) != k_prefix) continue;
    struct stat info {};
    if (fstatat(dirfd(dir), entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != geteuid() || now - info.st_mtime < k_stale_after_seconds) {
      continue;
    }
    const int fd = openat(dirfd(dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) abandoned.emplace_back(name);
    close(fd);   // a later owner cannot appear: mkdtemp never reuses a name that exists
  }
  closedir(dir);
  for (const std::string& name : abandoned) {
    std::error_code ignored;
    fs::remove_all(place / name, ignored);
  }
}

Status write_file(const fs::path& path, std::string_view text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"cannot create " + path.string() + ": " + reason()};
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      const std::string why = reason();
      close(fd);
      return Error{"cannot write " + path.string() + ": " + why};
    }
    written += static_cast<std::size_t>(n);
  }
  if (close(fd) != 0) return Error{"cannot write " + path.string() + ": " + reason()};
  return Ok{};
}

Status write_files(const fs::path& root, const std::vector<TreeFile>& files) {
  std::set<fs::path> made{root};
  for (const TreeFile& file : files) {
    const fs::path path = root / file.path;
    if (made.insert(path.parent_path()).second) {
      std::error_code ec;
      fs::create_directories(path.parent_path(), ec);
      if (ec) return Error{"cannot create " + path.parent_path().string() + ": " + ec.message()};
    }
    if (Status written = write_file(path, file.text); !written) return written;
  }
  return Ok{};
}

}  // namespace

bool memory_backed_with_room(const fs::path& directory, std::uint64_t bytes) {
  struct statfs kind {};
  struct statvfs space {};
  if (statfs(directory.c_str(), &kind) != 0 || static_cast<long>(kind.f_type) != k_tmpfs_magic) return false;
  if (access(directory.c_str(), W_OK | X_OK) != 0 || statvfs(directory.c_str(), &space) != 0) return false;
  const std::uint64_t free = static_cast<std::uint64_t>(space.f_bavail) * space.f_frsize;
  return free >= 2 * bytes + k_spare_bytes;
}

std::vector<fs::path> tree_places(std::uint64_t bytes, const char* tmpdir, const char* runtime_dir) {
  if (tmpdir && *tmpdir) return {fs::path(tmpdir)};
  std::vector<fs::path> places;
  for (const char* memory : {runtime_dir, "/dev/shm"}) {
    if (memory && *memory && memory_backed_with_room(memory, bytes)) places.emplace_back(memory);
  }
  places.emplace_back("/tmp");
  return places;
}

Result<SourceTree> SourceTree::write(const std::vector<TreeFile>& files) {
  std::uint64_t bytes = 0;
  for (const TreeFile& file : files) bytes += file.text.size();
  return write(files, tree_places(bytes, std::getenv("TMPDIR"), std::getenv("XDG_RUNTIME_DIR")));
}

Result<SourceTree> SourceTree::write(const std::vector<TreeFile>& files, const std::vector<fs::path>& places) {
  for (const TreeFile& file : files) {
    if (!format::is_tree_path(file.path)) {
      return Error{"carried file '" + file.path + "' is not a relative path inside the source tree"};
    }
  }
  std::string failures;
  for (const fs::path& place : places) {
    remove_abandoned_trees(place);
    std::string pattern = (place / (std::string(k_prefix) + "XXXXXX")).string();
    if (!mkdtemp(pattern.data())) {
      failures += "\n  " + place.string() + ": cannot create a directory: " + reason();
      continue;
    }
    const int lock = open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock >= 0) flock(lock, LOCK_EX | LOCK_NB);   // new and private: nobody else holds it
    SourceTree tree(fs::path(pattern), lock);
    Status written = write_files(tree.m_root, files);
    if (written) return tree;
    failures += "\n  " + place.string() + ": " + written.error().message;   // `tree` removes what it wrote
  }
  return Error{"cannot write the carried sources for a run-time compile:" + failures};
}

SourceTree::SourceTree(SourceTree&& other) noexcept : m_root(std::move(other.m_root)), m_lock(other.m_lock) {
  other.m_root.clear();
  other.m_lock = -1;
}

SourceTree::~SourceTree() {
  if (!m_root.empty()) {
    std::error_code ignored;
    fs::remove_all(m_root, ignored);
  }
  if (m_lock >= 0) close(m_lock);   // after the removal: until then the tree is in use
}

std::string SourceTree::path_of(const std::string& relative) const {
  return relative.empty() || relative == "." ? m_root.string() : (m_root / relative).lexically_normal().string();
}

std::string SourceTree::relative_paths_in(std::string text) const {
  const std::string root = m_root.string() + "/";
  for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) text.erase(at, root.size());
  return text;
}

}  // namespace kiln::rtc
