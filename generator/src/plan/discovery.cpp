#include "plan/discovery.hpp"

#include "plan/listed_names.hpp"
#include "plan/text_discovery.hpp"
#include "plan/unit_text.hpp"
#include "util/file_io.hpp"
#include "util/suggest.hpp"

#include "format/names.hpp"
#include "scan/unnamed_namespaces.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <tuple>

namespace kiln::plan {

namespace {

namespace fs = std::filesystem;

// NVRTC evaluates name expressions at global scope, where members of unnamed namespaces are visible
// without qualification: "(anonymous namespace)::table" (or "<unnamed>::table", as nvcc prints it)
// is asked for as "table".
std::string expression_for(std::string_view qualified_name) { return scan::without_unnamed_namespaces(qualified_name); }

// Two spellings of one qualified name compare equal: whitespace, a leading "::" and unnamed
// namespaces (in any spelling compilers print) aside.
std::string name_key(std::string_view name) {
  std::string key = format::normalize_name(scan::without_unnamed_namespaces(format::normalize_name(name)));
  if (key.starts_with("::")) key.erase(0, 2);
  return key;
}

// The written text when the expression had to differ from it, for PlannedName::written.
std::vector<std::string> written_if_different(const std::string& written, const std::string& expression) {
  if (format::normalize_name(written) == format::normalize_name(expression)) return {};
  return {written};
}

bool is_identifier(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front()))) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

compile::Origin origin_of(const scan::Location& location) { return {location.file, location.line}; }

bool same_place(const scan::Location& a, const scan::Location& b) {
  return a.file == b.file && a.line == b.line && a.column == b.column;
}

class Discoverer {
public:
  Discoverer(const manifest::Manifest& manifest, const std::vector<ScannedFile>& kernel_sources,
             const DiscoverySettings& settings)
      : m_manifest(manifest), m_kernel_sources(kernel_sources), m_settings(settings) {}

  Discovery run(const std::vector<ScannedFile>& host_sources) {
    for (const ScannedFile& file : m_kernel_sources) add_source(file);
    for (const manifest::SourceEntry& source : m_manifest.sources)
      for (const std::string& e : source.instantiations) m_instantiated.insert(name_key(template_name(e)));
    route_package_names();
    add_requests(host_sources);
    warn_uninstantiated();
    return std::move(m_out);
  }

private:
  void warn(const scan::Location& location, std::string message) {
    m_out.findings.push_back({shown_at(location, m_settings.display_prefix), std::move(message)});
  }

  bool is_toolkit_file(const std::string& file) const {
    if (m_settings.cuda_root.empty() || file.empty()) return false;
    const fs::path path = fs::path(file).is_absolute() ? fs::path(file) : m_settings.root / file;
    const fs::path relative = path.lexically_normal().lexically_relative(m_settings.cuda_root);
    return !relative.empty() && *relative.begin() != "..";
  }

  // A source the scan could not read says what it is by its unit's text (unit_text.hpp: the source
  // and its project headers): one that shows host code goes to nvcc at once, as the compiles while
  // the scan ran planned it, rather than to NVRTC first.
  bool text_shows_host_code(const std::string& path) {
    for (const manifest::SourceEntry& source : m_manifest.sources) {
      if (source.path != path) continue;
      if (const std::optional<UnitTextFacts> unit = m_project_text.facts_of(source); unit && unit->host_code) return true;
    }
    const std::optional<std::string> text = read_text_file(fs::path(path).is_absolute() ? fs::path(path) : m_settings.root / path);
    return text && looks_like_host_code(code_only(*text));
  }

