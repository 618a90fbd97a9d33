#include "store/entry_reader.hpp"

#include "store/entry_format.hpp"
#include "util/file_io.hpp"

#include "platform/files.hpp"

#include <chrono>
#include <string>

namespace kiln::store {

namespace {

// An entry used again within this many seconds of its last use keeps its time (see read_entry).
constexpr long k_touch_after_seconds = 60;

}  // namespace

std::filesystem::path entry_path(const std::filesystem::path& directory, std::string_view key) {
  return directory / std::string(key.substr(0, 2)) / std::string(key);
}

std::optional<std::vector<std::byte>> read_entry(const std::filesystem::path& directory, std::string_view key) {
  if (!valid_key(key)) return std::nullopt;
  const std::filesystem::path path = entry_path(directory, key);
  platform::FileStatus status;
  Result<std::vector<std::byte>> file = read_regular_file(path, k_max_entry_size, /*follow_link=*/false, &status);
  if (!file) return std::nullopt;   // absent, too large to be an entry, or not a regular file
  const std::optional<std::span<const std::byte>> payload = decode_entry(*file, key);
  if (!payload) return std::nullopt;   // damaged: a miss, and the caller's put replaces it
  // Used now: the last to be evicted. Only the modification time, which every file system keeps, and
  // only when it is older than a minute: eviction needs no finer order, and a hit then writes nothing.
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  if (now_ns - status.mtime_ns >= k_touch_after_seconds * 1000000000LL) platform::touch_now(path);
  const std::size_t offset = static_cast<std::size_t>(payload->data() - file->data());
  const std::size_t size = payload->size();
  file->erase(file->begin(), file->begin() + static_cast<std::ptrdiff_t>(offset));
  file->resize(size);
  return std::move(*file);
}

}  // namespace kiln::store
