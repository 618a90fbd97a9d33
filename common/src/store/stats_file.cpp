#include "store/stats_file.hpp"

#include "util/file_io.hpp"
#include "util/scratch_names.hpp"
#include "util/signal_cleanup.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

namespace kiln::store {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_stats_magic = "kiln-cache-stats 1";

// A folder, not a symbolic link to one (nor anything else).
bool real_directory(const fs::path& path) {
  std::error_code ec;
  return fs::symlink_status(path, ec).type() == fs::file_type::directory;
}

}  // namespace

bool publish_file(const fs::path& directory, const fs::path& path, std::span<const std::byte> bytes) {
  std::error_code ec;
  fs::create_directories(directory / "tmp", ec);
  fs::create_directories(path.parent_path(), ec);
  // A link where the store's own folders belong leads outside it: write nothing there.
  if (!real_directory(directory / "tmp") || (path.parent_path() != directory && !real_directory(path.parent_path())))
    return false;
  std::string temp = scratch_template(directory / "tmp" / path.filename(), "tmp");
  const int fd = platform::make_temporary(temp);
  if (fd < 0) return false;
  try_lock(fd);   // a later build sees a live owner; a signal removes the file
  const cleanup::ScopedPath on_signal(temp);
  bool ok = true;
  for (std::size_t written = 0; ok && written < bytes.size();) {
    const long n = platform::write_some(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) written += static_cast<std::size_t>(n);
  }
  // mkstemp makes 0600 files; a cache shared by a group needs the umask's permissions.
  ok = ok && platform::share_like_other_outputs(fd) && platform::replace_file(platform::path_of_utf8(temp), path);
  if (!ok) {
    std::error_code ignored;
    fs::remove(platform::path_of_utf8(temp), ignored);
  }
  platform::close_file(fd);
  return ok;
}

Counters read_stats(const fs::path& directory) {
  Counters counters;
  // Names and decimal values: a megabyte is far more than any store's counters.
  const Result<std::vector<std::byte>> bytes = read_regular_file(directory / "stats", std::size_t{1} << 20, false);
  if (!bytes) return counters;
  const std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  if (!text.starts_with(std::string(k_stats_magic) + "\n")) return counters;
  for (std::size_t at = k_stats_magic.size() + 1; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(line.data() + space + 1, line.data() + line.size(), value);
    if (ec == std::errc() && ptr == line.data() + line.size()) counters[std::string(line.substr(0, space))] = value;
  }
  return counters;
}

Status update_stats(const fs::path& directory, const std::function<void(Counters&)>& change) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  const fs::path lock_path = directory / "stats.lock";
  // Not through a link: one placed there would make this create or lock a file elsewhere.
  const int lock = platform::open_for_writing(lock_path, /*truncate=*/false, /*follow_link=*/false);
  if (lock < 0) return fail(KILN_STATUS_IO_ERROR, "cannot open " + platform::utf8_of(lock_path) + ": " + std::strerror(errno));
  // Tried again every few milliseconds, for at most k_stats_lock_wait.
  const auto deadline = std::chrono::steady_clock::now() + k_stats_lock_wait;
  while (!platform::lock_file(lock, /*wait=*/false)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      platform::close_file(lock);
      return fail(KILN_STATUS_IO_ERROR, "another process held the lock on " + platform::utf8_of(lock_path) + " for " +
                                            std::to_string(k_stats_lock_wait.count()) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Counters counters = read_stats(directory);
  change(counters);
  std::string text = std::string(k_stats_magic) + "\n";
  for (const auto& [name, value] : counters) text += name + " " + std::to_string(value) + "\n";
  publish_file(directory, directory / "stats", std::as_bytes(std::span(text.data(), text.size())));
  platform::close_file(lock);   // releases the lock
  return {};
}

}  // namespace kiln::store
