// read_ptx on nvJitLink's PTX (which must agree with the cubin of the same build) and on
// hand-written PTX that uses the grammar's corners.
#include "image/cubin_reader.hpp"
#include "ptx/ptx_reader.hpp"

#include "test_module.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace kiln::image {
namespace {

using test::describe;

using namespace std::literals;

PtxInfo read_ok(std::string_view text) {
  Result<PtxInfo> info = read_ptx(text, "t.ptx");
  if (!info) throw std::runtime_error(info.error().message);
  return std::move(info).value();
}

const PtxVariable* find_variable(const PtxInfo& info, const std::string& name) {
  for (const PtxVariable& v : info.variable_declarations)
    if (v.name == name) return &v;
  return nullptr;
}

class ImagePtxAgreesWithCubin : public testing::TestWithParam<std::string> {};

// The PTX reader computes offsets from .param declarations; the cubin records what ptxas decided.
TEST_P(ImagePtxAgreesWithCubin, EntriesParamsAndVariables) {
  const test::BuiltModule& module = test::test_module(GetParam());
  ASSERT_EQ(module.ptx.back(), '\0');
  const PtxInfo ptx = read_ok(module.ptx);
  Result<CubinInfo> cubin = read_cubin(module.cubin, "test.cubin");
  ASSERT_TRUE(cubin) << cubin.error().message;
  EXPECT_EQ(ptx.version, "9.0");
  // Measured: nvJitLink 13.0 -arch=sm_100f -ptx writes ".target sm_100" (NVRTC alone keeps the f);
  // the 'a' of sm_90a survives.
  const std::string arch = GetParam();
  EXPECT_EQ(ptx.target, arch.ends_with('f') ? arch.substr(0, arch.size() - 1) : arch);

  std::map<std::string, std::string> cubin_params, ptx_params;
  std::map<std::string, bool> cubin_weak, ptx_weak;
  for (const CubinKernelParams& k : cubin->kernel_params) cubin_params[k.kernel] = describe(k.params);
  for (const CubinSymbol& s : cubin->symbols)
    if (s.is_kernel) cubin_weak[s.name] = s.is_weak;
  for (const PtxEntry& e : ptx.entries) {
    ptx_params[e.name] = describe(e.params);
    ptx_weak[e.name] = e.is_weak;
  }
  EXPECT_EQ(ptx_params, cubin_params);
  EXPECT_EQ(ptx_weak, cubin_weak);
  EXPECT_EQ(ptx.entries.size(), test::expected_kernels().size());

  std::map<std::string, std::uint64_t> cubin_sizes, ptx_sizes;
  for (const CubinSymbol& s : cubin->symbols)
    if (s.is_variable) cubin_sizes[s.name] = s.size;
  for (const PtxVariable& v : ptx.variable_declarations) ptx_sizes[v.name] = v.size;
  EXPECT_EQ(ptx_sizes, cubin_sizes);
  EXPECT_EQ(ptx.variables.size(), ptx.variable_declarations.size());

  for (const test::ExpectedVariable& expected : test::expected_variables()) {
    const PtxVariable* v = find_variable(ptx, test::lowered_name(module, expected.expression));
    ASSERT_NE(v, nullptr) << expected.expression;
    EXPECT_EQ(v->kind, expected.kind) << expected.expression;
    EXPECT_TRUE(v->visible);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, ImagePtxAgreesWithCubin,
                         testing::Values("sm_75", "sm_90", "sm_90a", "sm_100f", "sm_120"),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

// Comments anywhere, odd spacing, glued directive parts, CRLF, and an .align after .ptr (which
// belongs to the pointee, not to the parameter).
TEST(ImagePtx, ReadsParametersInAnyLayout) {
  const PtxInfo info = read_ok(
      "// header comment\r\n"
      ".version 8.5 /* inline */ .target sm_90a, texmode_independent\r\n"
      ".address_size 64\n"
      "/* a block comment\n spanning lines */\n"
      ".visible .entry k( .param .u64 .ptr .global .align 16 p,\n"
      "  .param\t.u8 c , .param .u64 .ptr.global.align 8 q,\n"
      "  .param .align 8 .b8 s[36], // trailing comment\n"
      "  .param .b16 h, .param .v2 .f32 v, .param .b32 arr[3]\n"
      ")\n"
      ".maxntid 128, 1, 1\n"
      "{ { .reg .b32 %r<2>; } ret; }\n"
      "\0"sv);
  EXPECT_EQ(info.version, "8.5");
  EXPECT_EQ(info.target, "sm_90a");
  ASSERT_EQ(info.entries.size(), 1u);
  EXPECT_EQ(info.entries[0].name, "k");
  EXPECT_FALSE(info.entries[0].is_weak);
  EXPECT_EQ(describe(info.entries[0].params), " 0/8 8/1 16/8 24/36 60/2 64/8 72/12");
}

TEST(ImagePtx, EntriesWithoutParametersAndFunctionsAreNotEntries) {
  const PtxInfo info = read_ok(
      ".version 9.0\n.target sm_75\n"
      ".func (.param .b32 ret) helper(.param .b64 p, .param .b32 g)\n{ ret; }\n"
      ".extern .func lib(.param .b64 x);\n"
      ".visible .entry bare\n{ ret; }\n"
      ".weak .entry empty_list()\n{ ret; }\n");
  ASSERT_EQ(info.entries.size(), 2u);
  EXPECT_EQ(info.entries[0].name, "bare");
  EXPECT_TRUE(info.entries[0].params.empty());
  EXPECT_EQ(info.entries[1].name, "empty_list");
  EXPECT_TRUE(info.entries[1].is_weak);
  EXPECT_TRUE(info.variables.empty());
}

TEST(ImagePtx, ReadsVariableKindsAndSizes) {
  const PtxInfo info = read_ok(
      ".version 9.0\n.target sm_90\n"
      ".visible .global .align 4 .b8 table[256];\n"
      ".visible .const .align 4 .b8 consts[64];\n"
      ".visible .global .attribute(.managed) .align 4 .u32 managed_value;\n"
      ".global .align 4 .b8 internal_static[32];\n"
      ".global .align 1 .b8 $str[6] = {104, 101, 108, 108, 111, 0};\n"
      ".visible .global .align 8 .u64 pointers[2] = {generic(table), generic(consts)};\n"
      ".visible .global .align 4 .u32 unsized[] = {1, 2, 3};\n"
      ".visible .global .align 4 .u32 grid[][2] = {{1}, {3, 4}};\n"
      ".visible .global .align 4 .u32 flat[][2] = {1, 2, 3};\n"
      ".visible .global .v4 .f32 vec, two[2];\n"
      ".visible .global .align 4 .b8 init_short[12] = {1, 0, 0, 0, 2};\n"
      ".extern .global .align 4 .b8 elsewhere[16];\n"
      ".extern .shared .align 16 .b8 dynamic_smem[];\n"
      ".global .texref tex;\n"
      ".weak .global .align 4 .u32 weak_value = 7;\n");
  const std::map<std::string, std::uint64_t> sizes = {
      {"table", 256},    {"consts", 64},  {"managed_value", 4}, {"internal_static", 32}, {"$str", 6},
      {"pointers", 16},  {"unsized", 12}, {"grid", 16},         {"vec", 16},             {"two", 32},
      {"init_short", 12}, {"weak_value", 4}, {"flat", 16}};
  std::map<std::string, std::uint64_t> found;
  for (const PtxVariable& v : info.variable_declarations) found[v.name] = v.size;
  EXPECT_EQ(found, sizes);
  EXPECT_EQ(find_variable(info, "consts")->kind, format::VariableKind::constant);
  EXPECT_EQ(find_variable(info, "managed_value")->kind, format::VariableKind::managed);
  EXPECT_EQ(find_variable(info, "table")->kind, format::VariableKind::device);
  EXPECT_TRUE(find_variable(info, "table")->visible);
  EXPECT_TRUE(find_variable(info, "weak_value")->visible);
  EXPECT_FALSE(find_variable(info, "internal_static")->visible);
  ASSERT_EQ(info.variables.size(), info.variable_declarations.size());
  EXPECT_EQ(info.variables.front(), "table");
}

// Garbage gives an error that names the label and the line, never a crash or a partial result.
TEST(ImagePtx, ErrorsNameLabelAndLine) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {".version 9.0\n.target sm_90\nx\0y"sv, "t.ptx:3: unexpected byte"},
      {".version 9.0\n.target sm_90\n/* never closed", "t.ptx:3: unterminated comment"},
      {".version 9.0\n.target sm_90\n.entry k(\n.param .u32\n)\n{}", "t.ptx:5: declaration without a name"},
      {".version 9.0\n.target sm_90\n.entry k(.param .align 3 .b8 x[4])\n{}", "t.ptx:3: .align needs a power of two"},
      {".version 9.0\n.target sm_90\n.entry k(.param .u32 a .u32 b)\n{}", "t.ptx:3: unexpected '.u32' after the name"},
      {".version 9.0\n.target sm_90\n.entry k(.reg .u32 a)\n{}", "t.ptx:3: expected a .param"},
      {".version 9.0\n.target sm_90\n.entry k(.param .u32 a)\n{ ret;", "t.ptx:4: '{' never closed"},
      {".version 9.0\n.target sm_90\n}", "t.ptx:3: '}' without '{'"},
      {".version 9.0\n.target sm_90\n.global .u32 x[];", "t.ptx:3: array 'x' has no size"},
      {".version 9.0\n.target sm_90\n.global .b8 x[4] = {1, 2", "t.ptx:3: declaration not terminated"},
      {".version 9.0\n.target sm_90\n.global .u32 .u64 x;", "t.ptx:3: unexpected '.u64'"},
      {".version 9.0\n.target sm_90\n.entry (", "t.ptx:3: .entry without a name"},
      {".version 9.0\n.target sm_90\n\xff", "t.ptx:3: unexpected byte"},
      {".target sm_90\n", "t.ptx:1: no .version directive"},
      {".version 9.0\n", "t.ptx:1: no .target directive"},
      {".version\n", "t.ptx:1: .version without a value"},
      {"", "t.ptx:1: no .version directive"},
  };
  for (const auto& [text, message] : cases) {
    Result<PtxInfo> info = read_ptx(text, "t.ptx");
    ASSERT_FALSE(info) << text;
    EXPECT_TRUE(info.error().message.starts_with(message)) << info.error().message << "\n  wanted: " << message;
  }
}

}  // namespace
}  // namespace kiln::image
