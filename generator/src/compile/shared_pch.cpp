#include "compile/shared_pch.hpp"

#include "util/file_io.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <map>
#include <set>
#include <sstream>

namespace kiln::compile {

namespace {

// The source's text, or nothing when it cannot be read (the job then shares no PCH; its compile
// reports the error).
std::optional<std::string> read_source(const std::filesystem::path& path) {
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

bool shares_pch(const CompileJob& job) {
  return job.compiler == Compiler::nvrtc && job.members.empty() && !job.relocatable;
}

}  // namespace

bool shared_pch_enabled() {
  const char* value = std::getenv("KILN_NVRTC_PCH");
  return !value || std::string(value) != "0";
}

std::string leading_directives(const std::string& source) {
  std::string directives;
  std::istringstream lines(source);
  std::string line;
  bool in_comment = false;
  while (std::getline(lines, line)) {
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (in_comment) {
      in_comment = line.find("*/") == std::string::npos;
      continue;
    }
    if (first == std::string::npos || line.compare(first, 2, "//") == 0) continue;
    if (line.compare(first, 2, "/*") == 0) {
      in_comment = line.find("*/", first + 2) == std::string::npos;
      continue;
    }
    if (line[first] != '#') break;
    directives += line.substr(first) + "\n";
  }
  return directives;
}

std::vector<std::vector<std::size_t>> plan_shared_pch(const std::vector<CompileJob>& jobs, int parallel, bool enabled) {
  // Group key -> the group's jobs in job order; jobs of no group are groups of one.
  std::map<std::string, std::size_t> group_of_key;
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const CompileJob& job = jobs[i];
    std::optional<std::string> text;
    if (enabled && shares_pch(job)) text = read_source(job.root / job.source);
    const std::string directives = text ? leading_directives(*text) : std::string();
    if (directives.empty()) {
      groups.push_back({i});
      continue;
    }
    std::string key = job.root.string() + '\0' + job.target + '\0';
    for (const std::string& option : job.nvrtc_options) key += option + '\0';
    key += directives;
    const auto [it, added] = group_of_key.emplace(std::move(key), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  const std::size_t slots = parallel < 1 ? 1 : static_cast<std::size_t>(parallel);
  std::vector<std::vector<std::size_t>> batches;
  for (const std::vector<std::size_t>& group : groups) {
    // The group's share of the processes, and never a batch of one (it would make a PCH for nothing).
    const std::size_t share = (slots * group.size() + jobs.size() - 1) / jobs.size();
    const std::size_t pieces = std::max<std::size_t>(1, std::min(share, group.size() / 2));
    for (std::size_t p = 0; p < pieces; ++p) {
      const std::size_t begin = group.size() * p / pieces, end = group.size() * (p + 1) / pieces;
      batches.emplace_back(group.begin() + static_cast<std::ptrdiff_t>(begin), group.begin() + static_cast<std::ptrdiff_t>(end));
    }
  }
  std::stable_sort(batches.begin(), batches.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return batches;
}

std::vector<std::string> with_seed_headers(const std::vector<std::string>& seed, const std::vector<std::string>& headers) {
  const std::set<std::string> own(headers.begin(), headers.end());
  std::vector<std::string> merged;
  for (const std::string& header : seed)
    if (!own.contains(header)) merged.push_back(header);
  merged.insert(merged.end(), headers.begin(), headers.end());
  return merged;
}

}  // namespace kiln::compile
