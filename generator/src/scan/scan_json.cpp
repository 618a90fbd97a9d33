#include "scan/scan_json.hpp"

#include "util/diagnostic.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cinttypes>
#include <cstdio>
#include <utility>

namespace kiln::scan {

using nlohmann::json;

namespace {

// Enum <-> string tables. The strings are the format: never change one, only append.
constexpr std::array<std::pair<FoundBy, std::string_view>, 5> k_found_by = {{
    {FoundBy::explicit_instantiation, "explicit_instantiation"},
    {FoundBy::explicit_specialization, "explicit_specialization"},
    {FoundBy::launch, "launch"},
    {FoundBy::address_taken, "address_taken"},
    {FoundBy::runtime_request, "runtime_request"},
}};
constexpr std::array<std::pair<TemplateParameter::Kind, std::string_view>, 3> k_parameter_kinds = {{
    {TemplateParameter::Kind::type, "type"},
    {TemplateParameter::Kind::non_type, "non_type"},
    {TemplateParameter::Kind::template_template, "template_template"},
}};
constexpr std::array<std::pair<RuntimeRequest::What, std::string_view>, 2> k_request_kinds = {{
    {RuntimeRequest::What::kernel, "kernel"},
    {RuntimeRequest::What::variable, "variable"},
}};
constexpr std::array<std::pair<Variable::Kind, std::string_view>, 3> k_variable_kinds = {{
    {Variable::Kind::device, "device"},
    {Variable::Kind::constant, "constant"},
    {Variable::Kind::managed, "managed"},
}};
constexpr std::array<std::pair<Diagnostic::Severity, std::string_view>, 2> k_severities = {{
    {Diagnostic::Severity::warning, "warning"},
    {Diagnostic::Severity::error, "error"},
}};

template <typename E, std::size_t N>
std::string name_of(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  for (const auto& [e, s] : table)
    if (e == value) return std::string(s);
  return "unknown";
}

json location_json(const Location& l) { return {{"file", l.file}, {"line", l.line}, {"column", l.column}}; }

std::string hex(std::uint64_t v) {
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016" PRIx64, v);
  return buffer;
}

std::string join(const std::string& path, const char* key) { return path.empty() ? key : path + "." + key; }

// Reads fields, remembering the first problem with its path; getters return defaults after one.
class Reader {
public:
  const json* field(const json& object, const std::string& path, const char* key, bool required = true) {
    if (!object.is_object()) return fail(path, "expected an object"), nullptr;
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
      if (required) fail(join(path, key), "missing");
      return nullptr;
    }
    return &*it;
  }
  std::string string(const json& object, const std::string& path, const char* key) {
    const json* v = field(object, path, key);
    if (v && !v->is_string()) fail(join(path, key), "expected a string");
    return v && v->is_string() ? v->get<std::string>() : std::string();
  }
  std::optional<std::string> optional_string(const json& object, const std::string& path, const char* key) {
    const json* v = field(object, path, key, false);
    if (!v) return std::nullopt;
    if (!v->is_string()) return fail(join(path, key), "expected a string"), std::nullopt;
    return v->get<std::string>();
  }
  bool boolean(const json& object, const std::string& path, const char* key) {
    const json* v = field(object, path, key);
    if (v && !v->is_boolean()) fail(join(path, key), "expected true or false");
    return v && v->is_boolean() && v->get<bool>();
  }
  std::optional<bool> optional_boolean(const json& object, const std::string& path, const char* key) {
    const json* v = field(object, path, key, false);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) return fail(join(path, key), "expected true or false"), std::nullopt;
    return v->get<bool>();
  }
  int integer(const json& object, const std::string& path, const char* key) {
    const json* v = field(object, path, key);
    if (v && !v->is_number_integer()) fail(join(path, key), "expected an integer");
    return v && v->is_number_integer() ? v->get<int>() : 0;
  }
  template <typename E, std::size_t N>
  E enumeration(const json& object, const std::string& path, const char* key,
                const std::array<std::pair<E, std::string_view>, N>& table) {
    const std::string text = string(object, path, key);
    for (const auto& [e, s] : table)
      if (s == text) return e;
    if (!m_error) fail(join(path, key), "unknown value '" + text + "'");
    return table[0].first;
  }
  // Calls read(element, element_path) for each element of the array `key`.
  template <typename F>
  void array(const json& object, const std::string& path, const char* key, F read) {
    const json* v = field(object, path, key);
    if (!v) return;
    if (!v->is_array()) return fail(join(path, key), "expected an array");
    for (std::size_t i = 0; i < v->size() && !m_error; ++i)
      read((*v)[i], join(path, key) + "[" + std::to_string(i) + "]");
  }
  Location location(const json& object, const std::string& path) {
    const json* v = field(object, path, "location");
    if (!v) return {};
    const std::string p = join(path, "location");
    return place(string(*v, p, "file"), integer(*v, p, "line"), integer(*v, p, "column"));
  }
  void fail(const std::string& path, const std::string& message) {
    if (!m_error) m_error = Error{"scan result: " + (path.empty() ? "" : path + ": ") + message};
  }
  const std::optional<Error>& error() const { return m_error; }

private:
  std::optional<Error> m_error;
};

