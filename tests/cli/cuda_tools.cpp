#include "cuda_tools.hpp"

#include <cstdlib>

namespace kiln::test {

namespace fs = std::filesystem;

fs::path cuda_tool(const std::string& name, const char* variable) {
  if (const char* named = std::getenv(variable); named && *named) return named;
  for (const fs::path& directory : {fs::path(KILN_NVCC).parent_path(), fs::path(KILN_TEST_CUDA_TOOLS_DIR)}) {
    if (directory.empty()) continue;
    std::error_code error;
    if (fs::is_regular_file(directory / name, error)) return directory / name;
  }
  return {};
}

}  // namespace kiln::test
