// read_cubin on cubins built in-process by NVRTC + nvJitLink for several targets.
#include "image/cubin_reader.hpp"

#include "test_module.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace kiln::image {
namespace {

using test::describe;
using test::test_module;

CubinInfo read(const std::string& arch) {
  Result<CubinInfo> info = read_cubin(test_module(arch).cubin, "test.cu [" + arch + "]");
  if (!info) throw std::runtime_error(info.error().message);
  return std::move(info).value();
}

const CubinSymbol* find_symbol(const CubinInfo& info, const std::string& name) {
  const auto it = std::find_if(info.symbols.begin(), info.symbols.end(), [&](const CubinSymbol& s) { return s.name == name; });
  return it == info.symbols.end() ? nullptr : &*it;
}

struct ArchCase {
  std::string arch;
  int sm = 0;
  bool arch_specific = false;
};

class ImageCubinArch : public testing::TestWithParam<ArchCase> {};

// e_flags changed layout with ELF ABI 8; 'a' shows only in .nv.compat, 'f' only in the tkinfo note.
TEST_P(ImageCubinArch, ReadsTargetFromHeaderCompatAndNote) {
  const CubinInfo info = read(GetParam().arch);
  EXPECT_EQ(info.elf_abi_version, 8);
  EXPECT_EQ(info.sm, GetParam().sm);
  EXPECT_EQ(info.arch_specific, GetParam().arch_specific);
  EXPECT_EQ(info.toolkit_arch, GetParam().arch);
}

INSTANTIATE_TEST_SUITE_P(Targets, ImageCubinArch,
                         testing::Values(ArchCase{"sm_75", 75, false}, ArchCase{"sm_90", 90, false},
                                         ArchCase{"sm_90a", 90, true}, ArchCase{"sm_100f", 100, false},
                                         ArchCase{"sm_120", 120, false}),
                         [](const testing::TestParamInfo<ArchCase>& p) { return p.param.arch; });

class ImageCubinContents : public testing::TestWithParam<std::string> {};

TEST_P(ImageCubinContents, FindsKernelsWithWeakTemplates) {
  const CubinInfo info = read(GetParam());
  std::set<std::string> expected, found;
  for (const test::ExpectedKernel& k : test::expected_kernels()) {
    const std::string name = test::lowered_name(test_module(GetParam()), k.expression);
    expected.insert(name);
    const CubinSymbol* symbol = find_symbol(info, name);
    ASSERT_NE(symbol, nullptr) << name;
    EXPECT_EQ(symbol->is_weak, k.weak) << name;
    EXPECT_EQ(symbol->section, ".text." + name);
  }
  for (const CubinSymbol& s : info.symbols)
    if (s.is_kernel) found.insert(s.name);
  EXPECT_EQ(found, expected);
}

// Offsets and sizes from .nv.info against the host compiler's layout of the same signatures,
// including an over-aligned struct, an empty struct and a 5000-byte struct (KPARAM_INFO_V2).
TEST_P(ImageCubinContents, ParamsFollowTheCAbi) {
  const CubinInfo info = read(GetParam());
  ASSERT_EQ(info.kernel_params.size(), test::expected_kernels().size());
  for (const test::ExpectedKernel& k : test::expected_kernels()) {
    const std::string name = test::lowered_name(test_module(GetParam()), k.expression);
    const auto it = std::find_if(info.kernel_params.begin(), info.kernel_params.end(),
                                 [&](const CubinKernelParams& p) { return p.kernel == name; });
    ASSERT_NE(it, info.kernel_params.end()) << name;
    EXPECT_EQ(describe(it->params), describe(k.params)) << name;
  }
}

TEST_P(ImageCubinContents, KeepsListedVariablesWithSizes) {
  const CubinInfo info = read(GetParam());
  for (const test::ExpectedVariable& v : test::expected_variables()) {
    const std::string name = test::lowered_name(test_module(GetParam()), v.expression);
    const CubinSymbol* symbol = find_symbol(info, name);
    ASSERT_NE(symbol, nullptr) << name;
    EXPECT_TRUE(symbol->is_variable);
    EXPECT_FALSE(symbol->is_kernel);
    EXPECT_EQ(symbol->size, v.size) << name;
    const bool constant = v.kind == format::VariableKind::constant;
    EXPECT_TRUE(symbol->section.starts_with(constant ? ".nv.constant" : ".nv.global")) << symbol->section;
    EXPECT_EQ(symbol->is_managed, v.kind == format::VariableKind::managed) << name;
  }
  EXPECT_EQ(find_symbol(info, "dropped_table"), nullptr) << "not listed in -variables-used";
  // Undefined symbols are the driver's business, not the image's contents.
  EXPECT_EQ(find_symbol(info, ".nv.reservedSmem.offset0"), nullptr);
  for (const CubinSymbol& s : info.symbols) EXPECT_FALSE(s.section.empty()) << s.name;
  const auto variables = std::count_if(info.symbols.begin(), info.symbols.end(), [](const CubinSymbol& s) { return s.is_variable; });
  EXPECT_EQ(variables, 3);
}

INSTANTIATE_TEST_SUITE_P(Targets, ImageCubinContents, testing::Values("sm_75", "sm_90", "sm_90a", "sm_100f", "sm_120"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace kiln::image
