#include "plan/nvrtc_reach.hpp"

#include "util/file_io.hpp"

#include <regex>
#include <set>
#include <system_error>
#include <vector>

namespace kiln::plan {

namespace fs = std::filesystem;

namespace {

// Where `name` is found from `includer`: next to it for a quoted include, then in `dirs`.
std::optional<fs::path> find_header(const std::string& name, bool quoted, const fs::path& includer,
                                    const std::vector<fs::path>& dirs) {
  std::error_code ec;
  if (quoted && fs::is_regular_file(includer.parent_path() / name, ec)) return (includer.parent_path() / name).lexically_normal();
  for (const fs::path& dir : dirs)
    if (fs::is_regular_file(dir / name, ec)) return (dir / name).lexically_normal();
  return std::nullopt;
}

}  // namespace

bool includes_beyond_nvrtc(const compile::CompileJob& nvrtc_job) {
  static const std::regex include_line(R"re(^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"])re", std::regex::multiline);
  std::vector<fs::path> dirs;
  for (const std::string& option : nvrtc_job.nvrtc_options)
    if (option.starts_with("-I") && option.size() > 2) dirs.push_back((nvrtc_job.root / option.substr(2)).lexically_normal());
  std::vector<fs::path> pending = {(nvrtc_job.root / nvrtc_job.source).lexically_normal()};
  std::set<fs::path> seen;
  // The project's own files are followed; the toolkit's (and any outside the tree) are NVRTC's to open.
  const fs::path root = nvrtc_job.root.lexically_normal();
  const auto in_project = [&](const fs::path& header) {
    const fs::path relative = header.lexically_relative(root);
    return !relative.empty() && *relative.begin() != "..";
  };
  while (!pending.empty() && seen.size() < 256) {
    const fs::path file = pending.back();
    pending.pop_back();
    if (!seen.insert(file).second) continue;
    const std::optional<std::string> text = read_text_file(file);
    if (!text) continue;
    for (auto it = std::sregex_iterator(text->begin(), text->end(), include_line); it != std::sregex_iterator(); ++it) {
      const std::optional<fs::path> found = find_header((*it)[2].str(), (*it)[1].str() == "\"", file, dirs);
      if (!found) return true;
      if (in_project(*found)) pending.push_back(*found);
    }
  }
  return false;
}

}  // namespace kiln::plan
