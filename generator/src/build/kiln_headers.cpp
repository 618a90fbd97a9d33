#include "build/kiln_headers.hpp"

#include <filesystem>
#include <system_error>

namespace kiln::build {

std::string kiln_include_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path installed = fs::canonical("/proc/self/exe", ec).parent_path().parent_path() / "include";
  if (!ec && fs::exists(installed / "kiln" / "kiln.hpp", ec)) return installed.string();
#ifdef KILN_RUNTIME_INCLUDE_DIR
  return KILN_RUNTIME_INCLUDE_DIR;
#else
  return installed.string();
#endif
}

}  // namespace kiln::build
