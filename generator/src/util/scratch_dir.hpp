// A build's scratch directory (time traces, worker results, nvcc's files), next to the output so it is
// on the same file system. Removed with its contents when the object is destroyed, when a signal ends
// kiln (signal_cleanup.hpp), or by the next build after a SIGKILL (scratch_names.hpp).
#pragma once

#include "util/result.hpp"
#include "util/signal_cleanup.hpp"

#include <filesystem>
#include <memory>

namespace kiln {

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
