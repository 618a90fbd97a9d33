#include "scan/scan_job.hpp"

#include "util/file_io.hpp"

#include <system_error>

namespace kiln::scan::detail {

namespace fs = std::filesystem;

Result<SourceFile> read_source(const ScanInput& input) {
  SourceFile source;
  std::error_code ec;
  source.directory = fs::absolute(input.directory.empty() ? fs::current_path(ec) : input.directory, ec);
  source.full_path = input.file.is_absolute() ? input.file : source.directory / input.file;
  source.argument = input.file.string();
  // Regular files only: a FIFO or a device is refused, not waited on.
  Result<std::vector<std::byte>> bytes = read_binary_file(source.full_path);
  if (!bytes) {
    // "cannot read <full path>: why", said of the file as the scan was given it.
    const std::string& message = bytes.error().message;
    const std::size_t why = std::string("cannot read " + source.full_path.string()).size();
    return Error{"cannot read " + source.argument + (why < message.size() ? message.substr(why) : "")};
  }
  source.text.assign(reinterpret_cast<const char*>(bytes->data()), bytes->size());
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
