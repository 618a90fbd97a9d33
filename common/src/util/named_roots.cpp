#include "util/named_roots.hpp"

#include <algorithm>
#include <cctype>

namespace kiln {

namespace fs = std::filesystem;

namespace {

std::string normal(const fs::path& dir) {
  if (dir.empty()) return {};
  std::string text = fs::absolute(dir).lexically_normal().generic_string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

// Where a directory's name ends in text: a path goes on with '/', and ends at a quote, a space, a
// message's ':' or ')' or the like.
bool ends_directory(const std::string& text, std::size_t at) {
  if (at >= text.size()) return true;
  static constexpr std::string_view k_ends = "/:\"'`) \t\r\n,;]}>";
  return k_ends.find(text[at]) != std::string_view::npos;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

}  // namespace

std::vector<NamedRoots::Named> NamedRoots::named() const {
  std::vector<Named> out;
  const std::string project = normal(root);
  for (const auto& [name, dir] : {std::pair{"<root>", &root}, std::pair{"<build>", &build},
                                  std::pair{"<kiln>", &kiln}, std::pair{"<cuda>", &cuda}}) {
    std::string path = normal(*dir);
    // "/" would hold every path: no root is that wide.
    if (path.size() <= 1) continue;
    // A build directory that holds the project (an in-source build, or an output above the
    // project) names nothing of its own: the project's paths stay relative to the project.
    if (dir == &build && (project == path || project.starts_with(path + "/"))) continue;
    out.push_back({name, std::move(path)});
  }
  // Innermost first; between equal roots, the order above.
  std::stable_sort(out.begin(), out.end(), [](const Named& a, const Named& b) { return a.path.size() > b.path.size(); });
  return out;
}

std::string NamedRoots::tokenize(const fs::path& path) const {
  if (!path.is_absolute()) return path.generic_string();
  const std::string text = path.lexically_normal().generic_string();
  for (const Named& n : named()) {
    if (!text.starts_with(n.path)) continue;
    if (text.size() == n.path.size()) return std::string(n.name);
    if (text[n.path.size()] != '/') continue;
    std::string rest = text.substr(n.path.size() + 1);
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    return rest.empty() ? std::string(n.name) : std::string(n.name) + "/" + rest;
  }
  return text;
}

fs::path NamedRoots::expand(std::string_view recorded) const {
  for (const auto& [name, dir] : {std::pair{std::string_view("<root>"), &root}, std::pair{std::string_view("<build>"), &build},
                                  std::pair{std::string_view("<kiln>"), &kiln}, std::pair{std::string_view("<cuda>"), &cuda}}) {
    if (!recorded.starts_with(name)) continue;
    std::string_view rest = recorded.substr(name.size());
    if (!rest.empty() && rest.front() != '/') continue;
    while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    return rest.empty() ? *dir : *dir / rest;
  }
  return fs::path(recorded);
}

std::string NamedRoots::tokenize_text(std::string text) const {
  for (const Named& n : named()) {
    std::size_t at = text.find(n.path);
    while (at != std::string::npos) {
      if (!ends_directory(text, at + n.path.size())) {
        at = text.find(n.path, at + 1);
        continue;
      }
      text.replace(at, n.path.size(), n.name);
      at = text.find(n.path, at + n.name.size());
    }
  }
  return text;
}

std::string NamedRoots::expand_text(std::string text) const {
  for (const Named& n : named()) {
    std::size_t at = text.find(n.name);
    while (at != std::string::npos) {
      const std::size_t end = at + n.name.size();
      const bool path_follows = end < text.size() && text[end] == '/';
      const bool stands_alone = ends_directory(text, end) && (at == 0 || !identifier_char(text[at - 1]));
      if (!path_follows && !stands_alone) {
        at = text.find(n.name, end);
        continue;
      }
      text.replace(at, n.name.size(), n.path);
      at = text.find(n.name, at + n.path.size());
    }
  }
  return text;
}

}  // namespace kiln
