#include "store/entry_reader.hpp"

#include "store/entry_format.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"

#include <cerrno>
#include <chrono>
#include <string>

namespace kiln::store {

namespace {

// An entry used again within this many seconds of its last use keeps its time (see read_entry).
constexpr long k_touch_after_seconds = 60;

// The bytes of the entry file at `path` and its status: a regular file, not a link (the store makes
// no links), no larger than an entry can be. open, fstat, read: no message is made for a miss.
std::optional<std::vector<std::byte>> read_file(const std::string& path, platform::FileStatus& status) {
  const int fd = platform::open_regular_utf8_for_reading(path.c_str(), /*follow_link=*/false, &status);
  if (fd < 0) return std::nullopt;
  std::optional<std::vector<std::byte>> bytes;
  if (status.size <= k_max_entry_size) {
    bytes.emplace(static_cast<std::size_t>(status.size));
    std::size_t done = 0;
    while (done < bytes->size()) {
      const long got = platform::read_some(fd, bytes->data() + done, bytes->size() - done);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      done += static_cast<std::size_t>(got);
    }
    bytes->resize(done);   // cut short since fstat: the entry's own size check refuses it
  }
  platform::close_file(fd);
  return bytes;
}

}  // namespace

std::filesystem::path entry_path(const std::filesystem::path& directory, std::string_view key) {
  return platform::path_of_utf8(entry_path_utf8(platform::utf8_of(directory), key));
}

std::string entry_path_utf8(std::string_view directory_utf8, std::string_view key) {
  std::string path;
  path.reserve(directory_utf8.size() + 4 + key.size());
  path.append(directory_utf8);
#if defined(_WIN32)
  constexpr char separator = '\\';
#else
  constexpr char separator = '/';
#endif
  if (!path.empty() && path.back() != '/' && path.back() != separator) path += separator;
  path.append(key.substr(0, 2)).append(1, separator).append(key);
  return path;
}

std::optional<std::vector<std::byte>> read_entry(const std::filesystem::path& directory, std::string_view key) {
  return read_entry_utf8(platform::utf8_of(directory), key);
}

std::optional<std::vector<std::byte>> read_entry_utf8(std::string_view directory_utf8, std::string_view key) {
  if (!valid_key(key)) return std::nullopt;
  const std::string path = entry_path_utf8(directory_utf8, key);
  platform::FileStatus status;
  std::optional<std::vector<std::byte>> file = read_file(path, status);
  if (!file) return std::nullopt;   // absent, too large to be an entry, or not a regular file
  const std::optional<std::span<const std::byte>> payload = decode_entry(*file, key);
  if (!payload) return std::nullopt;   // damaged: a miss, and the caller's put replaces it
  // Used now: the last to be evicted. Only the modification time, which every file system keeps, and
  // only when it is older than a minute: eviction needs no finer order, and a hit then writes nothing.
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  if (now_ns - status.mtime_ns >= k_touch_after_seconds * 1000000000LL) platform::touch_now(platform::path_of_utf8(path));
  const std::size_t offset = static_cast<std::size_t>(payload->data() - file->data());
  const std::size_t size = payload->size();
  file->erase(file->begin(), file->begin() + static_cast<std::ptrdiff_t>(offset));
  file->resize(size);
  return file;
}

}  // namespace kiln::store
