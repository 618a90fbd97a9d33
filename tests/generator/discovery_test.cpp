// From scan results to what each unit builds: found instantiations, user variables, requests
// assigned to the unit that defines their kernel, and warnings for what would vanish silently.
#include "plan/build_plan.hpp"
#include "plan/discovery.hpp"
#include "util/diagnostic.hpp"

#include <gtest/gtest.h>

namespace kiln::plan {
namespace {

using scan::FoundBy;
using scan::Kernel;
using scan::ScanResult;
using Strings = std::vector<std::string>;

Kernel kernel(const std::string& name, bool is_template, const std::string& file, int line) {
  Kernel k;
  k.qualified_name = name;
  k.is_template = is_template;
  k.location = {file, line, 1};
  return k;
}

Strings expressions(const std::vector<PlannedName>& names) {
  Strings out;
  for (const PlannedName& n : names) out.push_back(n.expression);
  return out;
}

// The findings as kiln build prints them without --strict.
std::vector<std::string> warnings(const Discovery& d) {
  std::vector<std::string> lines;
  for (const kiln::plan::Finding& f : d.findings) lines.push_back(render(f, false));
  return lines;
}

class DiscoveryTest : public ::testing::Test {
protected:
  DiscoveryTest() {
    m_manifest.path = "/p/kiln.toml";
    m_manifest.root = "/p";
    m_manifest.sources = {{"a.cu", 3, 1, {"scale<int>"}, {{3, 15}}, {}, {}, {}}, {"b.cu", 6, 1, {}, {}, {}, {}, {}}};
    // a.cu: device-only, templates scale (listed) and block_sum (requested), a launch-free unused one.
    ScanResult& a = m_kernels.emplace_back(ScannedFile{"a.cu", {}}).result;
    a.kernels = {kernel("scale", true, "a.cu", 2), kernel("block_sum", true, "a.cu", 5), kernel("unused", true, "a.cu", 9),
                 kernel("plain", false, "a.cu", 12)};
    a.variables = {{"bias", scan::Variable::Kind::constant, "float", false, {"a.cu", 1, 1}},
                   {"cuda::std::__4::__cpo::begin", scan::Variable::Kind::device, "", false, {"/opt/cuda/include/cuda/std/x", 1, 1}}};
    // b.cu: host code; launches fill<float>; a managed variable in a namespace.
    ScanResult& b = m_kernels.emplace_back(ScannedFile{"b.cu", {}}).result;
    b.has_host_code = true;
    b.kernels = {kernel("ops::fill", true, "b.cu", 4)};
    b.instantiations = {{"ops::fill", "ops::fill<float>", FoundBy::launch, {"b.cu", 20, 3}}};
    b.variables = {{"ops::flag", scan::Variable::Kind::managed, "int", false, {"b.cu", 2, 1}},
                   {"(anonymous namespace)::hidden", scan::Variable::Kind::managed, "int", true, {"b.cu", 3, 1}}};
    // A kernel source resolved app.cpp's request for block_sum (scan_phase.cpp does that).
    m_kernels[0].result.instantiations.push_back(
        {"block_sum", "block_sum<float, 256>", FoundBy::runtime_request, {"src/app.cpp", 7, 20}});
    ScanResult& app = m_hosts.emplace_back(ScannedFile{"src/app.cpp", {}}).result;
    app.requests = {{scan::RuntimeRequest::What::kernel, "block_sum<float, 256u>", {"src/app.cpp", 7, 20}},
                    {scan::RuntimeRequest::What::kernel, "::plain", {"src/app.cpp", 8, 20}},
                    {scan::RuntimeRequest::What::kernel, "missing<int>", {"src/app.cpp", 9, 20}},
                    {scan::RuntimeRequest::What::variable, "ops::flag", {"src/app.cpp", 10, 20}}};
  }

  Discovery discover_all() const { return discover(m_manifest, m_kernels, m_hosts, {"p/", "/opt/cuda", "/p"}); }

