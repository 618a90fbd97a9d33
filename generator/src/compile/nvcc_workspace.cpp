#include "compile/nvcc_workspace.hpp"

#include "compile/compile_job.hpp"
#include "util/plain_names.hpp"
#include "util/scratch_dir.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// What follows `prefix` in `path`, compared component by component as written: "w/link/../h.cuh"
// under "w/link" is "../h.cuh" (the link is followed before the "..", as the kernel resolves it).
std::optional<fs::path> after_prefix(const fs::path& path, const fs::path& prefix) {
  auto at = path.begin();
  for (const fs::path& part : prefix) {
    if (at == path.end() || *at != part) return std::nullopt;
    ++at;
  }
  fs::path rest;
  for (; at != path.end(); ++at) rest /= *at;
  return rest;
}

// Replaces each `from` in `text` that starts a path (at the text's start, or after a space, a quote,
// a paren or a line break) with `to`.
void replace_path_prefix(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    const bool starts = at == 0 || std::strchr(" \t\n\"'(`", text[at - 1]) != nullptr;
    if (!starts) {
      at += from.size();
      continue;
    }
    text.replace(at, from.size(), to);
    at += to.size();
  }
}

}  // namespace

Result<NvccWorkspace> NvccWorkspace::create(const CompileJob& job) {
  std::error_code ec;
  const fs::path root = fs::absolute(job.root, ec).lexically_normal();
  if (ec) return Error{"cannot resolve " + job.root.string() + ": " + ec.message()};
  fs::path directory = fs::absolute(job.work_dir, ec).lexically_normal();
  if (!ec && is_plain_name(directory.string())) {
    fs::create_directories(directory, ec);
    if (ec) return Error{"cannot create " + directory.string() + ": " + ec.message()};
  } else {
    // A work directory outside a build (the build's scratch is plain: util/scratch_dir.hpp) whose path
    // a shell would read into: nvcc works in the temporary directory.
    const std::optional<fs::path> tmp = plain_temporary_directory();
    if (!tmp) return Error{"nvcc needs a working directory whose path a shell reads as it is, and neither "
                           "$TMPDIR nor /tmp is one"};
    std::string pattern = (*tmp / "kiln-nvcc-XXXXXX").string();
    if (!mkdtemp(pattern.data())) return Error{"cannot create a directory in " + tmp->string() + ": " + std::strerror(errno)};
    directory = pattern;
  }
  fs::create_directories(directory / "tmp", ec);
  if (ec) return Error{"cannot create " + (directory / "tmp").string() + ": " + ec.message()};
  const fs::path working = is_plain_name(root.string()) ? root : directory;
  return NvccWorkspace(directory, working, root);
}

NvccWorkspace::NvccWorkspace(fs::path directory, fs::path working_directory, fs::path root)
    : m_directory(std::move(directory)), m_working_directory(std::move(working_directory)), m_root(std::move(root)) {}

NvccWorkspace::NvccWorkspace(NvccWorkspace&& other) noexcept
    : m_directory(std::exchange(other.m_directory, {})),
      m_working_directory(std::move(other.m_working_directory)),
      m_root(std::move(other.m_root)),
      m_links(std::move(other.m_links)) {}

NvccWorkspace::~NvccWorkspace() {
  std::error_code ignored;
  if (!m_directory.empty()) fs::remove_all(m_directory, ignored);
}

std::string NvccWorkspace::own(const std::string& name) const {
  return m_working_directory == m_directory ? name : (m_directory / name).string();
}

Result<std::string> NvccWorkspace::name_for(const fs::path& path) {
  const std::string written = path.generic_string();
  const bool in_root = m_working_directory == m_root;
  if (is_plain_name(written) && (path.is_absolute() || in_root)) return written;
  const fs::path target = (path.is_absolute() ? path : m_root / path).lexically_normal();
  for (const Link& link : m_links)
    if (link.target == target) return own(link.name);
  Link link{"kiln-link-" + std::to_string(m_links.size()), target, written};
  std::error_code ec;
  fs::create_symlink(target, m_directory / link.name, ec);
  if (ec) return Error{"cannot link " + (m_directory / link.name).string() + " to " + target.string() + ": " + ec.message()};
  m_links.push_back(std::move(link));
  return own(m_links.back().name);
}

std::optional<fs::path> NvccWorkspace::project_path(const std::string& named) const {
  const fs::path path = fs::path(named).is_absolute() ? fs::path(named) : m_working_directory / named;
  for (const Link& link : m_links)
    if (const std::optional<fs::path> rest = after_prefix(path, m_directory / link.name))
      return rest->empty() ? link.target : (link.target / *rest).lexically_normal();
  if (after_prefix(path.lexically_normal(), m_directory)) return std::nullopt;
  return path.lexically_normal();
}

std::string NvccWorkspace::unlinked(std::string log) const {
  for (const Link& link : m_links) {
    // With the slash: kiln-link-1/ is not a prefix of kiln-link-10/. The root itself ("."): no prefix.
    const std::string to = link.as_written == "." ? "" : link.as_written + "/";
    replace_path_prefix(log, (m_directory / link.name).string() + "/", to);
    if (m_working_directory == m_directory) replace_path_prefix(log, link.name + "/", to);
  }
  return log;
}

}  // namespace kiln::compile
