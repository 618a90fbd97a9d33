// A private directory holding a carried source tree while NVRTC compiles it: created under $TMPDIR
// (else /tmp) with mkdtemp, removed with everything in it when the object goes. Paths inside are the
// build's relative paths; one that is absolute or climbs out with ".." is refused.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace kiln::rtc {

class SourceTree {
public:
  static Result<SourceTree> create();
  SourceTree(SourceTree&& other) noexcept;
  SourceTree& operator=(SourceTree&&) = delete;
  SourceTree(const SourceTree&) = delete;
  ~SourceTree();

  Status write(const std::string& relative, std::string_view text);
  // The absolute path of `relative` ("include" -> "/tmp/kiln-rtc-Ab12Cd/include").
  std::string path_of(const std::string& relative) const;
  // `text` with the tree's root taken out of every path, so messages name files as the build did.
  std::string relative_paths_in(std::string text) const;

private:
  explicit SourceTree(std::filesystem::path root) : m_root(std::move(root)) {}
  std::filesystem::path m_root;   // empty once moved from
};

}  // namespace kiln::rtc
