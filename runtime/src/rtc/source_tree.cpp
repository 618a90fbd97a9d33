#include "rtc/source_tree.hpp"

#include "format/tree_path.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace kiln::rtc {

namespace fs = std::filesystem;

Result<SourceTree> SourceTree::create() {
  const char* tmp = std::getenv("TMPDIR");
  const fs::path base = tmp && *tmp ? fs::path(tmp) : fs::path("/tmp");
  std::string pattern = (base / "kiln-rtc-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    return Error{"cannot create a directory for the carried sources under " + base.string() + ": " +
                 std::strerror(errno)};
  }
  return SourceTree(fs::path(pattern));
}

SourceTree::SourceTree(SourceTree&& other) noexcept : m_root(std::move(other.m_root)) { other.m_root.clear(); }

SourceTree::~SourceTree() {
  if (m_root.empty()) return;
  std::error_code ignored;
  fs::remove_all(m_root, ignored);
}

Status SourceTree::write(const std::string& relative, std::string_view text) {
  const fs::path path(relative);
  if (!format::is_tree_path(relative)) {
    return Error{"carried file '" + relative + "' is not a relative path inside the source tree"};
  }
  std::error_code ec;
  fs::create_directories((m_root / path).parent_path(), ec);
  std::ofstream out(m_root / path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out.flush()) return Error{"cannot write carried file " + (m_root / path).string() + ": " + std::strerror(errno)};
  return Ok{};
}

std::string SourceTree::path_of(const std::string& relative) const {
  return relative.empty() || relative == "." ? m_root.string() : (m_root / relative).lexically_normal().string();
}

std::string SourceTree::relative_paths_in(std::string text) const {
  const std::string root = m_root.string() + "/";
  for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) text.erase(at, root.size());
  return text;
}

}  // namespace kiln::rtc
