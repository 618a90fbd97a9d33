// What the writer refuses (contents the reader could not represent or would misread), and the
// message that names the offending target, unit, kernel or name.
#include "package_fixture.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace kiln::format::testing {
namespace {

std::string refusal(const std::function<void(PackageContents&)>& change) {
  PackageContents c = sample_contents();
  change(c);
  const Result<Bytes> written = write_package(c);
  EXPECT_FALSE(written.ok());
  EXPECT_EQ(status_of(written), KILN_STATUS_INVALID_ARGUMENT);
  return message_of(written);
}

TEST(PackageWriter, NameClaimedByTwoKernels) {
  PackageContents c;
  c.targets = {"sm_80"};
  c.units = {{"b.cu", {}}, {"a.cu", {}}};
  c.kernels = {{"_Z5scaleIdEvPd", "scale<double>", "b.cu", k_kernel_template, {}, {"scale"}},
               {"_Z5scaleIfEvPf", "scale<float>", "a.cu", k_kernel_template, {}, {" scale "}}};
  EXPECT_EQ(message_of(write_package(c)),
            "name 'scale' is claimed by kernels _Z5scaleIfEvPf (a.cu) and _Z5scaleIdEvPd (b.cu)");
  std::swap(c.kernels[0], c.kernels[1]);  // the message does not depend on input order
  EXPECT_EQ(message_of(write_package(c)),
            "name 'scale' is claimed by kernels _Z5scaleIfEvPf (a.cu) and _Z5scaleIdEvPd (b.cu)");
  // A canonical name counts as a claim too.
  c.kernels[0].names = {"scale<double>"};
  c.kernels[1].names = {};
  EXPECT_EQ(
      message_of(write_package(c)),
      "name 'scale<double>' is claimed by kernels _Z5scaleIfEvPf (a.cu) and _Z5scaleIdEvPd (b.cu)");
}

TEST(PackageWriter, TargetsAndImages) {
  EXPECT_EQ(refusal([](PackageContents& c) { c.targets.push_back("sm_9"); }),
            "'sm_9' is not a target (expected sm_XY or compute_XY, optionally with a or f)");
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.units[0].images.push_back({"sm_75", {}, 0});
            }),
            "unit 'kernels/scale.cu' has an image for target 'sm_75', which is not one of the "
            "package's targets");
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.units[0].images.push_back({"SM_80", {}, 0});
            }),
            "unit 'kernels/scale.cu' has an image for target 'SM_80', which is not one of the "
            "package's targets");
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.units[1].images.push_back({"sm_90a", bytes_of("x"), 0});
            }),
            "unit 'kernels/saxpy.cu' has two images for target sm_90a");
  EXPECT_EQ(refusal([](PackageContents& c) { c.units[0].images[1].ptx_version = 80; }),
            "unit 'kernels/scale.cu' has a cubin for sm_80 with a PTX version (80); only PTX "
            "images have one");
}

TEST(PackageWriter, Units) {
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.units.push_back({"kernels/saxpy.cu", {}});
            }),
            "unit 'kernels/saxpy.cu' is given twice");
  EXPECT_EQ(refusal([](PackageContents& c) { c.kernels[1].unit_source = "kernels/gone.cu"; }),
            "kernel saxpy names unit 'kernels/gone.cu', which is not in the package");
  EXPECT_EQ(refusal([](PackageContents& c) { c.variables[0].unit_source = "x.cu"; }),
            "variable 'scale_factor' names unit 'x.cu', which is not in the package");
}

TEST(PackageWriter, Kernels) {
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.kernels.push_back(c.kernels[0]);
              c.kernels.back().unit_source = "kernels/saxpy.cu";
            }),
            "kernel _Z5scaleIfEvPT_S0_i is given twice (kernels/saxpy.cu and kernels/scale.cu)");
  EXPECT_EQ(refusal([](PackageContents& c) { c.kernels[2].lowered_name.clear(); }),
            "a kernel of unit 'kernels/scale.cu' has an empty lowered name");
  EXPECT_EQ(refusal([](PackageContents& c) { c.kernels[2].names.push_back(" \t"); }),
            "kernel _Z5scaleIdEvPT_S0_i (kernels/scale.cu) has an empty name");
  EXPECT_EQ(refusal([](PackageContents& c) { c.kernels[2].canonical_name.clear(); }),
            "kernel _Z5scaleIdEvPT_S0_i (kernels/scale.cu) has an empty name");
  EXPECT_EQ(
      refusal([](PackageContents& c) { c.kernels[1].canonical_name = std::string("sa\0py", 5); }),
      "the string 'sa\\0...' contains a NUL byte");
}

