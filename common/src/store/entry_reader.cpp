#include "store/entry_reader.hpp"

#include "store/entry_format.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>

namespace kiln::store {

namespace {

// An entry used again within this many seconds of its last use keeps its time (see read_entry).
constexpr long k_touch_after_seconds = 60;

// Reads the entry file at `path` into the memory `allocate(size)` returns, and its status: a regular
// file, not a link (the store makes no links), no larger than an entry can be. open, fstat, read: no
// message is made for a miss. The bytes read (fewer than the status says when the file was cut short
// since the fstat: the entry's own size check refuses it), or nothing.
template <typename Allocate>
std::optional<std::size_t> read_file(const std::string& path, platform::FileStatus& status, Allocate allocate) {
  const int fd = platform::open_regular_utf8_for_reading(path.c_str(), /*follow_link=*/false, &status);
  if (fd < 0) return std::nullopt;
  std::optional<std::size_t> done;
  if (status.size <= k_max_entry_size) {
    const auto size = static_cast<std::size_t>(status.size);
    std::byte* into = allocate(size);
    for (done = 0; *done < size;) {
      const long got = platform::read_some(fd, into + *done, size - *done);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      *done += static_cast<std::size_t>(got);
    }
  }
  platform::close_file(fd);
  return done;
}

// The payload of the entry `key` read into `allocate`'s memory, as read_entry_utf8 finds it.
template <typename Allocate>
std::optional<std::span<const std::byte>> find_entry(std::string_view directory_utf8, std::string_view key,
                                                     Allocate allocate) {
  if (!valid_key(key)) return std::nullopt;
  const std::string path = entry_path_utf8(directory_utf8, key);
  platform::FileStatus status;
  const std::byte* file = nullptr;
  const std::optional<std::size_t> size = read_file(path, status, [&](std::size_t n) {
    std::byte* into = allocate(n);
    file = into;
    return into;
  });
  if (!size) return std::nullopt;   // absent, too large to be an entry, or not a regular file
  const std::optional<std::span<const std::byte>> payload = decode_entry({file, *size}, key);
  if (!payload) return std::nullopt;   // damaged: a miss, and the caller's put replaces it
  // Used now: the last to be evicted. Only the modification time, which every file system keeps, and
  // only when it is older than a minute: eviction needs no finer order, and a hit then writes nothing.
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  if (now_ns - status.mtime_ns >= k_touch_after_seconds * 1000000000LL) platform::touch_now(platform::path_of_utf8(path));
  return payload;
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
  std::vector<std::byte> file;
  const std::optional<std::span<const std::byte>> payload = find_entry(directory_utf8, key, [&](std::size_t size) {
    file.resize(size);
    return file.data();
  });
  if (!payload) return std::nullopt;
  // The payload moved to the front of the file's own bytes: an entry of hundreds of MB is held once.
  const auto offset = static_cast<std::ptrdiff_t>(payload->data() - file.data());
  const std::size_t size = payload->size();
  file.erase(file.begin(), file.begin() + offset);
  file.resize(size);
  return file;
}

std::optional<SharedEntry> read_shared_entry_utf8(std::string_view directory_utf8, std::string_view key) {
  std::shared_ptr<std::byte[]> file;
  const std::optional<std::span<const std::byte>> payload = find_entry(directory_utf8, key, [&](std::size_t size) {
    file.reset(new std::byte[size]);   // default-initialized: read over before it is looked at
    return file.get();
  });
  if (!payload) return std::nullopt;
  // Moved to the front, as read_entry_utf8 moves it: the header's length varies with the payload's
  // size, and what the payload holds (a direct record's package) is aligned from its own start.
  std::memmove(file.get(), payload->data(), payload->size());
  const std::span<const std::byte> front(file.get(), payload->size());
  return SharedEntry{std::move(file), front};
}

}  // namespace kiln::store
