// Cubins and PTX for the image tests, built in the test process the way Kiln builds them (NVRTC
// -dlto, then nvJitLink to a trimmed cubin and to PTX), so no binary fixtures are committed.
#pragma once

#include "format/layout.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::image::test {

struct BuiltModule {
  std::vector<std::byte> cubin;
  std::string ptx;                               // with nvJitLink's trailing NUL
  std::map<std::string, std::string> lowered;    // name expression -> lowered name
};

// Throws std::runtime_error with the compiler's log if the source does not build. `keep` lists
// variables to keep through -optimize-unused-variables, as name expressions or plain symbols.
BuiltModule build_module(std::string_view source, const std::string& arch,
                         const std::vector<std::string>& name_expressions, const std::vector<std::string>& keep);

// The shared test source (test_module.cpp) built for `arch`, once per process.
const BuiltModule& test_module(const std::string& arch);

// What the test source's kernels and variables are expected to look like.
struct ExpectedKernel {
  std::string expression;                        // as the host names it: "fill<float>", "mixed"
  bool weak = false;
  std::vector<format::ParamRecord> params;
};
std::vector<ExpectedKernel> expected_kernels();

struct ExpectedVariable {
  std::string expression;                        // "&my_table", or a symbol ("my_managed")
  std::uint64_t size = 0;
  format::VariableKind kind = format::VariableKind::device;
};
std::vector<ExpectedVariable> expected_variables();

// The symbol of a name expression in `module` ("&my_table" -> "my_table"); anything that is not
// one of the module's name expressions is taken to be a symbol already.
std::string lowered_name(const BuiltModule& module, const std::string& expression);

// Parameters as " offset/size" pairs, for comparing against expectations in one line.
std::string describe(const std::vector<format::ParamRecord>& params);

}  // namespace kiln::image::test
