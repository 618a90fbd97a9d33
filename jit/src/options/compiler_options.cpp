#include "options/compiler_options.hpp"

#include "options/option_table.hpp"

#include <algorithm>

namespace kiln::options {

namespace {

void add_scan(const ReadOption& w, ScanOptions& scan) {
  switch (w.spec->scan) {
    case Scan::none: break;
    case Scan::define: scan.macros.push_back("-D" + w.value); break;
    case Scan::undefine: scan.macros.push_back("-U" + w.value); break;
    case Scan::standard: scan.standard = w.value; break;
    case Scan::pre_include: scan.pre_includes.push_back(w.value); break;
    case Scan::default_device: scan.default_device = true; break;
    case Scan::defines_macro: scan.macros.push_back("-D" + std::string(w.spec->scan_macro)); break;
  }
}

// Whether the ptxas options of `w` ("-O3,-v") hold -v (--verbose).
bool asks_ptxas_verbose(const ReadOption& w) {
  for (std::size_t start = 0; start <= w.value.size();) {
    const std::size_t comma = std::min(w.value.find(',', start), w.value.size());
    if (is_ptxas_verbose(std::string_view(w.value).substr(start, comma - start))) return true;
    start = comma + 1;
  }
  return false;
}

// What each compiler and the scanner get for one option.
void add_translations(const ReadOption& w, CompilerOptions& out) {
  const OptionSpec& spec = *w.spec;
  if (spec.nvrtc == Nvrtc::passed) out.nvrtc.push_back(nvrtc_spelling(w));
  if (spec.nvrtc == Nvrtc::lacks && out.needs_nvcc.empty()) out.needs_nvcc = w.text;
  if (spec.nvrtc == Nvrtc::planned && spec.name == "relocatable-device-code") out.relocatable = w.value == "true";
  const std::vector<std::string> link = link_spellings(w);
  out.link.insert(out.link.end(), link.begin(), link.end());
  if (spec.nvcc == Nvcc::same) {
    const std::string name(spec.nvcc_name.empty() ? spec.name : spec.nvcc_name);
    out.nvcc.push_back(spec.takes == Takes::attached ? nvrtc_spelling(w)
                                                     : "--" + name + (w.has_value ? "=" + w.value : ""));
  } else if (spec.nvcc == Nvcc::forbidden && out.forbids_nvcc.empty()) {
    out.forbids_nvcc = w.text;
  }
  add_scan(w, out.scan);
}

}  // namespace

Result<CompilerOptions> interpret(std::span<const std::string> given) {
  CompilerOptions out;
  for (std::size_t at = 0; at < given.size();) {
    OptionProblem problem;
    const std::optional<ReadOption> w = read_option(given, at, problem);
    if (!w) return Error{"option '" + problem.option + "' " + problem.message};
    at += w->strings;
    if (w->spec->values == Values::ptxas) out.ptxas_verbose = out.ptxas_verbose || asks_ptxas_verbose(*w);
    add_translations(*w, out);
  }
  return out;
}

std::string host_standard(const std::string& kernel_standard) {
  for (const char* older : {"c++98", "c++03", "c++11", "c++14"})
    if (kernel_standard == older) return "c++17";
  return kernel_standard.empty() ? "c++17" : kernel_standard;
}

}  // namespace kiln::options