  void add_source(const ScannedFile& file) {
    SourceDiscovery& found = m_out.sources[file.path];
    found.scan_failed = !file.result.ok();
    // A source left unread goes to the compiler its unit's text shows: nvcc for host code, else NVRTC.
    found.has_host_code = file.left_to_the_image ? text_shows_host_code(file.path)
                                                 : file.result.has_host_code ||
                                                       (found.scan_failed && text_shows_host_code(file.path));
    found.image_only = file.left_to_the_image;
    for (const scan::Instantiation& inst : file.result.instantiations) {
      m_instantiated.insert(name_key(inst.kernel));
      // A request the scanner resolved is added with its request, under the spelling it was written in.
      if (inst.found_by == scan::FoundBy::runtime_request) continue;
      found.kernels.push_back({.expression = inst.name_expression,
                               .origin = NameOrigin::discovered,
                               .where = origin_of(inst.location),
                               .symbol_form = inst.symbol_form,
                               .mangled_name = inst.mangled_name,
                               // Explicit instantiations, launches and addresses taken in the source:
                               // its compiler builds them whichever names a program asks for, unless
                               // the device pass does not see them (under an #if on __CUDA_ARCH__).
                               .in_source_text = !inst.under_arch_test});
    }
    for (const scan::Variable& v : file.result.variables) {
      if (is_toolkit_file(v.location.file)) continue;
      found.variables.push_back(variable_name(v, NameOrigin::discovered, expression_for(v.qualified_name), v.location));
    }
    // A template only declared here (defined in another source) is not this source's to instantiate.
    for (const scan::Kernel& k : file.result.kernels)
      if (k.defined && !is_toolkit_file(k.location.file)) found.kernel_names.push_back(k.qualified_name);
    for (const scan::Kernel& k : file.result.kernels)
      if (k.is_template && k.defined && !is_toolkit_file(k.location.file)) m_templates.push_back(&k);
  }

  PlannedName variable_name(const scan::Variable& v, NameOrigin origin, std::string expression,
                            const scan::Location& where) {
    PlannedName name{.expression = std::move(expression), .origin = origin, .where = origin_of(where),
                     .internal_linkage = v.internal_linkage};
    if (v.kind == scan::Variable::Kind::managed) {
      name.managed = true;
      name.symbol = variable_symbol(v.qualified_name);
    }
    return name;
  }

  // The kernel source that defines `key` (a kernel or variable): the one whose own file declares it,
  // else the first in manifest order that sees it (through a header). Nothing if none does.
  template <typename Has>
  const ScannedFile* unit_defining(const Has& has) const {
    const ScannedFile* first = nullptr;
    for (const ScannedFile& file : m_kernel_sources) {
      const std::optional<std::string> declared_in = has(file.result);
      if (!declared_in) continue;
      if (*declared_in == file.path) return &file;
      if (!first) first = &file;
    }
    return first;
  }