std::uint64_t parse_hex(Reader& r, const std::string& text, const std::string& path) {
  std::uint64_t v = 0;
  bool good = !text.empty() && text.size() <= 16;
  for (char c : text) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) good = false;
    v = v << 4 | static_cast<std::uint64_t>(digit < 0 ? 0 : digit);
  }
  if (!good) r.fail(path, "expected 16 hex digits");
  return v;
}

}  // namespace

std::string_view to_string(FoundBy found_by) {
  for (const auto& [e, s] : k_found_by)
    if (e == found_by) return s;
  return "unknown";
}

std::optional<FoundBy> found_by_from_string(std::string_view text) {
  for (const auto& [e, s] : k_found_by)
    if (s == text) return e;
  return std::nullopt;
}

json to_json(const ScanResult& result) {
  json kernels = json::array();
  for (const Kernel& k : result.kernels) {
    json parameters = json::array();
    for (const KernelParameter& p : k.parameters) parameters.push_back({{"name", p.name}, {"type", p.type}});
    json template_parameters = json::array();
    for (const TemplateParameter& t : k.template_parameters) {
      json j = {{"kind", name_of(k_parameter_kinds, t.kind)}, {"name", t.name}, {"type", t.type}, {"pack", t.pack}};
      if (t.default_argument) j["default"] = *t.default_argument;
      template_parameters.push_back(std::move(j));
    }
    json j = {{"qualified_name", k.qualified_name}, {"parameters", std::move(parameters)},
              {"template_parameters", std::move(template_parameters)}, {"is_template", k.is_template},
              {"extern_c", k.extern_c}, {"internal_linkage", k.internal_linkage}, {"defined", k.defined},
              {"location", location_json(k.location)}};
    if (k.launch_bounds) j["launch_bounds"] = *k.launch_bounds;
    kernels.push_back(std::move(j));
  }
  json instantiations = json::array();
  for (const Instantiation& i : result.instantiations) {
    instantiations.push_back({{"kernel", i.kernel}, {"name_expression", i.name_expression},
                              {"found_by", to_string(i.found_by)}, {"location", location_json(i.location)}});
    if (!i.symbol_form.empty()) instantiations.back()["symbol_form"] = i.symbol_form;
    if (!i.mangled_name.empty()) instantiations.back()["mangled_name"] = i.mangled_name;
    if (i.under_arch_test) instantiations.back()["under_arch_test"] = true;
  }
  json requests = json::array();
  for (const RuntimeRequest& r : result.requests)
    requests.push_back({{"what", name_of(k_request_kinds, r.what)}, {"name", r.name},
                        {"location", location_json(r.location)}});
  json variables = json::array();
  for (const Variable& v : result.variables)
    variables.push_back({{"qualified_name", v.qualified_name}, {"kind", name_of(k_variable_kinds, v.kind)},
                         {"type", v.type}, {"internal_linkage", v.internal_linkage},
                         {"location", location_json(v.location)}});
  json headers = json::array();
  for (const Header& h : result.headers) headers.push_back({{"path", h.path}, {"hash", hex(h.content_hash)}});
  json diagnostics = json::array();
  for (const Diagnostic& d : result.diagnostics)
    diagnostics.push_back({{"severity", name_of(k_severities, d.severity)}, {"location", location_json(d.location)},
                           {"message", d.message}});
  return {{"kernels", std::move(kernels)},         {"instantiations", std::move(instantiations)},
          {"requests", std::move(requests)},       {"variables", std::move(variables)},
          {"headers", std::move(headers)},         {"diagnostics", std::move(diagnostics)},
          {"has_host_code", result.has_host_code}};
}

