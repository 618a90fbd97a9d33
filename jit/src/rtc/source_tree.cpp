#include "rtc/source_tree.hpp"

#include "format/tree_path.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

namespace kiln::rtc {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_prefix = "kiln-rtc-";
constexpr const char* k_lock_name = ".kiln-rtc.lock";   // held by the tree's owner while it lives
constexpr std::int64_t k_stale_after_ns = 60LL * 1000000000;

std::string reason() { return std::strerror(errno); }

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Trees other processes left: ours by name, over a minute old, their lock free (a tree whose lock
// file cannot be opened, another user's, is not ours to remove).
void remove_abandoned_trees(const fs::path& place) {
  std::vector<fs::path> abandoned;
  std::error_code ec;
  for (fs::directory_iterator it(place, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = platform::utf8_of(it->path().filename());
    if (name.rfind(k_prefix, 0) != 0) continue;
    platform::FileStatus status;
    if (!platform::status_of(it->path(), status) || !status.is_directory || now_ns() - status.mtime_ns < k_stale_after_ns) {
      continue;
    }
    const int fd = platform::open_for_reading(it->path() / k_lock_name);
    if (fd < 0) {
      // No lock file: killed between making the directory and its lock, or not a tree at all; an
      // empty one is removed, anything else left alone.
      if (fs::is_empty(it->path(), ec)) abandoned.push_back(it->path());
      continue;
    }
    if (platform::lock_file(fd, /*wait=*/false)) abandoned.push_back(it->path());
    platform::close_file(fd);   // a later owner cannot appear: a new tree never reuses a name that exists
  }
  for (const fs::path& tree : abandoned) {
    std::error_code ignored;
    fs::remove_all(tree, ignored);
  }
}

Status write_file(const fs::path& path, std::string_view text) {
  const int fd = platform::open_for_writing(path, /*truncate=*/true);
  if (fd < 0) return Error{"cannot create " + platform::utf8_of(path) + ": " + reason()};
  std::size_t written = 0;
  while (written < text.size()) {
    const long n = platform::write_some(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      const std::string why = reason();
      platform::close_file(fd);
      return Error{"cannot write " + platform::utf8_of(path) + ": " + why};
    }
    written += static_cast<std::size_t>(n);
  }
  if (platform::close_file(fd) != 0) return Error{"cannot write " + platform::utf8_of(path) + ": " + reason()};
  return Ok{};
}

Status write_files(const fs::path& root, const std::vector<TreeFile>& files) {
  std::set<fs::path> made{root};
  for (const TreeFile& file : files) {
    const fs::path path = root / platform::path_of_utf8(file.path);
    if (made.insert(path.parent_path()).second) {
      std::error_code ec;
      fs::create_directories(path.parent_path(), ec);
      if (ec) return Error{"cannot create " + platform::utf8_of(path.parent_path()) + ": " + ec.message()};
    }
    if (Status written = write_file(path, file.text); !written) return written;
  }
  return Ok{};
}

}  // namespace

std::vector<fs::path> tree_places(std::uint64_t bytes, const char* tmpdir, const char* runtime_dir) {
  if (tmpdir && *tmpdir) return {platform::path_of_utf8(tmpdir)};
  std::vector<fs::path> places;
  for (const char* memory : {runtime_dir, "/dev/shm"}) {
    if (memory && *memory && platform::memory_backed_with_room(memory, bytes)) places.emplace_back(memory);
  }
  places.push_back(platform::default_temporary_directory());
  return places;
}

Result<SourceTree> SourceTree::write(const std::vector<TreeFile>& files) {
  std::uint64_t bytes = 0;
  for (const TreeFile& file : files) bytes += file.text.size();
  return write(files, tree_places(bytes, platform::environment("TMPDIR"), platform::environment("XDG_RUNTIME_DIR")));
}

Result<SourceTree> SourceTree::write(const std::vector<TreeFile>& files, const std::vector<fs::path>& places) {
  for (const TreeFile& file : files) {
    // Windows reads "C:x" as a path on drive C, whatever the tree's root is.
    const fs::path path = platform::path_of_utf8(file.path);
    if (!format::is_tree_path(file.path) || path.has_root_name() || path.has_root_directory()) {
      return Error{"carried file '" + file.path + "' is not a relative path inside the source tree"};
    }
  }
  std::string failures;
  for (const fs::path& place : places) {
    remove_abandoned_trees(place);
    std::string pattern = platform::utf8_of(place / (std::string(k_prefix) + "XXXXXX"));
    if (!platform::make_private_directory(pattern)) {
      failures += "\n  " + platform::utf8_of(place) + ": cannot create a directory: " + reason();
      continue;
    }
    const fs::path root = platform::path_of_utf8(pattern);
    const int lock = platform::open_for_writing(root / k_lock_name, /*truncate=*/false);
    if (lock >= 0) platform::lock_file(lock, /*wait=*/false);   // new and private: nobody else holds it
    SourceTree tree(root, lock);
    Status written = write_files(tree.m_root, files);
    if (written) return tree;
    failures += "\n  " + platform::utf8_of(place) + ": " + written.error().message;   // `tree` removes what it wrote
  }
  return Error{"cannot write the carried sources for a run-time compile:" + failures};
}

SourceTree::SourceTree(SourceTree&& other) noexcept : m_root(std::move(other.m_root)), m_lock(other.m_lock) {
  other.m_root.clear();
  other.m_lock = -1;
}

SourceTree::~SourceTree() {
  // The lock file is closed first: Windows removes no directory with an open file in it. A sweep
  // that finds the lock free in between removes what the owner is removing anyway.
  if (m_lock >= 0) platform::close_file(m_lock);
  if (!m_root.empty()) {
    std::error_code ignored;
    fs::remove_all(m_root, ignored);
  }
}

std::string SourceTree::path_of(const std::string& relative) const {
  if (relative.empty() || relative == ".") return platform::utf8_of(m_root);
  return platform::utf8_of((m_root / platform::path_of_utf8(relative)).lexically_normal());
}

std::string SourceTree::relative_paths_in(std::string text) const {
  const std::string root = platform::utf8_of(m_root / "");
  for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) text.erase(at, root.size());
  return text;
}

}  // namespace kiln::rtc