  manifest::Manifest m_manifest;
  std::vector<ScannedFile> m_kernels, m_hosts;
};

TEST_F(DiscoveryTest, RequestsGoToTheUnitThatDefinesTheirKernelUnderBothSpellings) {
  const Discovery d = discover_all();
  const SourceDiscovery& a = d.sources.at("a.cu");
  EXPECT_FALSE(a.has_host_code);
  EXPECT_EQ(expressions(a.kernels), (Strings{"block_sum<float, 256>", "block_sum<float, 256u>", "::plain"}));
  EXPECT_EQ(a.kernels[0].origin, NameOrigin::discovered);
  EXPECT_EQ(a.kernels[1].origin, NameOrigin::request);
  EXPECT_EQ(a.kernels[1].canonical, "block_sum<float, 256>");
  EXPECT_EQ(a.kernels[1].where.file, "src/app.cpp");
  EXPECT_EQ(a.kernels[1].where.line, 7);
  // Asked for from elsewhere: an image part may hold them.
  EXPECT_FALSE(a.kernels[0].in_source_text);
  EXPECT_FALSE(a.kernels[1].in_source_text);
}

TEST_F(DiscoveryTest, FoundInstantiationsAndUserVariablesOnly) {
  const Discovery d = discover_all();
  EXPECT_EQ(expressions(d.sources.at("a.cu").variables), Strings{"bias"}) << "toolkit variables are not the user's";
  const SourceDiscovery& b = d.sources.at("b.cu");
  EXPECT_TRUE(b.has_host_code);
  EXPECT_EQ(expressions(b.kernels), Strings{"ops::fill<float>"});
  // A launch in the source: its compiler builds the kernel whatever a program asks (image parts).
  EXPECT_TRUE(b.kernels[0].in_source_text);
  ASSERT_EQ(expressions(b.variables), (Strings{"ops::flag", "hidden", "ops::flag"}));
  EXPECT_TRUE(b.variables[0].managed);
  EXPECT_EQ(b.variables[0].symbol, "_ZN3ops4flagE");
  EXPECT_EQ(b.variables[1].symbol, "") << "an unnamed namespace's symbol is the compiler's to choose";
  EXPECT_EQ(b.variables[2].origin, NameOrigin::request);
}

TEST_F(DiscoveryTest, WarnsAboutUninstantiatedTemplatesAndUnknownRequests) {
  const Discovery d = discover_all();
  ASSERT_EQ(warnings(d).size(), 2u) << ::testing::PrintToString(warnings(d));
  EXPECT_EQ(warnings(d)[0].rfind("p/src/app.cpp:9:20: warning: the runtime request for kernel 'missing<int>' names no kernel", 0), 0u)
      << warnings(d)[0];
  EXPECT_EQ(warnings(d)[1].rfind("p/a.cu:9:1: warning: kernel template 'unused' is never instantiated", 0), 0u) << warnings(d)[1];
}

TEST_F(DiscoveryTest, AShardLeavesRequestsForUnscannedSourcesToTheMerge) {
  // Shard of a.cu alone: b.cu is another shard's, not scanned. 'missing<int>' might be one of its
  // kernels, and the variable 'ops::flag' is one of its: no findings, two requests left to the merge;
  // a.cu's own answers are unchanged.
  m_kernels[1] = ScannedFile{"b.cu", {}};
  m_kernels[1].another_shards = true;
  const Discovery d = discover_all();
  ASSERT_EQ(warnings(d).size(), 1u) << ::testing::PrintToString(warnings(d));
  EXPECT_EQ(warnings(d)[0].rfind("p/a.cu:9:1: warning: kernel template 'unused' is never instantiated", 0), 0u);
  EXPECT_EQ(d.left_to_the_merge, 2u);
  EXPECT_EQ(expressions(d.sources.at("a.cu").kernels).front(), "block_sum<float, 256>");
  // Every source scanned (the merge, an unsharded build): the request is a finding again.
  m_kernels[1].another_shards = false;
  EXPECT_EQ(discover_all().left_to_the_merge, 0u);
}

TEST_F(DiscoveryTest, PythonRequestsAreHostRequestsLikeAnyOther) {
  // scan_phase.cpp lists Python sources among the host sources; a.cu resolved its request.
  ScanResult& ops = m_hosts.emplace_back(ScannedFile{"pkg/ops.py", {}}).result;
  ops.requests = {{scan::RuntimeRequest::What::kernel, "unused<double>", {"pkg/ops.py", 4, 24}},
                  {scan::RuntimeRequest::What::kernel, "absent", {"pkg/ops.py", 6, 24}}};
  m_kernels[0].result.instantiations.push_back(
      {"unused", "unused<double>", FoundBy::runtime_request, {"pkg/ops.py", 4, 24}});
  const Discovery d = discover_all();
  const SourceDiscovery& a = d.sources.at("a.cu");
  // Requests are taken in order of place: pkg/ops.py before src/app.cpp.
  EXPECT_EQ(expressions(a.kernels), (Strings{"unused<double>", "block_sum<float, 256>", "block_sum<float, 256u>",
                                             "::plain"}));
  EXPECT_EQ(a.kernels[0].where.file, "pkg/ops.py");
  EXPECT_EQ(a.kernels[0].origin, NameOrigin::request);
  ASSERT_EQ(warnings(d).size(), 2u) << ::testing::PrintToString(warnings(d));
  EXPECT_EQ(warnings(d)[0].rfind("p/pkg/ops.py:6:24: warning: the runtime request for kernel 'absent' names no kernel", 0),
            0u) << warnings(d)[0];
  EXPECT_EQ(warnings(d)[1].rfind("p/src/app.cpp:9:20: warning: the runtime request for kernel 'missing<int>'", 0), 0u)
      << warnings(d)[1];
}

TEST_F(DiscoveryTest, PlanMergesManifestNamesFirstAndPicksTheCompiler) {
  compile::Toolkit toolkit;
  toolkit.root = "/opt/cuda";
  toolkit.supported_archs = {80};
  m_manifest.targets = {"sm_80"};
  m_manifest.options = {"-std=c++20", "--restrict"};
  const Result<BuildPlan> plan = make_plan(m_manifest, toolkit, {"p/", "/s"}, discover_all());
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->units.size(), 2u);
  EXPECT_EQ(expressions(plan->units[0].kernels),
            (Strings{"scale<int>", "block_sum<float, 256>", "block_sum<float, 256u>", "::plain"}));
  EXPECT_EQ(plan->units[0].compiler, compile::Compiler::nvrtc);
  EXPECT_EQ(plan->units[1].compiler, compile::Compiler::nvcc);
  // NVRTC job: names and variables as name expressions.
  const compile::CompileJob& a = plan->jobs[0];
  EXPECT_EQ(a.name_expressions, (Strings{"scale<int>", "block_sum<float, 256>", "block_sum<float, 256u>", "::plain"}));
  EXPECT_EQ(a.variables, Strings{"bias"});
  ASSERT_EQ(a.expression_origins.size(), 4u);
  EXPECT_EQ(a.expression_origins[0].file, "kiln.toml");
  EXPECT_EQ(a.expression_origins[0].line, 3);
  // nvcc job: its own options, the toolkit's nvcc, a work directory.
  const compile::CompileJob& b = plan->jobs[1];
  EXPECT_EQ(b.compiler, compile::Compiler::nvcc);
  EXPECT_EQ(b.nvcc, "/opt/cuda/bin/nvcc");
  EXPECT_EQ(b.nvcc_options, (Strings{"-I/opt/cuda/include/cccl", "-I/opt/cuda/include", "--std=c++20", "--restrict"}));
  EXPECT_EQ(b.work_dir, "/s/nvcc-1");
  EXPECT_EQ(a.nvrtc_options, (Strings{"-I/opt/cuda/include/cccl", "-I/opt/cuda/include", "--std=c++20", "--restrict"}));
  // The device-only unit goes to nvcc if NVRTC rejects it; the other compiles with nvcc anyway.
  EXPECT_TRUE(plan->units[0].nvcc_fallback);
}

TEST_F(DiscoveryTest, OptionsOneCompilerLacksDecideTheCompiler) {
  compile::Toolkit toolkit;
  toolkit.root = "/opt/cuda";
  toolkit.supported_archs = {80};
  m_manifest.targets = {"sm_80"};
  // NVRTC lacks --extended-lambda: the device-only a.cu compiles with nvcc too.
  m_manifest.sources[0].options = {"--extended-lambda"};
  Result<BuildPlan> plan = make_plan(m_manifest, toolkit, {"p/", "/s"}, discover_all());
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->units[0].compiler, compile::Compiler::nvcc);
  EXPECT_EQ(plan->jobs[0].nvcc_options.back(), "--extended-lambda");
  // nvcc lacks -default-device: a device-only unit keeps NVRTC without the fallback...
  m_manifest.sources[0].options = {"-default-device"};
  plan = make_plan(m_manifest, toolkit, {"p/", "/s"}, discover_all());
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->units[0].compiler, compile::Compiler::nvrtc);
  EXPECT_FALSE(plan->units[0].nvcc_fallback);
  // ...and a unit with host code cannot take it.
  m_manifest.sources[0].options = {};
  m_manifest.sources[1].options = {"-default-device"};
  plan = make_plan(m_manifest, toolkit, {"p/", "/s"}, discover_all());
  ASSERT_FALSE(plan);
  // At the source's [[source]] entry (line 6, column 1), as the manifest's own errors are.
  EXPECT_EQ(diagnostic(plan.error()), "/p/kiln.toml:6:1: error: source 'b.cu': this source has host code, so nvcc "
                                      "compiles it, and option '-default-device' is NVRTC's alone");
  m_manifest.sources[1].options = {"--extended-lambda", "-default-device"};
  plan = make_plan(m_manifest, toolkit, {"p/", "/s"}, discover_all());
  ASSERT_FALSE(plan);
  EXPECT_EQ(diagnostic(plan.error()), "/p/kiln.toml:6:1: error: source 'b.cu': option '--extended-lambda' is nvcc's "
                                      "alone and '-default-device' NVRTC's alone: no compiler takes both");
}

