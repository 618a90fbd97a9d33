// kiln scan: what clang finds in CUDA sources (kernels, instantiations, runtime requests, device
// variables, headers), and what Python finds in .py files (runtime requests), as a summary or JSON.
// Requests in one file for kernel templates of another are resolved against that file. Exit 1 when a
// file does not parse (clang's or Python's errors on stderr).
#include "cli/color.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "build/kiln_headers.hpp"
#include "build/preamble_sharing.hpp"
#include "compile/toolkit.hpp"
#include "options/compiler_options.hpp"
#include "scan/python_scanner.hpp"
#include "scan/scan_json.hpp"
#include "scan/scanner.hpp"
#include "util/diagnostic.hpp"
#include "util/scratch_dir.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <numeric>

namespace kiln::cli {

namespace {

namespace fs = std::filesystem;
using namespace kiln::scan;

std::string where(const kiln::scan::Location& l) {
  if (l.file.empty()) return "kiln";
  if (l.line == 0) return l.file;
  return l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.column);
}

std::string signature(const Kernel& k) {
  std::string s;
  if (k.extern_c) s += "extern \"C\" ";
  if (k.is_template) {
    s += "template <";
    for (std::size_t i = 0; i < k.template_parameters.size(); ++i) {
      const TemplateParameter& t = k.template_parameters[i];
      s += i ? ", " : "";
      s += t.kind == TemplateParameter::Kind::type ? "typename"
           : t.kind == TemplateParameter::Kind::non_type ? t.type
                                                          : "template <...> class";
      s += t.pack ? "..." : "";
      s += t.name.empty() ? "" : " " + t.name;
      s += t.default_argument ? " = " + *t.default_argument : "";
    }
    s += "> ";
  }
  s += k.qualified_name + "(";
  for (std::size_t i = 0; i < k.parameters.size(); ++i)
    s += (i ? ", " : "") + k.parameters[i].type + (k.parameters[i].name.empty() ? "" : " " + k.parameters[i].name);
  s += ")";
  if (k.launch_bounds) s += " __launch_bounds__(" + *k.launch_bounds + ")";
  if (k.internal_linkage) s += " [internal linkage]";
  return s;
}

const char* variable_kind(Variable::Kind kind) {
  switch (kind) {
    case Variable::Kind::device: return "__device__";
    case Variable::Kind::constant: return "__constant__";
    case Variable::Kind::managed: return "__managed__";
  }
  return "";
}

// How `kiln scan` reads a file: Python's parser for .py files (given as sources or with --host).
bool is_python(const std::string& file) { return fs::path(file).extension() == ".py"; }

void print_summary(const std::string& file, const ScanResult& r) {
  if (is_python(file)) {
    std::cout << file << " (Python)\n";
  } else {
    std::cout << file << (r.has_host_code ? " (host code)" : " (device code only)") << "\n";
  }
  // A kernel the file only declares is defined elsewhere: listed apart, never as one of the file's.
  const auto defined = std::count_if(r.kernels.begin(), r.kernels.end(), [](const Kernel& k) { return k.defined; });
  if (defined > 0) std::cout << "  kernels:\n";
  for (const Kernel& k : r.kernels)
    if (k.defined) std::cout << "    " << signature(k) << "  " << where(k.location) << "\n";
  if (static_cast<std::size_t>(defined) < r.kernels.size()) std::cout << "  declared only (defined elsewhere):\n";
  for (const Kernel& k : r.kernels)
    if (!k.defined) std::cout << "    " << signature(k) << "  " << where(k.location) << "\n";
  if (!r.instantiations.empty()) std::cout << "  instantiations:\n";
  for (const Instantiation& i : r.instantiations)
    std::cout << "    " << i.name_expression << "  " << to_string(i.found_by) << "  " << where(i.location) << "\n";
  if (!r.requests.empty()) std::cout << "  runtime requests:\n";
  for (const RuntimeRequest& q : r.requests)
    std::cout << "    " << (q.what == RuntimeRequest::What::kernel ? "kernel" : "variable") << " \"" << q.name << "\"  "
              << where(q.location) << "\n";
  if (!r.variables.empty()) std::cout << "  variables:\n";
  for (const Variable& v : r.variables)
    std::cout << "    " << variable_kind(v.kind) << " " << v.type << " " << v.qualified_name << "  " << where(v.location)
              << "\n";
  if (!is_python(file)) std::cout << "  headers: " << r.headers.size() << "\n";
}

class ScanCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.add_option("files", m_files, "Kernel sources (and .py files) to scan");
    // One value per occurrence, so that `-I include k.cu` leaves k.cu to the sources.
    app.add_option("--host", m_hosts, "A host source, scanned for launches and runtime requests only")
        ->allow_extra_args(false);
    app.add_option("-I", m_include_dirs, "An include directory")->allow_extra_args(false);
    app.add_option("-D", m_defines, "A macro definition: NAME or NAME=VALUE")->allow_extra_args(false);
    app.add_option("--std", m_standard, "The C++ standard (default: c++17, as NVRTC)");
    app.add_option("--option", m_options,
                   "A compile option, as the manifest's 'options' takes it (--option=-default-device); those that "
                   "change the language apply")
        ->allow_extra_args(false);
    app.add_option("--cuda-root", m_cuda_root, "The CUDA toolkit whose headers to use");
    app.add_option("--python", m_python,
                   "The Python interpreter that reads .py files (default: $KILN_PYTHON, else python3 on PATH)");
    app.add_flag("--json", m_json, "Print JSON instead of a summary");
  }

  int run() override {
    if (m_files.empty() && m_hosts.empty()) {
      std::cerr << diagnostic(Location{}, "error", "scan: give at least one source") << "\n";
      return k_exit_usage;
    }
    Result<options::CompilerOptions> translated = options::interpret(m_options);
    if (!translated) {
      std::cerr << diagnostic(Location{}, "error", "scan: " + translated.error().message) << "\n";
      return k_exit_usage;
    }
    m_scan_options = translated->scan;
    // Python files first: one interpreter run, and no CUDA toolkit needed when they are all there is.
    std::vector<PythonSource> python;
    std::vector<std::pair<std::string, ScanInput::Role>> others;
    const auto sort_out = [&](const std::vector<std::string>& given, ScanInput::Role role) {
      for (const std::string& f : given) {
        if (is_python(f)) python.push_back({f, f});
        else others.emplace_back(f, role);
      }
    };
    sort_out(m_files, ScanInput::Role::kernels);
    sort_out(m_hosts, ScanInput::Role::host);
    Result<std::vector<ScanResult>> python_results = scan_python_sources(python, m_python);
    if (!python_results) {
      std::cerr << diagnostic(Location{}, "error", python_results.error().message) << "\n";
      return k_exit_environment;
    }
    std::vector<ScanInput> inputs;
    if (!others.empty()) {
      Result<compile::Toolkit> toolkit = compile::find_toolkit(m_cuda_root);
      if (!toolkit) {
        std::cerr << diagnostic(Location{}, "error", toolkit.error().message) << "\n";
        return k_exit_environment;
      }
      for (const auto& [file, role] : others) inputs.push_back(input(file, toolkit->root, role));
    }
    // Sources that start alike share a precompiled preamble, as in kiln build (KILN_SCAN_PCH=0: not).
    std::vector<std::size_t> all(inputs.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    Result<ScratchDir> scratch = ScratchDir::create(std::filesystem::temp_directory_path() / "kiln-scan");
    const std::vector<std::filesystem::path> preambles =
        scratch ? build::share_preambles(inputs, all, {1, scratch->path(), "preamble-", nullptr})
                : std::vector<std::filesystem::path>{};
    std::vector<ScanResult> results;
    for (const ScanInput& in : inputs) results.push_back(scan_source(in));
    for (const std::filesystem::path& pch : preambles) remove_preamble_pch(pch);
    resolve_across(inputs, results, *python_results);

    bool failed = false;
    nlohmann::json files = nlohmann::json::array();
    const auto show = [&](const std::string& file, const char* role, const ScanResult& result) {
      for (const Diagnostic& d : result.diagnostics)
        std::cerr << diagnostic(d.location.file.empty() ? place(file) : d.location,
                                d.severity == Diagnostic::Severity::error ? "error" : "warning", d.message)
                  << "\n";
      failed = failed || !result.ok();
      if (m_json)
        files.push_back({{"file", file}, {"role", role}, {"result", to_json(result)}});
      else if (result.ok())
        print_summary(file, result);
    };
    for (std::size_t i = 0; i < inputs.size(); ++i)
      show(inputs[i].file.string(), inputs[i].role == ScanInput::Role::host ? "host" : "kernels", results[i]);
    for (std::size_t i = 0; i < python.size(); ++i) show(python[i].file, "python", (*python_results)[i]);
    if (m_json) std::cout << printed_json(nlohmann::json{{"files", files}}) << "\n";
    return failed ? k_exit_failed : k_exit_ok;
  }

private:
  // As kiln build scans: kernel sources with the options that change the language, host sources at
  // a standard Kiln's header can use and with Kiln's own headers on their path.
  ScanInput input(const std::string& file, const fs::path& cuda_root, ScanInput::Role role) const {
    ScanInput in;
    in.file = file;
    in.directory = fs::current_path();
    in.include_dirs = m_include_dirs;
    in.defines = m_defines;
    in.macro_options = m_scan_options.macros;
    const std::string standard = m_scan_options.standard.empty() ? m_standard : m_scan_options.standard;
    in.language_standard = standard;
    in.cuda_root = cuda_root;
    in.role = role;
    if (role == ScanInput::Role::host) {
      in.language_standard = options::host_standard(standard);
      in.include_dirs.push_back(build::kiln_include_dir());
    } else {
      in.pre_includes = m_scan_options.pre_includes;
      in.default_device = m_scan_options.default_device;
    }
    return in;
  }

  // Requests in one file for kernel templates of another kernel source become that source's
  // instantiations (found by runtime_request, located at the request).
  static void resolve_across(const std::vector<ScanInput>& inputs, std::vector<ScanResult>& results,
                             const std::vector<ScanResult>& python) {
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k].role != ScanInput::Role::kernels || !results[k].ok()) continue;
      std::vector<RuntimeRequest> requests;
      for (std::size_t other = 0; other < inputs.size(); ++other)
        if (other != k && results[other].ok())
          requests.insert(requests.end(), results[other].requests.begin(), results[other].requests.end());
      for (const ScanResult& file : python)
        if (file.ok()) requests.insert(requests.end(), file.requests.begin(), file.requests.end());
      if (requests.empty()) continue;
      Resolution resolved = resolve_requests(inputs[k], results[k], requests);
      results[k].instantiations.insert(results[k].instantiations.end(), resolved.instantiations.begin(),
                                       resolved.instantiations.end());
      results[k].diagnostics.insert(results[k].diagnostics.end(), resolved.diagnostics.begin(),
                                    resolved.diagnostics.end());
    }
  }

  std::vector<std::string> m_files;
  std::vector<std::string> m_hosts;
  std::vector<std::string> m_include_dirs;
  std::vector<std::string> m_defines;
  std::string m_standard = "c++17";
  std::vector<std::string> m_options;
  options::ScanOptions m_scan_options;
  fs::path m_cuda_root;
  std::string m_python;
  bool m_json = false;
};

}  // namespace

std::unique_ptr<Command> make_scan_command() { return std::make_unique<ScanCommand>(); }

}  // namespace kiln::cli
