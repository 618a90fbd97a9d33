#include "scan_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::test {

using namespace kiln::scan;

ScanInput fixture_input(const std::string& name, ScanInput::Role role) {
  ScanInput input;
  input.file = name;
  input.directory = KILN_SCAN_FIXTURES;
  input.include_dirs = {"include", KILN_RUNTIME_INCLUDE};
  input.cuda_root = KILN_CUDA_ROOT;
  input.role = role;
  return input;
}

ScanResult scan_fixture(const std::string& name, ScanInput::Role role) {
  return scan_source(fixture_input(name, role));
}

std::set<std::string> kernel_names(const ScanResult& result) {
  std::set<std::string> out;
  for (const Kernel& k : result.kernels) out.insert(k.qualified_name);
  return out;
}

std::set<std::pair<std::string, FoundBy>> instantiations(const ScanResult& result) {
  std::set<std::pair<std::string, FoundBy>> out;
  for (const Instantiation& i : result.instantiations) out.emplace(i.name_expression, i.found_by);
  return out;
}

const Kernel& kernel(const ScanResult& result, const std::string& qualified_name) {
  auto it = std::find_if(result.kernels.begin(), result.kernels.end(),
                         [&](const Kernel& k) { return k.qualified_name == qualified_name; });
  if (it == result.kernels.end()) {
    ADD_FAILURE() << "no kernel " << qualified_name;
    static const Kernel none;
    return none;
  }
  return *it;
}

std::vector<std::string> warnings(const ScanResult& result) {
  std::vector<std::string> out;
  for (const Diagnostic& d : result.diagnostics)
    if (d.severity == Diagnostic::Severity::warning) out.push_back(d.message);
  return out;
}

std::string describe(const ScanResult& result) {
  std::string out;
  for (const Diagnostic& d : result.diagnostics)
    out += d.location.file + ":" + std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " +
           d.message + "\n";
  return out;
}

}  // namespace kiln::test
