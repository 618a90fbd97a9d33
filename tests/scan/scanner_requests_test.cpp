// Requests to the Kiln runtime in host code, and their resolution to instantiations.
#include "scan_fixture.hpp"

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

using namespace kiln::scan;
using Found = std::set<std::pair<std::string, FoundBy>>;
using Requests = std::vector<std::pair<RuntimeRequest::What, std::string>>;
constexpr auto k_kernel = RuntimeRequest::What::kernel;
constexpr auto k_variable = RuntimeRequest::What::variable;

Requests requests(const ScanResult& r) {
  Requests out;
  for (const RuntimeRequest& q : r.requests) out.emplace_back(q.what, q.name);
  return out;
}

TEST(ScanRequests, CppHostSourceThroughKilnHpp) {
  const ScanResult r = scan_fixture("requests_host.cpp", ScanInput::Role::host);
  ASSERT_TRUE(r.ok()) << describe(r);
  // Names exactly as written, in source order; the non-constant one is a warning instead.
  EXPECT_EQ(requests(r), (Requests{{k_kernel, "reduce::block_sum<float, 256u>"},
                                   {k_kernel, "reduce::block_sum< int , 2 * 64 >"},
                                   {k_kernel, "plain"},
                                   {k_kernel, "reduce::scale<double>"},
                                   {k_kernel, "reduce::scale<float, float>"},
                                   {k_variable, "table"}}));
  ASSERT_EQ(r.diagnostics.size(), 1u) << describe(r);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::warning);
  EXPECT_EQ(r.diagnostics[0].location.file, "requests_host.cpp");
  EXPECT_EQ(r.diagnostics[0].location.line, 16);
  EXPECT_EQ(r.requests[0].location.line, 11);
  EXPECT_EQ(r.requests[0].location.column, 33);
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_TRUE(r.instantiations.empty());   // a host source has no kernels to resolve against
  EXPECT_TRUE(r.has_host_code);
}

TEST(ScanRequests, EveryApiThatTakesAKernelNameIsARequest) {
  const ScanResult r = scan_fixture("requests_every_api.cpp", ScanInput::Role::host);
  ASSERT_TRUE(r.ok()) << describe(r);
  // Package::image, image_for_arch, find_kernel, coverage; kiln_package_select_image,
  // kiln_package_select_image_for_arch, kiln_package_find_kernel. kiln.hpp's own calls of the C API
  // (coverage() calls find_kernel()) pass names through and are not requests.
  EXPECT_EQ(requests(r), (Requests{{k_kernel, "reduce::scale<double>"},
                                   {k_kernel, "reduce::block_sum<float, 256>"},
                                   {k_kernel, "plain"},
                                   {k_kernel, "reduce::scale<float>"},
                                   {k_kernel, "reduce::scale<int>"},
                                   {k_kernel, "reduce::scale<char>"},
                                   {k_kernel, "reduce::scale<short>"}}));
  ASSERT_EQ(r.diagnostics.size(), 1u) << describe(r);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::warning);
  EXPECT_EQ(r.diagnostics[0].location.line, 18);
  EXPECT_EQ(r.diagnostics[0].location.column, 35);
}

TEST(ScanRequests, CHostSourceThroughKilnH) {
  const ScanResult r = scan_fixture("requests_c.c", ScanInput::Role::host);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(requests(r), (Requests{{k_kernel, "reduce::scale<float>"},
                                   {k_kernel, "reduce::block_sum<float, 256>"},
                                   {k_variable, "table"}}));
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
}

TEST(ScanRequests, HostRequestsResolveAgainstKernelSource) {
  const ScanInput kernels = fixture_input("reduce_kernels.cu");
  const ScanResult scanned = scan_source(kernels);
  ASSERT_TRUE(scanned.ok()) << describe(scanned);
  EXPECT_EQ(kernel_names(scanned), (std::set<std::string>{"reduce::block_sum", "reduce::scale", "plain"}));
  EXPECT_TRUE(scanned.instantiations.empty());
  ASSERT_EQ(scanned.variables.size(), 1u);
  EXPECT_EQ(scanned.variables[0].qualified_name, "table");

  std::vector<RuntimeRequest> all = scan_fixture("requests_host.cpp", ScanInput::Role::host).requests;
  const std::vector<RuntimeRequest> c = scan_fixture("requests_c.c", ScanInput::Role::host).requests;
  all.insert(all.end(), c.begin(), c.end());
  const Resolution resolved = resolve_requests(kernels, scanned, all);
  ScanResult as_result;
  as_result.instantiations = resolved.instantiations;
  EXPECT_EQ(instantiations(as_result),
            (Found{{"reduce::block_sum<float, 256>", FoundBy::runtime_request},
                   {"reduce::block_sum<int, 128>", FoundBy::runtime_request},
                   {"reduce::scale<double>", FoundBy::runtime_request},
                   {"reduce::scale<float>", FoundBy::runtime_request}}));
  // block_sum<float, 256> is asked for twice (256u in C++, 256 in C): one instantiation per request.
  ASSERT_EQ(resolved.instantiations.size(), 5u);
  for (const Instantiation& i : resolved.instantiations) {
    EXPECT_TRUE(i.location.file == "requests_host.cpp" || i.location.file == "requests_c.c") << i.location.file;
    EXPECT_EQ(i.kernel, i.name_expression.substr(0, i.name_expression.find('<')));
  }
  // "reduce::scale<float, float>" names the template but matches no specialization.
  ASSERT_EQ(resolved.diagnostics.size(), 1u);
  EXPECT_EQ(resolved.diagnostics[0].severity, Diagnostic::Severity::warning);
  EXPECT_EQ(resolved.diagnostics[0].location.line, 15);
  EXPECT_NE(resolved.diagnostics[0].message.find("reduce::scale<float, float>"), std::string::npos);
}

TEST(ScanRequests, RequestsForOtherSourcesKernelsAreSkipped) {
  const ScanInput kernels = fixture_input("variadic.cu");
  const ScanResult scanned = scan_source(kernels);
  ASSERT_TRUE(scanned.ok()) << describe(scanned);
  const std::vector<RuntimeRequest> requests = scan_fixture("requests_host.cpp", ScanInput::Role::host).requests;
  const Resolution resolved = resolve_requests(kernels, scanned, requests);
  EXPECT_TRUE(resolved.instantiations.empty());
  EXPECT_TRUE(resolved.diagnostics.empty());
}

TEST(ScanRequests, KernelSourceResolvesItsOwnRequests) {
  const ScanResult r = scan_fixture("requests_self.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"twice", "(anonymous namespace)::rotate"}));
  EXPECT_EQ(requests(r), (Requests{{k_kernel, "twice<float>"}, {k_kernel, "rotate<int, 3>"}, {k_kernel, "twice<long>"}}));
  EXPECT_EQ(instantiations(r), (Found{{"twice<float>", FoundBy::runtime_request},
                                     {"rotate<int, 3>", FoundBy::runtime_request},
                                     {"twice<long>", FoundBy::runtime_request}}));
  ASSERT_EQ(warnings(r).size(), 1u) << describe(r);   // kiln_package_get_kernel(p, argv[argc - 1], ...)
  EXPECT_EQ(r.diagnostics[0].location.line, 20);
  EXPECT_TRUE(r.has_host_code);
}

}  // namespace
}  // namespace kiln::test
