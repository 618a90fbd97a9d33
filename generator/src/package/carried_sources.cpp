#include "package/carried_sources.hpp"

#include "compile/jit_safe_headers.hpp"
#include "options/carried_rules.hpp"
#include "util/file_io.hpp"

namespace kiln::package {

namespace fs = std::filesystem;

namespace {

// Where files and include directories go in the carried tree.
class TreeMap {
public:
  TreeMap(fs::path root, const NamedRoots& roots) : m_root(std::move(root)), m_roots(roots) {}

  // The tree path of `absolute`, or nothing when it lies outside everything the tree holds.
  std::optional<std::string> file(const fs::path& absolute) const {
    if (std::optional<std::string> named = in_named_root(m_roots.tokenize(absolute))) return named;
    if (std::optional<std::string> inside = relative_to(absolute, m_root)) return inside;
    for (std::size_t k = 0; k < m_outside.size(); ++k)
      if (std::optional<std::string> inside = relative_to(absolute, m_outside[k]))
        return "_include" + std::to_string(k) + "/" + *inside;
    return std::nullopt;
  }

  // The tree directory of an include directory (absolute), which is registered if outside the tree.
  std::string directory(const fs::path& absolute) {
    if (std::optional<std::string> named = in_named_root(m_roots.tokenize(absolute))) return *named;
    if (absolute == m_root) return ".";
    if (std::optional<std::string> inside = relative_to(absolute, m_root)) return *inside;
    for (std::size_t k = 0; k < m_outside.size(); ++k)
      if (m_outside[k] == absolute) return "_include" + std::to_string(k);
    m_outside.push_back(absolute);
    return "_include" + std::to_string(m_outside.size() - 1);
  }

private:
  // The toolkit's files go under "_cuda/", the build directory's under "_build/", Kiln's under "_kiln/".
  static std::optional<std::string> in_named_root(const std::string& token) {
    for (const std::string_view name : {"cuda", "build", "kiln"}) {
      const std::string named = "<" + std::string(name) + ">";
      if (token == named) return "_" + std::string(name);
      if (token.starts_with(named + "/")) return "_" + std::string(name) + token.substr(named.size());
    }
    return std::nullopt;
  }
  static std::optional<std::string> relative_to(const fs::path& path, const fs::path& dir) {
    const fs::path relative = path.lexically_relative(dir);
    if (relative.empty() || *relative.begin() == ".." || relative == ".") return std::nullopt;
    return relative.generic_string();
  }
  fs::path m_root;
  const NamedRoots& m_roots;
  std::vector<fs::path> m_outside;   // include directories outside the tree, in order
};

Result<std::string> read_text(const fs::path& path) {
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return bytes.error();
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

// The file NVRTC pre-included for `value`: an absolute path as it is; a relative one under the
// working directory of the build's compile (the manifest's directory), else under the first include
// directory that has it.
fs::path pre_included(const std::string& value, const fs::path& root, const std::vector<fs::path>& include_dirs) {
  const fs::path path(value);
  if (path.is_absolute()) return path.lexically_normal();
  std::error_code ec;
  if (fs::is_regular_file(root / path, ec)) return (root / path).lexically_normal();
  for (const fs::path& dir : include_dirs)
    if (fs::is_regular_file(dir / path, ec)) return (dir / path).lexically_normal();
  return (root / path).lexically_normal();
}

// Where a carried unit's tree holds Kiln's JIT-safe headers (compile/jit_safe_headers.hpp).
constexpr const char* k_jit_safe_dir = "_kiln_jit_safe";

// "mylib::block_sum<float, 256>" -> "mylib::block_sum".
std::string template_name(const std::string& expression) {
  std::string name = expression.substr(0, expression.find('<'));
  while (!name.empty() && name.back() == ' ') name.pop_back();
  return name;
}

}  // namespace

Result<CarriedOrWhy> carry_unit_sources(const plan::PlannedUnit& unit, const std::set<std::string>& headers,
                                        const fs::path& root_path, const compile::Toolkit& toolkit,
                                        const NamedRoots& roots) {
  CarriedOrWhy out;
  if (!unit.members.empty()) {
    out.why_not = "it is in link group '" + unit.name + "', whose kernels only a device link makes";
    return out;
  }
  if (unit.compiler == compile::Compiler::nvcc) {
    out.why_not = "nvcc compiles it (it has host code, or NVRTC rejected it), and the runtime compiles with NVRTC";
    return out;
  }
  const fs::path root = fs::absolute(root_path).lexically_normal();
  TreeMap tree(root, roots);
  format::PackageCarriedUnit carried;
  carried.unit_source = unit.name;
  carried.nvrtc_version = toolkit.nvrtc_version();
  // -I options become directories of the tree, in order; a pre-include names its file in the tree;
  // the rest are kept as the build gave them.
  std::vector<fs::path> include_dirs;
  for (const std::string& option : unit.nvrtc_options) {
    if (option.rfind("-I", 0) == 0 && option.size() > 2) {
      const fs::path dir(option.substr(2));
      include_dirs.push_back((dir.is_absolute() ? dir : root / dir).lexically_normal());
      carried.include_dirs.push_back(tree.directory(include_dirs.back()));
    } else if (const std::optional<std::string> header = options::pre_include_value(option)) {
      const fs::path file = pre_included(*header, root, include_dirs);
      const std::optional<std::string> in_tree = tree.file(file);
      if (!in_tree) {
        out.why_not = "it pre-includes " + file.string() + ", which is neither under the manifest's directory, the "
                      "toolkit nor an include directory";
        return out;
      }
      carried.options.push_back("--pre-include=" + *in_tree);
    } else {
      carried.options.push_back(option);
    }
  }
  // Kiln's JIT-safe headers, which the build gave NVRTC last on its include path, travel as files of
  // the tree: the runtime's NVRTC reads the same ones.
  if (unit.jit_safe_headers) {
    for (const compile::JitSafeHeader& header : compile::jit_safe_headers())
      carried.headers.push_back({std::string(k_jit_safe_dir) + "/" + header.name, header.text});
    carried.include_dirs.push_back(k_jit_safe_dir);
  }
  carried.link_options = unit.link_options;
  const fs::path source_path = (root / unit.source).lexically_normal();
  std::optional<std::string> source_in_tree = tree.file(source_path);
  if (!source_in_tree) {
    out.why_not = "it lies outside the manifest's directory";
    return out;
  }
  Result<std::string> source = read_text(source_path);
  if (!source) return source.error();
  carried.source = {std::move(*source_in_tree), std::move(*source)};
  for (const std::string& header : headers) {
    const fs::path path(header);
    const fs::path absolute = (path.is_absolute() ? path : root / path).lexically_normal();
    std::optional<std::string> in_tree = tree.file(absolute);
    if (!in_tree) {
      out.why_not = "it reads " + absolute.string() + ", which is neither under the manifest's directory, the "
                    "toolkit nor an include directory";
      return out;
    }
    Result<std::string> text = read_text(absolute);
    if (!text) return text.error();
    carried.headers.push_back({std::move(*in_tree), std::move(*text)});
  }
  std::set<std::string> names(unit.kernel_names.begin(), unit.kernel_names.end());
  for (const plan::PlannedName& k : unit.kernels) names.insert(template_name(k.expression));
  names.erase("");
  carried.kernel_templates.assign(names.begin(), names.end());
  out.carried = std::move(carried);
  return out;
}

}  // namespace kiln::package