TEST_F(DiscoveryTest, ManagedVariablesOfNvrtcUnitsAreKeptBySymbol) {
  compile::Toolkit toolkit;
  toolkit.root = "/opt/cuda";
  toolkit.supported_archs = {80};
  m_manifest.targets = {"sm_80"};
  m_kernels[1].result.has_host_code = false;
  const Result<BuildPlan> plan = make_plan(m_manifest, toolkit, {"", "/s"}, discover_all());
  ASSERT_TRUE(plan) << plan.error().message;
  const compile::CompileJob& b = plan->jobs[1];
  EXPECT_EQ(b.compiler, compile::Compiler::nvrtc);
  EXPECT_TRUE(b.variables.empty()) << "NVRTC refuses __managed__ variables as name expressions";
  EXPECT_EQ(b.keep_symbols, Strings{"_ZN3ops4flagE"});
}

TEST(VariableSymbol, ItaniumNamesForPlainQualifiedNames) {
  EXPECT_EQ(variable_symbol("counter"), "counter");
  EXPECT_EQ(variable_symbol("::counter"), "counter");
  EXPECT_EQ(variable_symbol("tables::inner::coeffs"), "_ZN6tables5inner6coeffsE");
  EXPECT_EQ(variable_symbol("(anonymous namespace)::x"), "");
  EXPECT_EQ(variable_symbol("holder<int>::x"), "");
}

TEST(TemplateName, TheNameBeforeTheArguments) {
  EXPECT_EQ(template_name("ns::k<float, 256>"), "ns::k");
  EXPECT_EQ(template_name(" plain "), "plain");
}


}  // namespace
}  // namespace kiln::plan
