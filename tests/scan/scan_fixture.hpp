// Scanning the fixtures in tests/fixtures/scan, and the views of a ScanResult the tests compare.
#pragma once

#include "scan/scanner.hpp"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kiln::test {

// Scans tests/fixtures/scan/<name> from that directory, with include/ and the runtime's headers on
// the include path, against the toolkit Kiln was built with.
scan::ScanInput fixture_input(const std::string& name, scan::ScanInput::Role role = scan::ScanInput::Role::kernels);
scan::ScanResult scan_fixture(const std::string& name, scan::ScanInput::Role role = scan::ScanInput::Role::kernels);

std::set<std::string> kernel_names(const scan::ScanResult& result);
std::set<std::pair<std::string, scan::FoundBy>> instantiations(const scan::ScanResult& result);
const scan::Kernel& kernel(const scan::ScanResult& result, const std::string& qualified_name);
std::vector<std::string> warnings(const scan::ScanResult& result);
// "file:line:col: message" for each diagnostic, for failure messages.
std::string describe(const scan::ScanResult& result);

}  // namespace kiln::test