TEST(PackageWriter, Variables) {
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.variables.push_back(
                  {"ns :: table", "_ZN2ns5tableE_2", "kernels/scale.cu", VariableKind::device, 4});
            }),
            "variable name 'ns::table' is given twice: _ZN2ns5tableE (kernels/saxpy.cu) and "
            "_ZN2ns5tableE_2 "
            "(kernels/scale.cu)");
  EXPECT_EQ(refusal([](PackageContents& c) { c.variables[0].name = " "; }),
            "a variable of unit 'kernels/scale.cu' has an empty name");
  EXPECT_EQ(refusal([](PackageContents& c) { c.variables[0].lowered_name = ""; }),
            "variable 'scale_factor' (kernels/scale.cu) has an empty lowered name");
  EXPECT_EQ(refusal([](PackageContents& c) { c.variables[0].kind = static_cast<VariableKind>(5); }),
            "variable 'scale_factor' (kernels/scale.cu) has an unknown kind 5");
}

TEST(PackageWriter, SourcesAndMetadata) {
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.sources.push_back({"kiln.toml", SourceRole::manifest, 0x9});
            }),
            "source 'kiln.toml' is given twice with different roles or content hashes");
  EXPECT_EQ(refusal([](PackageContents& c) { c.sources[0].role = static_cast<SourceRole>(4); }),
            "source 'kiln.toml' has an unknown role 4");
  EXPECT_EQ(refusal([](PackageContents& c) {
              c.metadata.push_back({"options", "-O0"});
            }),
            "metadata key 'options' is given twice with different values");
}

TEST(PackageWriter, CarriedUnits) {
  const auto carried = [](PackageContents& c) -> PackageCarriedUnit& {
    c.carried.push_back(
        {"kernels/scale.cu", {"kernels/scale.cu", "__global__ void k() {}"}, {}, {"."}, {}, {}, {}, "13.0"});
    return c.carried.back();
  };
  EXPECT_EQ(refusal([&](PackageContents& c) { carried(c).unit_source = "x.cu"; }),
            "carried unit 'x.cu' is not a unit of the package");
  EXPECT_EQ(refusal([&](PackageContents& c) {
              carried(c);
              carried(c);
            }),
            "carried unit 'kernels/scale.cu' is carried twice");
  EXPECT_EQ(refusal([&](PackageContents& c) { carried(c).source.path = "/etc/scale.cu"; }),
            "carried unit 'kernels/scale.cu': source path '/etc/scale.cu' is not a relative path without '.' or '..' "
            "parts");
  EXPECT_EQ(refusal([&](PackageContents& c) { carried(c).headers = {{"a.h", "1"}, {"a.h", "2"}}; }),
            "carried unit 'kernels/scale.cu': path 'a.h' is given twice");
  EXPECT_EQ(refusal([&](PackageContents& c) { carried(c).options = {""}; }),
            "carried unit 'kernels/scale.cu': an empty option, include directory or kernel name");
  // What the writer takes: the same unit without the faults.
  PackageContents c = sample_contents();
  carried(c);
  const Bytes file = write_ok(c);
  EXPECT_EQ(open_ok(file).carried_unit_count(), 1u);
}

// zstd is used only where it makes an image smaller, and the file stays readable either way.
TEST(PackageWriter, CompressesOnlyWhenSmaller) {
  PackageContents c;
  c.targets = {"sm_80", "sm_90"};
  c.units = {{"a.cu", {{"sm_80", bytes_of("tiny"), 0}, {"sm_90", repetitive_bytes(100000), 0}}}};
  const Bytes file = write_ok(c);
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.image(0).encoding, ImageEncoding::raw);
  EXPECT_EQ(r.image(0).stored_size, 4u);
  EXPECT_EQ(r.image(1).encoding, ImageEncoding::zstd);
  EXPECT_LT(r.image(1).stored_size, 1000u);
  EXPECT_LT(file.size(), 2000u);
  const Result<std::vector<std::byte>> out = r.read_image(1);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, repetitive_bytes(100000));
}

}  // namespace
}  // namespace kiln::format::testing
