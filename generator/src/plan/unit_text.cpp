#include "plan/unit_text.hpp"

#include "plan/text_discovery.hpp"
#include "platform/files.hpp"
#include "util/file_io.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace kiln::plan {

namespace fs = std::filesystem;

namespace {

// A manifest's include directory as a path: relative to the root; a toolkit or Kiln token (<cuda>,
// <build>, <kiln>) is not the project's, and gives nothing.
std::optional<fs::path> project_dir(const fs::path& root, const std::string& dir) {
  if (dir.empty() || dir.front() == '<') return std::nullopt;
  return (root / dir).lexically_normal();
}

}  // namespace

std::vector<IncludedFile> included_files(std::string_view code) {
  std::vector<IncludedFile> found;
  std::size_t line_start = 0;
  while (line_start < code.size()) {
    std::size_t line_end = code.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = code.size();
    std::string_view line = code.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string_view::npos || line[at] != '#') continue;
    at = line.find_first_not_of(" \t", at + 1);
    if (at == std::string_view::npos || !line.substr(at).starts_with("include")) continue;
    at = line.find_first_not_of(" \t", at + 7);
    if (at == std::string_view::npos || (line[at] != '"' && line[at] != '<')) continue;   // #include_next, MACRO
    const bool quoted = line[at] == '"';
    const std::size_t end = line.find(quoted ? '"' : '>', at + 1);
    if (end == std::string_view::npos || end == at + 1) continue;
    found.push_back({std::string(line.substr(at + 1, end - at - 1)), quoted});
  }
  return found;
}

ProjectText::ProjectText(const manifest::Manifest& manifest) : m_manifest(manifest) {
  for (const std::string& dir : manifest.include_dirs)
    if (std::optional<fs::path> path = project_dir(manifest.root, dir)) m_include_dirs.push_back(std::move(*path));
}

std::optional<UnitTextFacts> ProjectText::facts_of(const manifest::SourceEntry& source) {
  const fs::path source_file = (m_manifest.root / source.path).lexically_normal();
  const std::optional<std::string> text = read_text_file(source_file);
  if (!text) return std::nullopt;
  const std::string code = code_only(*text);
  UnitTextFacts facts{.host_code = looks_like_host_code(code), .kiln_runtime = uses_kiln_runtime(code)};

  std::vector<fs::path> dirs = m_include_dirs;
  for (const std::string& dir : source.include_dirs)
    if (std::optional<fs::path> path = project_dir(m_manifest.root, dir)) dirs.push_back(std::move(*path));

  std::vector<std::pair<IncludedFile, fs::path>> pending;   // an include and the file it is written in
  for (IncludedFile& include : included_files(code)) pending.emplace_back(std::move(include), source_file);
  std::set<fs::path> reached{source_file};
  while (!pending.empty()) {
    const auto [include, includer] = std::move(pending.back());
    pending.pop_back();
    const fs::path header = find(include, includer, dirs);
    if (header.empty() || !reached.insert(header).second) continue;
    const FileFacts& file = file_facts(header);
    if (!file.read) {
      facts.complete = false;
      continue;
    }
    facts.host_code = facts.host_code || file.host_code;
    facts.kiln_runtime = facts.kiln_runtime || file.kiln_runtime;
    for (const IncludedFile& next : file.includes) pending.emplace_back(next, header);
  }
  return facts;
}

const ProjectText::FileFacts& ProjectText::file_facts(const fs::path& file) {
  if (const auto known = m_files.find(file); known != m_files.end()) return known->second;
  static const FileFacts k_unread;
  if (m_files.size() >= k_most_project_headers || m_bytes_read >= k_most_project_header_bytes) return k_unread;
  FileFacts& facts = m_files[file];
  // Never waits on a FIFO nor reads a device: only a regular file of a header's size is read.
  const Result<std::vector<std::byte>> bytes =
      read_regular_file(file, std::min(k_largest_project_header, k_most_project_header_bytes - m_bytes_read), true);
  if (!bytes) return facts;
  m_bytes_read += bytes->size();
  const std::string code = code_only(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  facts.read = true;
  facts.host_code = looks_like_host_code(code);
  facts.kiln_runtime = uses_kiln_runtime(code);
  facts.includes = included_files(code);
  return facts;
}

fs::path ProjectText::find(const IncludedFile& include, const fs::path& includer,
                           const std::vector<fs::path>& dirs) const {
  const auto found = [&](const fs::path& candidate) {
    platform::FileStatus status;
    // A directory of that name is not the header: the search goes on, as the preprocessor's does.
    return platform::status_of(candidate, status) && !status.is_directory;
  };
  if (include.quoted) {
    if (fs::path beside = (includer.parent_path() / include.name).lexically_normal(); found(beside)) return beside;
  }
  for (const fs::path& dir : dirs)
    if (fs::path in_dir = (dir / include.name).lexically_normal(); found(in_dir)) return in_dir;
  return {};
}

}  // namespace kiln::plan
