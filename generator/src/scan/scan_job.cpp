#include "scan/scan_job.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

namespace kiln::scan::detail {

namespace fs = std::filesystem;

Result<SourceFile> read_source(const ScanInput& input) {
  SourceFile source;
  std::error_code ec;
  source.directory = fs::absolute(input.directory.empty() ? fs::current_path(ec) : input.directory, ec);
  source.full_path = input.file.is_absolute() ? input.file : source.directory / input.file;
  source.argument = input.file.string();
  std::ifstream in(source.full_path, std::ios::binary);
  if (!in || fs::is_directory(source.full_path, ec)) return Error{"cannot read " + source.argument};
  std::ostringstream text;
  text << in.rdbuf();
  source.text = std::move(text).str();
  return source;
}

ParseJob make_job(const ScanInput& input, const SourceFile& source, ParseMode mode, const std::string& main_file,
                  std::vector<VirtualFile> extra_files) {
  ParseJob job;
  job.arguments = clang_arguments(input, mode, main_file);
  job.directory = source.directory;
  job.virtual_files = support_files();
  for (VirtualFile& f : extra_files) job.virtual_files.push_back(std::move(f));
  job.cuda_root = effective_cuda_root(input.cuda_root);
  return job;
}

}  // namespace kiln::scan::detail
