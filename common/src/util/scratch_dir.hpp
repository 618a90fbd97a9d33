// A build's scratch directory (time traces, worker results, nvcc's files), next to the output so it is
// on the same file system. Removed with its contents when the object is destroyed, when a signal ends
// kiln (signal_cleanup.hpp), or by the next build after a SIGKILL (scratch_names.hpp). Its path is
// plain (util/plain_names.hpp), as nvcc works in it: where the output's directory is not, it is made
// in the system's temporary directory instead (kiln-build-<pid>-XXXXXX).
#pragma once

#include "util/result.hpp"
#include "util/signal_cleanup.hpp"

#include <filesystem>
#include <memory>
#include <optional>

namespace kiln {

// $TMPDIR, else /tmp, resolved, if its path is plain; nothing otherwise.
std::optional<std::filesystem::path> plain_temporary_directory();

class ScratchDir {
public:
  // Fails naming `output` and the reason: "cannot create a scratch directory for ro/app.kiln in ro:
  // Permission denied".
  static Result<ScratchDir> create(const std::filesystem::path& output);
  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&&) = delete;
  ~ScratchDir();
  const std::filesystem::path& path() const { return m_path; }

private:
  ScratchDir(std::filesystem::path path, int lock_fd);
  std::filesystem::path m_path;
  int m_lock_fd;                                       // the directory, flock'ed while the build lives
  std::unique_ptr<cleanup::ScopedPath> m_on_signal;
};

}  // namespace kiln
