// From scan results to what each unit must build: the instantiations the scanner found in a source,
// the variables its user code declares, and every runtime request in kernel and host sources,
// assigned to the unit that defines the kernel or variable it names. Also the warnings about what
// would otherwise vanish silently: kernel templates nothing instantiates, requests nothing defines.
//
// Reads the scanner's plain structs only; clang stays behind kiln_scan.
#pragma once

#include "manifest/manifest.hpp"
#include "plan/planned_unit.hpp"
#include "scan/scan_result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::plan {

struct ScannedFile {
  std::string path;            // as scanned: relative to the manifest directory, or absolute
  scan::ScanResult result;     // a failed scan holds its errors and nothing else
  // Not parsed: its compiler's image alone says what it holds (plan/text_discovery.hpp).
  bool left_to_the_image = false;
  // Not scanned: a kernel source of another shard's units only (kiln build --shard I/N). A request
  // that names none of the scanned sources' kernels may name one of its: the merge checks it.
  bool another_shards = false;
};

class ProjectText;

struct DiscoverySettings {
  std::string display_prefix;              // how the manifest directory looks from the user's cwd
  std::filesystem::path cuda_root;         // declarations under it are the toolkit's, not the user's
  std::filesystem::path root;              // the manifest directory (absolute)
  // The build's walk of the project's headers (unit_text.hpp), which already read them to route the
  // sources; null: a walk of discover's own.
  ProjectText* project_text = nullptr;
};

// `kernel_sources` in manifest order (one per [[source]]), `host_sources` in any order.
Discovery discover(const manifest::Manifest& manifest, const std::vector<ScannedFile>& kernel_sources,
                   const std::vector<ScannedFile>& host_sources, const DiscoverySettings& settings);

// The Itanium symbol of a namespace-scope variable ("ns::v" -> "_ZN2ns1vE", "v" -> "v"), or "" for
// names it cannot spell without the compiler (unnamed namespaces, templates).
std::string variable_symbol(std::string_view qualified_name);

// "ns::k<float, 256>" -> "ns::k": the name before the template arguments.
std::string template_name(std::string_view expression);

}  // namespace kiln::plan