  void add_requests(const std::vector<ScannedFile>& host_sources) {
    std::vector<std::pair<const ScannedFile*, const scan::RuntimeRequest*>> requests;
    for (const auto* files : {&m_kernel_sources, &host_sources})
      for (const ScannedFile& file : *files)
        for (const scan::RuntimeRequest& r : file.result.requests) requests.emplace_back(&file, &r);
    // Sorted by place, so the order of --host-source flags does not change the package.
    std::sort(requests.begin(), requests.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first->path, a.second->location.line, a.second->location.column, a.second->name) <
             std::tie(b.first->path, b.second->location.line, b.second->location.column, b.second->name);
    });
    for (const auto& entry : requests) {
      if (entry.second->what == scan::RuntimeRequest::What::kernel) {
        add_kernel_request(*entry.second);
      } else {
        add_variable_request(*entry.second);
      }
    }
  }

  void add_kernel_request(const scan::RuntimeRequest& request) {
    // A kernel source that resolved the request (scan_source for its own requests, resolve_requests
    // for other files') holds an instantiation found by runtime_request at the request's place.
    const ScannedFile* unit = nullptr;
    std::string kernel = template_name(expression_for(request.name)), canonical, symbol_form, mangled_name;
    bool explained = false;   // the scanner said why the request does not resolve
    for (const ScannedFile& source : m_kernel_sources) {
      for (const scan::Instantiation& inst : source.result.instantiations) {
        if (inst.found_by == scan::FoundBy::runtime_request && same_place(inst.location, request.location) && !unit) {
          unit = &source;
          kernel = inst.kernel;
          canonical = inst.name_expression;
          symbol_form = inst.symbol_form;
          mangled_name = inst.mangled_name;
        }
      }
      for (const scan::Diagnostic& d : source.result.diagnostics) explained = explained || same_place(d.location, request.location);
    }
    const std::string key = name_key(kernel);
    bool names_template = false;
    if (!unit) {
      // Only a source that defines the kernel can build it: one that declares it (a header shared
      // with the source, or with another package's) would fail to compile or link the name.
      unit = unit_defining([&](const scan::ScanResult& r) -> std::optional<std::string> {
        for (const scan::Kernel& k : r.kernels)
          if (k.defined && name_key(k.qualified_name) == key) {
            names_template = names_template || k.is_template;
            return k.location.file;
          }
        return std::nullopt;
      });
    }
    if (!unit && another_shards_unscanned()) {
      ++m_out.left_to_the_merge;
      return;
    }
    if (!unit) {
      warn(request.location, "the runtime request for kernel '" + request.name +
                                 "' names no kernel of the kernel sources" + unscanned_note() +
                                 "; the package will not have it under this name");
      return;
    }
    if (canonical.empty() && names_template) {
      // A template the scanner could not instantiate as written: building it would only fail.
      if (!explained)
        warn(request.location, "the runtime request for kernel '" + request.name +
                                   "' names a kernel template but no instantiation of it; the package will not have it");
      return;
    }
    m_instantiated.insert(key);
    std::vector<PlannedName>& kernels = m_out.sources[unit->path].kernels;
    // Both spellings become names of the kernel: the canonical one as the scanner resolved it, the
    // written one so that the runtime finds the kernel exactly as the host code asks.
    if (!canonical.empty() && format::normalize_name(canonical) != format::normalize_name(request.name))
      kernels.push_back({.expression = canonical,
                         .origin = NameOrigin::discovered,
                         .where = origin_of(request.location),
                         .symbol_form = symbol_form,
                         .mangled_name = mangled_name});
    const std::string expression = expression_for(request.name);
    kernels.push_back({.expression = expression,
                       .origin = NameOrigin::request,
                       .where = origin_of(request.location),
                       .canonical = canonical,
                       .symbol_form = symbol_form,
                       .mangled_name = mangled_name,
                       .written = written_if_different(request.name, expression)});
  }

  void add_variable_request(const scan::RuntimeRequest& request) {
    const std::string key = name_key(request.name);
    const ScannedFile* unit = unit_defining([&](const scan::ScanResult& r) -> std::optional<std::string> {
      for (const scan::Variable& v : r.variables)
        if (name_key(v.qualified_name) == key) return v.location.file;
      return std::nullopt;
    });
    if (!unit && another_shards_unscanned()) {
      ++m_out.left_to_the_merge;
      return;
    }
    if (!unit) {
      warn(request.location, "the runtime request for variable '" + request.name +
                                 "' names no variable of the kernel sources" + unscanned_note() +
                                 "; the package will not have it under this name");
      return;
    }
    const scan::Variable* variable = nullptr;
    for (const scan::Variable& v : unit->result.variables)
      if (!variable && name_key(v.qualified_name) == key) variable = &v;
    PlannedName name = variable_name(*variable, NameOrigin::request, expression_for(request.name), request.location);
    name.written = written_if_different(request.name, name.expression);
    m_out.sources[unit->path].variables.push_back(std::move(name));
  }

  // The manifest's top-level names, each to every source whose code defines what it names (a kernel
  // template or kernel; a variable), its base ("ns::k" of "ns::k<float, 4>") matched as requests
  // are. Every source that defines it, not one chosen among them: a source's share depends on its
  // own scan alone, so a shard, which scans only its units' sources, sends each name where the whole
  // build does; a template instantiated by two units is one kernel of the package
  // (package/assemble.cpp). With one source file, every name is its (nothing to choose, scanned or not).
  void route_package_names() {
    std::set<std::string> paths;
    for (const manifest::SourceEntry& source : m_manifest.sources) paths.insert(source.path);
    for (std::size_t i = 0; i < m_manifest.instantiations.size(); ++i) {
      const std::string& name = m_manifest.instantiations[i];
      const manifest::Position at = i < m_manifest.instantiation_positions.size() ? m_manifest.instantiation_positions[i]
                                                                                : manifest::Position{};
      const compile::Origin origin = listed_origin(m_manifest, NameList::instantiate, nullptr, name, at);
      const std::string key = name_key(template_name(expression_for(name)));
      m_instantiated.insert(key);
      const std::set<std::string> definers = paths.size() == 1 ? paths : paths_defining([&](const scan::ScanResult& r) {
        return std::any_of(r.kernels.begin(), r.kernels.end(), [&](const scan::Kernel& k) {
          return k.defined && name_key(k.qualified_name) == key;
        });
      });
      if (definers.empty()) {
        nothing_defines(origin, NameList::instantiate, name, template_name(name), kernel_candidates());
        continue;
      }
      for (const std::string& path : definers)
        m_out.sources[path].package_kernels.push_back({.expression = name, .origin = NameOrigin::manifest, .where = origin});
    }
    for (std::size_t i = 0; i < m_manifest.variables.size(); ++i) {
      const std::string& name = m_manifest.variables[i];
      const manifest::Position at = i < m_manifest.variable_positions.size() ? m_manifest.variable_positions[i]
                                                                             : manifest::Position{};
      const compile::Origin origin = listed_origin(m_manifest, NameList::variables, nullptr, name, at);
      const std::string key = name_key(name);
      const std::set<std::string> definers = paths.size() == 1 ? paths : paths_defining([&](const scan::ScanResult& r) {
        return std::any_of(r.variables.begin(), r.variables.end(),
                           [&](const scan::Variable& v) { return name_key(v.qualified_name) == key; });
      });
      if (definers.empty()) {
        nothing_defines(origin, NameList::variables, name, name, variable_candidates());
        continue;
      }
      // Each unit has its own copy of a variable two sources declare (a header's): which one the host
      // reads is the user's choice. A shard that sees one of them leaves the choice to the merge.
      if (definers.size() > 1) {
        m_out.errors.push_back({shown_origin(origin, m_settings.display_prefix),
                                listed_subject(origin, NameList::variables, name) + ": " + joined(definers) +
                                    " each declare it, each unit with its own copy; " +
                                    (m_manifest.cmake_call ? "set the source property KILN_VARIABLES on the one "
                                                             "whose copy the host reads"
                                                           : "list it in the 'variables' of the [[source]] whose copy "
                                                             "the host reads")});
        continue;
      }
      m_out.sources[*definers.begin()].package_variables.push_back(
          {.expression = expression_for(name), .origin = NameOrigin::manifest, .where = origin});
    }
  }

  template <typename Defines>
  std::set<std::string> paths_defining(const Defines& defines) const {
    std::set<std::string> paths;
    for (const ScannedFile& file : m_kernel_sources)
      if (defines(file.result)) paths.insert(file.path);
    return paths;
  }

  static std::string joined(const std::set<std::string>& paths) {
    std::string text;
    std::size_t i = 0;
    for (const std::string& path : paths) {
      if (i > 0) text += i + 1 == paths.size() ? " and " : ", ";
      text += "'" + path + "'";
      ++i;
    }
    return text;
  }

  std::vector<std::string> kernel_candidates() const {
    std::vector<std::string> names;
    for (const ScannedFile& file : m_kernel_sources)
      for (const scan::Kernel& k : file.result.kernels)
        if (k.defined && !is_toolkit_file(k.location.file)) names.push_back(k.qualified_name);
    return names;
  }

  std::vector<std::string> variable_candidates() const {
    std::vector<std::string> names;
    for (const ScannedFile& file : m_kernel_sources)
      for (const scan::Variable& v : file.result.variables)
        if (!is_toolkit_file(v.location.file)) names.push_back(expression_for(v.qualified_name));
    return names;
  }

  // A top-level name no scanned source defines: the merge's to judge in a shard; else an error that
  // says which sources could not be scanned (one may define it), or what the name most likely meant.
  void nothing_defines(const compile::Origin& origin, NameList list, const std::string& name, const std::string& base,
                       const std::vector<std::string>& candidates) {
    if (another_shards_unscanned()) {
      ++m_out.names_left_to_the_merge;
      return;
    }
    const bool kernel = list == NameList::instantiate;
    std::set<std::string> unscanned;
    for (const ScannedFile& file : m_kernel_sources)
      if (!file.result.ok() || file.left_to_the_image) unscanned.insert(file.path);
    std::string message = listed_subject(origin, list, name) + ": no kernel source defines " +
                          (kernel ? "a kernel or kernel template '" : "a variable '") + base + "'";
    if (!unscanned.empty()) {
      message += " that the scan could read (" + joined(unscanned) + " could not be scanned); " +
                 (m_manifest.cmake_call ? std::string(kernel ? "set the source property KILN_INSTANTIATE"
                                                             : "set the source property KILN_VARIABLES") +
                                              " on the source that defines it"
                                        : std::string("list it in the '") + (kernel ? "instantiate" : "variables") +
                                              "' of the [[source]] that defines it");
    } else {
      message += did_you_mean_name(base, candidates);
    }
    m_out.errors.push_back({shown_origin(origin, m_settings.display_prefix), std::move(message)});
  }

  // " (did you mean 'ns::scale'?)": a name given without its namespace, or misspelt.
  static std::string did_you_mean_name(const std::string& base, const std::vector<std::string>& candidates) {
    const std::string key = name_key(base);
    std::vector<std::string_view> views;
    for (const std::string& c : candidates) {
      const std::string qualified = name_key(c);
      if (qualified.ends_with("::" + key)) return " (did you mean '" + c + "'?)";
      views.push_back(c);
    }
    return did_you_mean(base, views);
  }

  // A shard scans only its units' kernel sources: what the others define, the merge knows.
  bool another_shards_unscanned() const {
    return std::any_of(m_kernel_sources.begin(), m_kernel_sources.end(),
                       [](const ScannedFile& file) { return file.another_shards; });
  }

  // Where a kernel source could not be scanned, a request may name one of its kernels all the same.
  std::string unscanned_note() const {
    std::size_t failed = 0;
    for (const ScannedFile& file : m_kernel_sources) failed += file.result.ok() ? 0 : 1;
    return failed == 0 ? "" : " that the scan could read (" + std::to_string(failed) + " could not be scanned)";
  }

  // A template that nothing instantiates compiles to nothing: say so instead of dropping it silently.
  void warn_uninstantiated() {
    std::set<std::tuple<std::string, std::string, int>> warned;
    for (const scan::Kernel* k : m_templates) {
      const std::string key = name_key(k->qualified_name);
      if (m_instantiated.count(key) || !warned.emplace(key, k->location.file, k->location.line).second) continue;
      warn(k->location, "kernel template '" + k->qualified_name +
                            "' is never instantiated: no launch, explicit instantiation, manifest entry or "
                            "runtime request names one, so the package has none of it");
    }
  }

  const manifest::Manifest& m_manifest;
  const std::vector<ScannedFile>& m_kernel_sources;
  const DiscoverySettings& m_settings;
  ProjectText m_own_text{m_manifest, m_settings.cuda_root};
  ProjectText& m_project_text = m_settings.project_text ? *m_settings.project_text : m_own_text;
  Discovery m_out;
  std::set<std::string> m_instantiated;         // name_key of every template with an instantiation
  std::vector<const scan::Kernel*> m_templates;  // every user kernel template seen
};

}  // namespace

