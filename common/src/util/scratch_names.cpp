#include "util/scratch_names.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"
#include "util/plain_names.hpp"

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

// ".<name>.<kind>-": the output's name spelt plainly, as the build's scratch directory is where nvcc
// works (util/plain_names.hpp), and no name of the user's may reach its shell.
std::string scratch_prefix(const fs::path& output, std::string_view kind) {
  // Appended, not `"." + name`: GCC 12 warns a false -Wrestrict on operator+(const char*, string&&).
  std::string prefix = ".";
  prefix += plain_spelling(platform::utf8_of(output.filename()));
  prefix += '.';
  prefix += kind;
  prefix += '-';
  return prefix;
}

// The pid in "<prefix><pid>-XXXXXX", or 0 when `name` is not such a name.
long owner_of(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return 0;
  name.remove_prefix(prefix.size());
  long pid = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc{} || pid <= 0 || end == name.data() + name.size() || *end != '-') return 0;
  if (name.size() - static_cast<std::size_t>(end - name.data()) != 7) return 0;   // "-XXXXXX"
  return pid;
}

// Whether the build that made `path` is gone: its pid runs nothing here and nobody holds its lock
// (the lock also covers a build in another pid namespace sharing the directory).
bool abandoned(const fs::path& path, long owner) {
  if (owner == platform::current_process_id() || !platform::process_gone(owner)) return false;
  const int fd = platform::open_for_reading(path);
  if (fd < 0) return false;
  const bool free = try_lock(fd);
  platform::close_file(fd);
  return free;
}

}  // namespace

std::string scratch_template(const fs::path& output, std::string_view kind) {
  const std::string name = scratch_prefix(output, kind) + std::to_string(platform::current_process_id()) + "-XXXXXX";
  return platform::utf8_of(directory_of(output) / platform::path_of_utf8(name));
}

bool try_lock(int fd) { return platform::lock_file(fd, /*wait=*/false); }

void remove_stale_scratch(const fs::path& output) {
  std::error_code ec;
  fs::directory_iterator it(directory_of(output), ec);
  if (ec) return;
  for (const fs::directory_entry& entry : it) {
    const std::string name = platform::utf8_of(entry.path().filename());
    for (const char* kind : k_kinds) {
      const long owner = owner_of(name, scratch_prefix(output, kind));
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
    const std::string name = platform::utf8_of(entry.path().filename());
    const std::size_t at = name.rfind(".tmp-");
    if (name.empty() || name[0] != '.' || at == std::string::npos) continue;
    const long owner = owner_of(name, name.substr(0, at + 5));
    if (owner == 0 || !abandoned(entry.path(), owner)) continue;
    std::error_code ignored;
    fs::remove(entry.path(), ignored);
  }
}

}  // namespace kiln
