// scan_source on the kernel fixtures: the exact kernels and instantiations each one yields.
#include "scan_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

namespace kiln::test {
namespace {

using namespace kiln::scan;
using Found = std::set<std::pair<std::string, FoundBy>>;

bool has_header_ending(const ScanResult& r, const std::string& suffix) {
  return std::any_of(r.headers.begin(), r.headers.end(), [&](const Header& h) {
    return h.path.size() >= suffix.size() && h.path.compare(h.path.size() - suffix.size(), suffix.size(), suffix) == 0;
  });
}

TEST(ScanKernels, NamespacesStaticExternCAndVariables) {
  const ScanResult r = scan_fixture("namespaces.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"math::scale", "math::fill", "(anonymous namespace)::hidden",
                                                    "(anonymous namespace)::hidden_shift", "local_kernel", "c_entry"}));
  EXPECT_EQ(instantiations(r), (Found{{"math::fill<int>", FoundBy::explicit_instantiation},
                                     {"hidden_shift<3>", FoundBy::explicit_instantiation}}));
  const Kernel& scale = kernel(r, "math::scale");
  EXPECT_EQ(scale.launch_bounds, "THREADS, 2");
  EXPECT_FALSE(scale.internal_linkage);
  EXPECT_FALSE(scale.is_template);
  ASSERT_EQ(scale.parameters.size(), 2u);
  EXPECT_EQ(scale.parameters[0].name, "data");
  EXPECT_EQ(scale.parameters[0].type, "float *");
  EXPECT_EQ(scale.location.file, "namespaces.cu");
  EXPECT_EQ(scale.location.line, 13);
  EXPECT_TRUE(kernel(r, "(anonymous namespace)::hidden").internal_linkage);
  EXPECT_TRUE(kernel(r, "(anonymous namespace)::hidden_shift").internal_linkage);
  EXPECT_TRUE(kernel(r, "local_kernel").internal_linkage);
  EXPECT_TRUE(kernel(r, "c_entry").extern_c);
  EXPECT_FALSE(kernel(r, "math::fill").extern_c);
  std::set<std::tuple<std::string, Variable::Kind, std::string>> variables;
  for (const Variable& v : r.variables) variables.emplace(v.qualified_name, v.kind, v.type);
  EXPECT_EQ(variables, (std::set<std::tuple<std::string, Variable::Kind, std::string>>{
                           {"math::coeffs", Variable::Kind::constant, "float[16]"},
                           {"(anonymous namespace)::hidden_counter", Variable::Kind::device, "int"},
                           {"managed_total", Variable::Kind::managed, "int"},
                           {"managed_device_total", Variable::Kind::managed, "int"}}));
  EXPECT_FALSE(r.has_host_code);
}

