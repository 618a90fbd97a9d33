#include "plan/unit_text.hpp"

#include "options/option_reader.hpp"
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

// Whether an include directory or an option lets the compiler read headers the walk does not follow:
// a token directory other than the toolkit's and Kiln's (<build>: headers the build generates), or an
// option, read by Kiln's option table as the compile reads it, that includes a header before the
// source (--pre-include, -include) or adds a search directory (manifests refuse -I, but the walk does
// not rely on it); an option the table cannot read may do either.
bool reaches_unwalked_headers(const std::vector<std::string>& include_dirs, const std::vector<std::string>& options) {
  for (const std::string& dir : include_dirs)
    if (dir.starts_with('<') && !dir.starts_with("<cuda>") && !dir.starts_with("<kiln>")) return true;
  for (std::size_t at = 0; at < options.size();) {
    options::OptionProblem problem;
    const std::optional<options::ReadOption> read = options::read_option(options, at, problem);
    if (!read) return true;
    if (read->spec->scan == options::Scan::pre_include || read->spec->name == "include-path") return true;
    at += read->strings;
  }
  return false;
}

// How many lines of `code` are #include directives, found or not: more than include_directives reads
// means one is computed (#include MACRO) or spelt another way (#include_next).
std::size_t include_lines(std::string_view code) {
  std::size_t count = 0;
  for (std::size_t start = 0; start < code.size();) {
    std::size_t end = code.find('\n', start);
    if (end == std::string_view::npos) end = code.size();
    std::string_view line = code.substr(start, end - start);
    const std::size_t hash = line.find_first_not_of(" \t");
    if (hash != std::string_view::npos && line[hash] == '#') {
      line.remove_prefix(hash + 1);
      const std::size_t word = line.find_first_not_of(" \t");
      if (word != std::string_view::npos && line.substr(word).starts_with("include")) ++count;
    }
    start = end + 1;
  }
  return count;
}

}  // namespace

ProjectText::ProjectText(const manifest::Manifest& manifest, const fs::path& cuda_root) : m_manifest(manifest) {
  for (const std::string& dir : manifest.include_dirs)
    if (std::optional<fs::path> path = project_dir(manifest.root, dir)) m_include_dirs.push_back(std::move(*path));
  // nvcc searches its own include directory for every unit; the CCCL one is the manifest's choice.
  if (!cuda_root.empty()) m_toolkit_dirs.push_back(cuda_root / "include");
  if (!cuda_root.empty() && manifest.toolkit_includes) m_toolkit_dirs.push_back(cuda_root / "include" / "cccl");
}

std::optional<UnitTextFacts> ProjectText::facts_of(const manifest::SourceEntry& source) {
  const fs::path source_file = (m_manifest.root / source.path).lexically_normal();
  const std::optional<std::string> text = read_text_file(source_file);
  if (!text) return std::nullopt;
  const std::string code = code_only(*text);
  UnitTextFacts facts{.host_code = looks_like_host_code(code),
                      .kiln_runtime = uses_kiln_runtime(code),
                      .templates = shows_templates(code),
                      .device_variables = shows_device_variables(code)};
  facts.unseen_headers = reaches_unwalked_headers(m_manifest.include_dirs, m_manifest.options) ||
                         reaches_unwalked_headers(source.include_dirs, source.options);

  std::vector<fs::path> dirs = m_include_dirs;
  for (const std::string& dir : source.include_dirs)
    if (std::optional<fs::path> path = project_dir(m_manifest.root, dir)) dirs.push_back(std::move(*path));

  std::vector<std::pair<scan::detail::IncludeDirective, fs::path>> pending;   // an include and the file it is in
  std::vector<scan::detail::IncludeDirective> own = scan::detail::include_directives(code);
  facts.unseen_headers = facts.unseen_headers || include_lines(code) > own.size();
  for (scan::detail::IncludeDirective& include : own) pending.emplace_back(std::move(include), source_file);
  std::set<fs::path> reached{source_file};
  while (!pending.empty()) {
    const auto [include, includer] = std::move(pending.back());
    pending.pop_back();
    const fs::path header = find(include, includer, dirs);
    // A quoted name that neither the project nor the toolkit holds is found elsewhere (a -I
    // directory): what it holds is not seen. An angled one is taken for the toolkit's or the system's.
    if (header.empty() && !include.angled && find({include.name, true}, includer, m_toolkit_dirs).empty())
      facts.unseen_headers = true;
    if (header.empty() || !reached.insert(header).second) continue;
    const FileFacts& file = file_facts(header);
    if (!file.read) {
      facts.complete = false;
      continue;
    }
    facts.host_code = facts.host_code || file.host_code;
    facts.kiln_runtime = facts.kiln_runtime || file.kiln_runtime;
    facts.unseen_headers = facts.unseen_headers || file.computed_includes;
    facts.templates = facts.templates || file.templates;
    facts.device_variables = facts.device_variables || file.device_variables;
    for (const scan::detail::IncludeDirective& next : file.includes) pending.emplace_back(next, header);
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
  facts.templates = shows_templates(code);
  facts.device_variables = shows_device_variables(code);
  facts.includes = scan::detail::include_directives(code);
  facts.computed_includes = include_lines(code) > facts.includes.size();
  return facts;
}

fs::path ProjectText::find(const scan::detail::IncludeDirective& include, const fs::path& includer,
                           const std::vector<fs::path>& dirs) const {
  const auto found = [&](const fs::path& candidate) {
    platform::FileStatus status;
    // A directory of that name is not the header: the search goes on, as the preprocessor's does.
    return platform::status_of(candidate, status) && !status.is_directory;
  };
  if (!include.angled) {
    if (fs::path beside = (includer.parent_path() / include.name).lexically_normal(); found(beside)) return beside;
  }
  for (const fs::path& dir : dirs)
    if (fs::path in_dir = (dir / include.name).lexically_normal(); found(in_dir)) return in_dir;
  return {};
}

}  // namespace kiln::plan