Discovery discover(const manifest::Manifest& manifest, const std::vector<ScannedFile>& kernel_sources,
                   const std::vector<ScannedFile>& host_sources, const DiscoverySettings& settings) {
  return Discoverer(manifest, kernel_sources, settings).run(host_sources);
}

std::string variable_symbol(std::string_view qualified_name) {
  std::string_view rest = qualified_name;
  if (rest.starts_with("::")) rest.remove_prefix(2);
  std::vector<std::string_view> parts;
  for (std::size_t at = rest.find("::"); at != std::string_view::npos; at = rest.find("::")) {
    parts.push_back(rest.substr(0, at));
    rest.remove_prefix(at + 2);
  }
  parts.push_back(rest);
  for (const std::string_view part : parts)
    if (!is_identifier(part)) return "";
  if (parts.size() == 1) return std::string(parts.front());  // C++ does not mangle global variables
  std::string symbol = "_ZN";
  for (const std::string_view part : parts) symbol += std::to_string(part.size()) + std::string(part);
  return symbol + "E";
}

std::string template_name(std::string_view expression) {
  const std::size_t open = expression.find('<');
  std::string_view name = expression.substr(0, open);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.remove_suffix(1);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.front()))) name.remove_prefix(1);
  return std::string(name);
}

}  // namespace kiln::plan