TEST(ScanKernels, FunctorTypes) {
  const ScanResult r = scan_fixture("functor.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"apply", "combine"}));
  EXPECT_EQ(instantiations(r), (Found{{"apply<ops::Square>", FoundBy::explicit_instantiation},
                                     {"apply<ops::Scale<float>>", FoundBy::explicit_instantiation},
                                     {"apply<Negate>", FoundBy::explicit_instantiation},
                                     {"apply<Outer::Inner>", FoundBy::explicit_instantiation},
                                     {"combine<cuda::std::plus<float>, float>", FoundBy::explicit_instantiation}}));
  EXPECT_TRUE(has_header_ending(r, "cuda/std/functional"));
  EXPECT_TRUE(std::all_of(r.headers.begin(), r.headers.end(), [](const Header& h) { return h.content_hash != 0; }));
  EXPECT_TRUE(r.variables.empty());   // libcu++'s own device variables are not the user's
  EXPECT_FALSE(r.has_host_code);
}

TEST(ScanKernels, VariadicTemplates) {
  const ScanResult r = scan_fixture("variadic.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"count_args", "sum_constants", "first_of"}));
  EXPECT_EQ(instantiations(r), (Found{{"count_args<>", FoundBy::explicit_instantiation},
                                     {"count_args<int, float, double>", FoundBy::explicit_instantiation},
                                     {"sum_constants<1, 2, 3>", FoundBy::explicit_instantiation},
                                     {"first_of<float, char>", FoundBy::explicit_instantiation},
                                     {"first_of<unsigned long>", FoundBy::explicit_instantiation}}));
  const Kernel& sum = kernel(r, "sum_constants");
  ASSERT_EQ(sum.template_parameters.size(), 1u);
  EXPECT_EQ(sum.template_parameters[0].kind, TemplateParameter::Kind::non_type);
  EXPECT_EQ(sum.template_parameters[0].type, "int");
  EXPECT_TRUE(sum.template_parameters[0].pack);
  const Kernel& first = kernel(r, "first_of");
  ASSERT_EQ(first.template_parameters.size(), 2u);
  EXPECT_FALSE(first.template_parameters[0].pack);
  EXPECT_TRUE(first.template_parameters[1].pack);
  EXPECT_EQ(first.template_parameters[1].name, "Rest");
}

TEST(ScanKernels, DefaultTemplateArgumentsAndSpecialization) {
  const ScanResult r = scan_fixture("defaults.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"transform", "tagged", "flags"}));
  // Defaults spelled out; values for `auto` parameters keep their type; enumerators by name.
  EXPECT_EQ(instantiations(r), (Found{{"transform<float, 128, Identity, Mode::fast>", FoundBy::explicit_instantiation},
                                     {"transform<double, 64, Halve, Mode::exact>", FoundBy::explicit_instantiation},
                                     {"transform<int, 128, Identity, Mode::fast>", FoundBy::explicit_specialization},
                                     {"tagged<18446744073709551615u, 7u>", FoundBy::explicit_instantiation},
                                     {"tagged<1, static_cast<short>(5)>", FoundBy::explicit_instantiation},
                                     {"tagged<2, 5l>", FoundBy::explicit_instantiation},
                                     {"tagged<3, Mode::exact>", FoundBy::explicit_instantiation},
                                     {"tagged<4, static_cast<Mode>(7)>", FoundBy::explicit_instantiation},
                                     {"flags<true, 97>", FoundBy::explicit_instantiation}}));
  const Kernel& t = kernel(r, "transform");
  ASSERT_EQ(t.template_parameters.size(), 4u);
  using K = TemplateParameter::Kind;
  const std::vector<std::tuple<K, std::string, std::string, std::string>> expected = {
      {K::type, "T", "", "float"},
      {K::non_type, "Block", "int", "128"},
      {K::template_template, "Op", "", "Identity"},
      {K::non_type, "M", "Mode", "Mode::fast"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const TemplateParameter& p = t.template_parameters[i];
    EXPECT_EQ(std::make_tuple(p.kind, p.name, p.type, p.default_argument.value_or("-")), expected[i]) << i;
  }
}

TEST(ScanKernels, TemplateInHeaderInstantiatedInSource) {
  const ScanResult r = scan_fixture("header_template.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"blas::axpy"}));
  EXPECT_EQ(instantiations(r), (Found{{"blas::axpy<float>", FoundBy::explicit_instantiation},
                                     {"blas::axpy<double>", FoundBy::explicit_instantiation}}));
  const Kernel& axpy = kernel(r, "blas::axpy");
  EXPECT_EQ(axpy.location.file, "include/axpy.cuh");
  EXPECT_EQ(axpy.location.line, 9);   // the definition, not the declaration on line 6
  ASSERT_EQ(axpy.parameters.size(), 4u);
  EXPECT_EQ(axpy.parameters[1].name, "x");
  for (const Instantiation& i : r.instantiations) EXPECT_EQ(i.location.file, "header_template.cu");
  EXPECT_TRUE(has_header_ending(r, "include/axpy.cuh"));
}

TEST(ScanKernels, IncludeFreeNvrtcSourceUsesThePrelude) {
  const ScanResult r = scan_fixture("nvrtc_style.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"saxpy", "strided_copy"}));
  EXPECT_EQ(instantiations(r), (Found{{"strided_copy<float, 2>", FoundBy::explicit_instantiation},
                                     {"strided_copy<short, 4>", FoundBy::explicit_instantiation}}));
  EXPECT_TRUE(kernel(r, "saxpy").extern_c);
  ASSERT_EQ(r.variables.size(), 2u);
  EXPECT_EQ(r.variables[0].qualified_name, "weights");
  EXPECT_EQ(r.variables[0].kind, Variable::Kind::constant);
  EXPECT_EQ(r.variables[0].type, "float[8]");
  EXPECT_EQ(r.variables[1].qualified_name, "hits");
  EXPECT_EQ(r.variables[1].kind, Variable::Kind::device);
  // The prelude parse reads clang's builtin variables and nothing of the toolkit.
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_TRUE(has_header_ending(r, "__clang_cuda_builtin_vars.h"));
  EXPECT_FALSE(r.has_host_code);
}

TEST(ScanKernels, IncludeFreeSourceNeedingTheWrapperFallsBack) {
  const ScanResult r = scan_fixture("nvrtc_sync.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"block_count"}));
  EXPECT_EQ(instantiations(r), (Found{{"block_count<128>", FoundBy::explicit_instantiation}}));
  EXPECT_TRUE(has_header_ending(r, "__clang_cuda_runtime_wrapper.h"));
  EXPECT_FALSE(r.has_host_code);
}

TEST(ScanKernels, CubTemplateInstantiatedOnlyByHostLaunches) {
  const ScanResult r = scan_fixture("cub_launch.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"reduce::block_sum"}));
  // main's launch, run_sum<double>'s (concrete only in the instantiated host template), the one
  // under #ifndef __CUDA_ARCH__ (host side only), and cudaLaunchKernel's address-of.
  EXPECT_EQ(instantiations(r), (Found{{"reduce::block_sum<float, 256>", FoundBy::launch},
                                     {"reduce::block_sum<double, 128>", FoundBy::launch},
                                     {"reduce::block_sum<int, 64>", FoundBy::launch},
                                     {"reduce::block_sum<unsigned int, 32>", FoundBy::address_taken}}));
  for (const Instantiation& i : r.instantiations) {
    EXPECT_EQ(i.kernel, "reduce::block_sum");
    EXPECT_EQ(i.location.file, "cub_launch.cu");
    // Only the launch under #ifndef __CUDA_ARCH__ is one nvcc's device pass may not see.
    EXPECT_EQ(i.under_arch_test, i.name_expression == "reduce::block_sum<int, 64>") << i.name_expression;
  }
  EXPECT_EQ(kernel(r, "reduce::block_sum").launch_bounds, "BlockSize");
  EXPECT_TRUE(r.has_host_code);
  EXPECT_TRUE(has_header_ending(r, "cub/block/block_reduce.cuh"));
  EXPECT_TRUE(r.variables.empty());
}

TEST(ScanKernels, BranchesForSm100AndLaterAreWarnings) {
  const ScanResult r = scan_fixture("arch_branches.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"tuned"}));
  std::vector<int> lines;
  for (const Diagnostic& d : r.diagnostics) {
    EXPECT_EQ(d.severity, Diagnostic::Severity::warning);
    EXPECT_EQ(d.location.file, "arch_branches.cu");
    lines.push_back(d.location.line);
  }
  EXPECT_EQ(lines, (std::vector<int>{5, 10}));   // `#if __CUDA_ARCH__ >= 1000` and NV_PROVIDES_SM_100
}

TEST(ScanKernels, SyntaxErrorGivesClangsDiagnosticAndNothingElse) {
  const ScanResult r = scan_fixture("syntax_error.cu");
  EXPECT_FALSE(r.ok());
  ASSERT_FALSE(r.diagnostics.empty());
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, Diagnostic::Severity::error);
  EXPECT_EQ(d.location.file, "syntax_error.cu");
  EXPECT_EQ(d.location.line, 3);
  EXPECT_EQ(d.location.column, 27);
  EXPECT_EQ(d.message, "expected ';' after expression");
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_TRUE(r.instantiations.empty());
  EXPECT_TRUE(r.headers.empty());
}

TEST(ScanKernels, MissingFileIsAnError) {
  const ScanResult r = scan_fixture("no_such_file.cu");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics[0].message, "cannot read no_such_file.cu: No such file or directory");
}

TEST(ScanKernels, DefinesReachThePreprocessor) {
  ScanInput input = fixture_input("defaults.cu");
  input.defines = {"transform=renamed"};
  const ScanResult r = scan_source(input);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"renamed", "tagged", "flags"}));
}

}  // namespace
}  // namespace kiln::test
