// From a ScanInput to a ParseJob: the source's text and directory, the command line, the support
// files. Shared by the scanner and the request resolver.
#pragma once

#include "scan/parse.hpp"
#include "scan/scanner.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::scan::detail {

struct SourceFile {
  std::filesystem::path directory;   // absolute
  std::filesystem::path full_path;   // absolute
  std::string argument;              // the path as given, for clang (so locations keep it)
  std::string text;
};

Result<SourceFile> read_source(const ScanInput& input);

// A job parsing `main_file` (the source's argument, or a probe file) in `mode`.
ParseJob make_job(const ScanInput& input, const SourceFile& source, ParseMode mode, const std::string& main_file,
                  std::vector<VirtualFile> extra_files = {});

}  // namespace kiln::scan::detail
