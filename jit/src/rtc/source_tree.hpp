// A private directory holding a carried source tree while NVRTC compiles it (NVRTC finds a quoted or
// -I include only as a file, so the build's tree is laid out again): made with mkdtemp, written whole,
// removed with everything in it when the object goes. Paths inside are the build's relative paths;
// one that is absolute or climbs out with ".." is refused.
//
// Where: $TMPDIR when it is set (the user chose it); else memory ($XDG_RUNTIME_DIR, then /dev/shm,
// each only when it is a tmpfs with room for the tree), because writing the ~600 headers of a CUB
// kernel to a disk file system costs 20-150 ms under write-back and 3 ms in memory; else /tmp
// (Windows: no memory place; %TEMP%, GetTempPathW's answer). A
// place that fails (full, not writable) passes the tree to the next.
//
// A tree holds a lock on a file in it (.kiln-rtc.lock) while it lives; one whose lock is free and
// that is over a minute old was left by a killed process and is removed by the next tree made in
// the same place (in memory it would hold RAM until reboot).
#pragma once

#include "util/result.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::rtc {

struct TreeFile {
  std::string path;         // relative to the tree's root, as in the build
  std::string_view text;    // the caller's: several files may share one text
};

class SourceTree {
public:
  // The tree in the first of `tree_places(bytes)` that takes it.
  static Result<SourceTree> write(const std::vector<TreeFile>& files);
  // The tree in the first of `places` that takes it; the error names every place and why it failed.
  static Result<SourceTree> write(const std::vector<TreeFile>& files, const std::vector<std::filesystem::path>& places);

  SourceTree(SourceTree&& other) noexcept;
  SourceTree& operator=(SourceTree&&) = delete;
  SourceTree(const SourceTree&) = delete;
  ~SourceTree();

  const std::filesystem::path& root() const { return m_root; }
  // The absolute path of `relative` ("include" -> "/dev/shm/kiln-rtc-Ab12Cd/include").
  std::string path_of(const std::string& relative) const;
  // `text` with the tree's root taken out of every path, so messages name files as the build did.
  std::string relative_paths_in(std::string text) const;

private:
  SourceTree(std::filesystem::path root, int lock) : m_root(std::move(root)), m_lock(lock) {}
  std::filesystem::path m_root;   // empty once moved from
  int m_lock = -1;                // the lock file, opened and locked
};

// The places a tree of `bytes` is tried in, in order (see the top of this file), from the variables
// given (null: unset).
std::vector<std::filesystem::path> tree_places(std::uint64_t bytes, const char* tmpdir, const char* runtime_dir);

}  // namespace kiln::rtc
