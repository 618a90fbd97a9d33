// The CUDA toolkit's binary tools that the tests check Kiln's output with (cuobjdump, nvdisasm).
#pragma once

#include <filesystem>
#include <string>

namespace kiln::test {

// `name` from the variable `variable` names (KILN_TEST_CUOBJDUMP), else beside nvcc, else from the
// NVIDIA wheels scripts/install-deps.sh puts in .venv (a toolkit without them, as the CI image's,
// still checks against them); empty when none has it.
std::filesystem::path cuda_tool(const std::string& name, const char* variable);

}  // namespace kiln::test