Result<ScanResult> from_json(const json& j) {
  Reader r;
  ScanResult out;
  if (!j.is_object()) return Error{"scan result: expected an object"};
  r.array(j, "", "kernels", [&](const json& e, const std::string& p) {
    Kernel k;
    k.qualified_name = r.string(e, p, "qualified_name");
    r.array(e, p, "parameters", [&](const json& pe, const std::string& pp) {
      k.parameters.push_back({r.string(pe, pp, "name"), r.string(pe, pp, "type")});
    });
    r.array(e, p, "template_parameters", [&](const json& te, const std::string& tp) {
      TemplateParameter t;
      t.kind = r.enumeration(te, tp, "kind", k_parameter_kinds);
      t.name = r.string(te, tp, "name");
      t.type = r.string(te, tp, "type");
      t.pack = r.boolean(te, tp, "pack");
      t.default_argument = r.optional_string(te, tp, "default");
      k.template_parameters.push_back(std::move(t));
    });
    k.is_template = r.boolean(e, p, "is_template");
    k.extern_c = r.boolean(e, p, "extern_c");
    k.internal_linkage = r.boolean(e, p, "internal_linkage");
    k.launch_bounds = r.optional_string(e, p, "launch_bounds");
    k.defined = r.optional_boolean(e, p, "defined").value_or(true);   // absent before it was written
    k.location = r.location(e, p);
    out.kernels.push_back(std::move(k));
  });
  r.array(j, "", "instantiations", [&](const json& e, const std::string& p) {
    out.instantiations.push_back({r.string(e, p, "kernel"), r.string(e, p, "name_expression"),
                                  r.enumeration(e, p, "found_by", k_found_by), r.location(e, p),
                                  r.optional_string(e, p, "symbol_form").value_or(""),
                                  r.optional_string(e, p, "mangled_name").value_or(""),
                                  r.optional_boolean(e, p, "under_arch_test").value_or(false)});
  });
  r.array(j, "", "requests", [&](const json& e, const std::string& p) {
    out.requests.push_back({r.enumeration(e, p, "what", k_request_kinds), r.string(e, p, "name"), r.location(e, p)});
  });
  r.array(j, "", "variables", [&](const json& e, const std::string& p) {
    Variable v;
    v.qualified_name = r.string(e, p, "qualified_name");
    v.kind = r.enumeration(e, p, "kind", k_variable_kinds);
    v.type = r.string(e, p, "type");
    v.internal_linkage = r.boolean(e, p, "internal_linkage");
    v.location = r.location(e, p);
    out.variables.push_back(std::move(v));
  });
  r.array(j, "", "headers", [&](const json& e, const std::string& p) {
    Header h;
    h.path = r.string(e, p, "path");
    h.content_hash = parse_hex(r, r.string(e, p, "hash"), p + ".hash");
    out.headers.push_back(std::move(h));
  });
  r.array(j, "", "diagnostics", [&](const json& e, const std::string& p) {
    Diagnostic d;
    d.severity = r.enumeration(e, p, "severity", k_severities);
    d.location = r.location(e, p);
    d.message = r.string(e, p, "message");
    out.diagnostics.push_back(std::move(d));
  });
  out.has_host_code = r.boolean(j, "", "has_host_code");
  if (r.error()) return *r.error();
  return out;
}

}  // namespace kiln::scan
