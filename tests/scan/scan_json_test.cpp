// ScanResult <-> JSON: a lossless round trip, and errors that name the bad field.
#include "scan/scan_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kiln::test {
namespace {

using namespace kiln::scan;

ScanResult sample() {
  ScanResult r;
  Kernel k;
  k.qualified_name = "reduce::block_sum";
  k.parameters = {{"in", "const T *"}, {"", "int"}};
  k.template_parameters = {{TemplateParameter::Kind::type, "T", "", false, "float"},
                           {TemplateParameter::Kind::non_type, "N", "int", false, std::nullopt},
                           {TemplateParameter::Kind::template_template, "Op", "", true, std::nullopt}};
  k.is_template = true;
  k.internal_linkage = true;
  k.launch_bounds = "256, 2";
  k.location = {"k.cu", 3, 17};
  r.kernels.push_back(k);
  Kernel c;
  c.qualified_name = "saxpy";
  c.extern_c = true;
  r.kernels.push_back(c);
  r.instantiations = {{"reduce::block_sum", "reduce::block_sum<float, 256>", FoundBy::launch, {"k.cu", 40, 3}},
                      {"reduce::block_sum", "reduce::block_sum<int, 64>", FoundBy::runtime_request, {"h.cpp", 1, 2}}};
  r.instantiations[0].under_arch_test = true;
  r.requests = {{RuntimeRequest::What::variable, "table", {"h.cpp", 5, 6}}};
  r.variables = {{"tables::coeffs", Variable::Kind::managed, "float[64]", true, {"k.cu", 1, 1}}};
  r.headers = {{"/usr/include/x.h", 0xfedcba9876543210ull}, {"a.cuh", 1}};
  r.diagnostics = {{Diagnostic::Severity::warning, {"k.cu", 7, 1}, "careful"}};
  r.has_host_code = true;
  return r;
}

TEST(ScanJson, RoundTripKeepsEverything) {
  const ScanResult r = sample();
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["headers"][0]["hash"], "fedcba9876543210");
  EXPECT_EQ(j["instantiations"][1]["found_by"], "runtime_request");
  EXPECT_FALSE(j["kernels"][1].contains("launch_bounds"));
  Result<ScanResult> back = from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(to_json(*back), j);
  EXPECT_EQ(back->headers[0].content_hash, 0xfedcba9876543210ull);
  EXPECT_EQ(back->kernels[0].template_parameters[0].default_argument, "float");
  EXPECT_FALSE(back->kernels[0].template_parameters[1].default_argument.has_value());
  EXPECT_EQ(back->kernels[0].launch_bounds, "256, 2");
  EXPECT_TRUE(back->instantiations[0].under_arch_test);
  EXPECT_FALSE(back->instantiations[1].under_arch_test);
  EXPECT_FALSE(j["instantiations"][1].contains("under_arch_test"));
  EXPECT_TRUE(back->has_host_code);
}

TEST(ScanJson, ErrorsNameTheField) {
  nlohmann::json j = to_json(sample());
  j["kernels"][0]["location"]["line"] = "three";
  Result<ScanResult> r = from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "scan result: kernels[0].location.line: expected an integer");

  j = to_json(sample());
  j["instantiations"][1]["found_by"] = "guessed";
  r = from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "scan result: instantiations[1].found_by: unknown value 'guessed'");

  j = to_json(sample());
  j.erase("has_host_code");
  EXPECT_EQ(from_json(j).error().message, "scan result: has_host_code: missing");
  j = to_json(sample());
  j["headers"][1]["hash"] = "xyz";
  EXPECT_EQ(from_json(j).error().message, "scan result: headers[1].hash: expected 16 hex digits");
  EXPECT_FALSE(from_json(nlohmann::json::array()).ok());
}

TEST(ScanJson, FoundByStrings) {
  for (FoundBy f : {FoundBy::explicit_instantiation, FoundBy::explicit_specialization, FoundBy::launch,
                    FoundBy::address_taken, FoundBy::runtime_request})
    EXPECT_EQ(found_by_from_string(to_string(f)), f);
  EXPECT_FALSE(found_by_from_string("nope").has_value());
}

}  // namespace
}  // namespace kiln::test
