#include "util/scratch_dir.hpp"

#include "util/plain_names.hpp"
#include "util/scratch_names.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <system_error>
#include <utility>

namespace kiln {

namespace fs = std::filesystem;

std::optional<fs::path> plain_temporary_directory() {
  for (const char* candidate : std::initializer_list<const char*>{std::getenv("TMPDIR"), "/tmp"}) {
    if (!candidate || !*candidate) continue;
    std::error_code ec;
    const fs::path dir = fs::weakly_canonical(candidate, ec);
    if (!ec && is_plain_name(dir.string()) && fs::is_directory(dir, ec)) return dir;
  }
  return std::nullopt;
}

Result<ScratchDir> ScratchDir::create(const fs::path& output) {
  std::string pattern = scratch_template(output, "build");
  std::error_code ec;
  const fs::path dir = output.parent_path().empty() ? fs::path(".") : output.parent_path();
  // A directory that is missing or unwritable fails here, as it would at the end when the package is written.
  if (fs::is_directory(dir, ec) && access(dir.c_str(), W_OK) == 0 &&
      !is_plain_name(fs::absolute(pattern, ec).lexically_normal().string())) {
    // nvcc works in here (compile/nvcc_workspace.hpp), and its shell must read no name of the user's:
    // where the output's directory has such a name, the build's scratch goes to the temporary directory.
    if (const std::optional<fs::path> tmp = plain_temporary_directory())
      pattern = (*tmp / ("kiln-build-" + std::to_string(getpid()) + "-XXXXXX")).string();
  }
  if (!mkdtemp(pattern.data())) {
    return Error{"cannot create a scratch directory for " + output.string() + " in " + dir.string() + ": " +
                 std::strerror(errno)};
  }
  // Locked before anything else can see it as abandoned: its pid is ours and alive until then.
  const int fd = open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) try_lock(fd);
  return ScratchDir(fs::absolute(pattern), fd);
}

ScratchDir::ScratchDir(fs::path path, int lock_fd)
    : m_path(std::move(path)), m_lock_fd(lock_fd), m_on_signal(std::make_unique<cleanup::ScopedPath>(m_path)) {}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept
    : m_path(std::exchange(other.m_path, {})),
      m_lock_fd(std::exchange(other.m_lock_fd, -1)),
      m_on_signal(std::move(other.m_on_signal)) {}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  if (!m_path.empty()) fs::remove_all(m_path, ignored);
  m_on_signal.reset();
  if (m_lock_fd >= 0) close(m_lock_fd);
}

}  // namespace kiln
