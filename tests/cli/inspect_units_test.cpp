// kiln inspect and kiln verify on link groups and source variants: each shows its sources, a variant
// kernel its variant; verify finds a variant kernel in its image by its symbol and names that symbol
// when it is missing. The package is written directly (PTX images whose .entry lines are the
// symbols), as the generator's link groups and variants are tested with the build.
#include "writer/package_writer.hpp"
#include "kiln_runner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::test {
namespace {

std::vector<std::byte> ptx(const std::vector<std::string>& entries) {
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n";
  for (const std::string& e : entries) text += ".visible .entry " + e + "()\n{\n\tret;\n}\n";
  std::vector<std::byte> bytes(text.size() + 1);
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

// ops.cu and its variant f64 hold scale<double>'s symbol; rdc links a.cu and b.cu. `f64_entries`
// are the symbols the variant's image defines.
std::vector<std::byte> package(const std::vector<std::string>& f64_entries = {"_Z5scaleIdEvPT_"}) {
  format::PackageContents c;
  c.targets = {"compute_80"};
  c.units = {{"ops.cu", {{"compute_80", ptx({"_Z5scaleIdEvPT_"}), 80}}},
             {"f64", {{"compute_80", ptx(f64_entries), 80}}, {"ops.cu"}, true},
             {"rdc", {{"compute_80", ptx({"ping"}), 80}}, {"b.cu", "a.cu"}}};
  c.kernels = {{"_Z5scaleIdEvPT_", "scale<double>", "ops.cu", format::k_kernel_template, {}, {}},
               {"f64/_Z5scaleIdEvPT_", "f64/scale<double>", "f64", format::k_kernel_template | format::k_kernel_variant,
                {}, {}},
               {"ping", "ping", "rdc", format::k_kernel_extern_c, {}, {}}};
  Result<std::vector<std::byte>> written = format::write_package(c);
  EXPECT_TRUE(written.ok()) << written.error().message;
  return written ? std::move(written).value() : std::vector<std::byte>();
}

TEST(InspectUnits, TextShowsEachUnitsSourcesAndTheVariantKernels) {
  ScratchDir dir;
  write_bytes(dir.path() / "app.kiln", package());
  const RunResult r = run_kiln({"inspect", "app.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* expected : {"Kiln package format 2.0", "  f64 (variant of ops.cu): 1 images",
                               "  rdc (link group: a.cu, b.cu): 1 images", "  ops.cu: 1 images", "f64/scale<double>"})
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
}

TEST(InspectUnits, JsonGivesKindSourcesAndVariant) {
  ScratchDir dir;
  write_bytes(dir.path() / "app.kiln", package());
  const RunResult r = run_kiln({"inspect", "app.kiln", "--json"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report["units"].size(), 3u);   // sorted by name: f64, ops.cu, rdc
  EXPECT_EQ(report["units"][0]["source"], "f64");
  EXPECT_EQ(report["units"][0]["kind"], "variant");
  EXPECT_EQ(report["units"][0]["sources"], nlohmann::json({"ops.cu"}));
  EXPECT_EQ(report["units"][1]["kind"], "source");
  EXPECT_EQ(report["units"][1]["sources"], nlohmann::json({"ops.cu"}));
  EXPECT_EQ(report["units"][2]["kind"], "link_group");
  EXPECT_EQ(report["units"][2]["sources"], nlohmann::json({"a.cu", "b.cu"}));
  int variants = 0;
  for (const auto& k : report["kernels"]) {
    if (k["name"] != "f64/scale<double>") {
      EXPECT_TRUE(k["variant"].is_null()) << k;
      continue;
    }
    ++variants;
    EXPECT_EQ(k["variant"], "f64");
    EXPECT_EQ(k["lowered_name"], "_Z5scaleIdEvPT_");
    EXPECT_EQ(k["unit"], "f64");
  }
  EXPECT_EQ(variants, 1);
}

TEST(InspectUnits, VerifyLooksForAVariantKernelsSymbol) {
  ScratchDir dir;
  write_bytes(dir.path() / "app.kiln", package());
  RunResult r = run_kiln({"verify", "app.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ok (15 sections, 3 images, 3 kernels)"), std::string::npos) << r.out;
  // The variant's image without the symbol: the message names the symbol, not "f64/...".
  write_bytes(dir.path() / "app.kiln", package({"other"}));
  r = run_kiln({"verify", "app.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("app.kiln: error: f64 [compute_80]: kernel _Z5scaleIdEvPT_ is not in the image"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kiln::test
