// kiln build on tests/fixtures/projects/linking (issue 13, points 1 and 2): device link groups
// (sources sharing extern __device__ functions and __constant__ variables, one of them nvcc-routed;
// dynamic parallelism with the device runtime) and source variants, and every error the manifest
// and the plan give for them. The GPU tests run the same package's kernels.
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class BuildLinking : public ::testing::Test {
protected:
  BuildLinking() : m_project(m_dir.copy_project("linking")) {}

  RunResult build(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"build", "-o", "../linking.kiln"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run_kiln(args, m_project);
    if (r.exit_code == 0) {
      m_bytes = read_bytes(m_dir.path() / "linking.kiln");
      EXPECT_TRUE(m_reader.open(m_bytes));
    }
    return r;
  }

  // The unit (its name) whose images hold the kernel `name` finds; "" when it finds none.
  std::string unit_of(const std::string& name) const {
    const std::optional<std::uint32_t> k = m_reader.find_kernel(name);
    return k ? std::string(m_reader.unit(m_reader.kernel(*k).unit).source) : std::string();
  }

  std::uint32_t images_of(const std::string& unit) const {
    for (std::uint32_t u = 0; u < m_reader.unit_count(); ++u)
      if (m_reader.unit(u).source == unit) return m_reader.unit(u).image_count;
    return 0;
  }

  ScratchDir m_dir;
  fs::path m_project;
  std::vector<std::byte> m_bytes;
  format::PackageReader m_reader;
};

TEST_F(BuildLinking, ALinkGroupIsOneUnitWhoseSourcesShareExterns) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // use.cu calls twice() and offset_by() and reads coef, defined in define.cu and host_side.cu.
  EXPECT_EQ(unit_of("linked_sum"), "shared");
  EXPECT_EQ(images_of("shared"), 3u);   // sm_80, sm_90 and compute_80
  bool coef = false;
  for (std::uint32_t v = 0; v < m_reader.variable_count(); ++v)
    coef = coef || (m_reader.variable(v).name == "coef" && m_reader.unit(m_reader.variable(v).unit).source == "shared");
  EXPECT_TRUE(coef) << "the group's __constant__ variable is recorded";
  EXPECT_EQ(run_kiln({"verify", "linking.kiln"}, m_dir.path()).exit_code, 0);
}

TEST_F(BuildLinking, AGroupMixesNvrtcAndNvccSources) {
  const RunResult r = build({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  nlohmann::json members;
  for (const nlohmann::json& unit : report["units"])
    if (unit["unit"] == "shared") members = unit["link_group"];
  ASSERT_EQ(members.size(), 3u) << report.dump(2);
  EXPECT_EQ(members[0], (nlohmann::json{{"source", "kernels/define.cu"}, {"compiler", "nvrtc"}}));
  EXPECT_EQ(members[1], (nlohmann::json{{"source", "kernels/host_side.cu"}, {"compiler", "nvcc"}}));
  EXPECT_EQ(members[2], (nlohmann::json{{"source", "kernels/use.cu"}, {"compiler", "nvrtc"}}));
}

// -rdc=true in a [[source]]'s options joins the package's group "rdc"; its device-side launch links
// the device runtime into the cubins, whose own kernels are not the package's, and PTX cannot hold it.
TEST_F(BuildLinking, DynamicParallelismLinksTheDeviceRuntimeIntoCubinsOnly) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(unit_of("dp_parent"), "rdc");
  EXPECT_EQ(unit_of("dp_child"), "rdc");
  EXPECT_EQ(images_of("rdc"), 2u);
  EXPECT_NE(r.err.find("link group 'rdc': warning: no compute_80 image: its code calls functions the PTX cannot hold"),
            std::string::npos) << r.err;
  for (std::uint32_t k = 0; k < m_reader.kernel_count(); ++k)
    EXPECT_EQ(std::string(m_reader.kernel(k).canonical_name).find("memcpy_3d_device"), std::string::npos)
        << "a kernel of libcudadevrt is recorded";
  // The scan reads the device-side launch that clang 19 rejects: no lost discovery.
  EXPECT_EQ(r.err.find("the scan cannot read"), std::string::npos) << r.err;
}

// Without the group the compiler of record decides: use.cu alone cannot link.
TEST_F(BuildLinking, WithoutAGroupTheExternsDoNotResolve) {
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"kernels/use.cu\"\n"
                                      "[[source]]\npath = \"kernels/define.cu\"\n");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("kernels/use.cu"), std::string::npos) << r.err;
}

// -rdc=true in the top-level options puts every source into one group.
TEST_F(BuildLinking, TopLevelRdcMakesOneGroupOfAllSources) {
  write_text(m_project / "kiln.toml", "targets = [\"sm_90\"]\noptions = [\"-rdc=true\"]\n[[source]]\npath = "
                                      "\"kernels/use.cu\"\n[[source]]\npath = \"kernels/define.cu\"\n[[source]]\n"
                                      "path = \"kernels/host_side.cu\"\n");
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(unit_of("linked_sum"), "rdc");
  EXPECT_EQ(m_reader.unit_count(), 1u);
}

TEST_F(BuildLinking, VariantsAreUnitsWhoseKernelsCarryTheirNames) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(unit_of("f32/variant_scale"), "f32");
  EXPECT_EQ(unit_of("f64/variant_scale"), "f64");
  EXPECT_EQ(unit_of("f64/variant_fill<double>"), "f64");
  // A plain name is kept where it is unambiguous, and dropped, silently, where variants share it.
  EXPECT_EQ(unit_of("variant_fill<double>"), "f64");
  EXPECT_EQ(unit_of("variant_fill<float>"), "f32");
  EXPECT_EQ(unit_of("variant_scale"), "");
  EXPECT_EQ(r.err.find("ambiguous"), std::string::npos) << r.err;
  // Each variant's kernel is the symbol of its own image, whatever the stored name.
  const std::optional<std::uint32_t> k = m_reader.find_kernel("f64/variant_scale");
  ASSERT_TRUE(k);
  EXPECT_EQ(m_reader.kernel(*k).lowered_name, "variant_scale");
}

// Each error names the entry that caused it, in the compilers' format.
TEST_F(BuildLinking, ManifestAndPlanErrors) {
  const std::string head = "targets = [\"sm_80\"]\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[[source]]\npath = \"kernels/variant.cu\"\ndefines = [\"REAL=float\"]\n[[source]]\npath = \"kernels/variant.cu\"\n",
       "kiln.toml:5:1: error: source 'kernels/variant.cu' is listed twice (first at line 2); to build it twice, give "
       "each entry its own 'variant' name"},
      {"[[source]]\npath = \"kernels/variant.cu\"\nvariant = \"a\"\n[[source]]\npath = \"kernels/variant.cu\"\n"
       "variant = \"a\"\n",
       "kiln.toml:7:11: error: variant 'a' is named twice (first at line 2)"},
      {"[[source]]\npath = \"kernels/variant.cu\"\nvariant = \"f/32\"\n",
       "kiln.toml:4:11: error: 'variant' 'f/32' is not a name"},
      {"[[source]]\npath = \"kernels/use.cu\"\nvariant = \"v\"\nlink_group = \"g\"\n",
       "kiln.toml:5:14: error: variant 'v' cannot join link group 'g'"},
      {"[[source]]\npath = \"kernels/variant.cu\"\nvariant = \"v\"\noptions = [\"-rdc=true\"]\n",
       "kiln.toml:2:1: error: source 'kernels/variant.cu': variant 'v' cannot be compiled with -rdc=true"},
      {"[[source]]\npath = \"kernels/use.cu\"\nlink_group = \"v\"\n[[source]]\npath = \"kernels/define.cu\"\n"
       "variant = \"v\"\n",
       "kiln.toml:4:14: error: link group 'v' has the name of a variant"},
  };
  for (const auto& [sources, expected] : cases) {
    write_text(m_project / "kiln.toml", head + sources);
    const RunResult r = build();
    EXPECT_EQ(r.exit_code, 3) << sources << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << sources << "\n" << r.err;
  }
  // Family PTX cannot hold a group (it comes from NVRTC unlinked).
  write_text(m_project / "kiln.toml", "targets = [\"compute_100f\"]\n[[source]]\npath = \"kernels/use.cu\"\n"
                                      "link_group = \"g\"\n");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("link group 'g' cannot be built for compute_100f"), std::string::npos) << r.err;
}

// Point 5: remove_unused_variables keeps only what a kernel uses or the host asks for. Without it,
// every variable the source declares keeps its name (and its bytes).
TEST_F(BuildLinking, RemoveUnusedVariablesKeepsOnlyWhatIsUsedOrAskedFor) {
  write_text(m_project / "kernels/vars.cu", "__device__ int used_var;\n__device__ int asked_var;\n"
                                           "__device__ int unused_var[4096];\n"
                                           "extern \"C\" __global__ void read_var(int* out) { *out = used_var; }\n");
  const std::string sources = "[[source]]\npath = \"kernels/vars.cu\"\nvariables = [\"asked_var\"]\n";
  const auto variables = [&] {
    std::set<std::string> names;
    for (std::uint32_t v = 0; v < m_reader.variable_count(); ++v) names.insert(std::string(m_reader.variable(v).name));
    return names;
  };
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\"]\n" + sources);
  ASSERT_EQ(build().exit_code, 0);
  EXPECT_EQ(variables(), (std::set<std::string>{"asked_var", "unused_var", "used_var"}));
  const std::uint64_t kept_size = m_reader.image(0).raw_size;
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\"]\nremove_unused_variables = true\n" + sources);
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(variables(), (std::set<std::string>{"asked_var"}));
  // (A zero-initialized array takes no bytes in the cubin, so only its symbol and records go.)
  EXPECT_LT(m_reader.image(0).raw_size, kept_size);
  // A wrong value is the manifest's error, at its place.
  write_text(m_project / "kiln.toml", "remove_unused_variables = \"yes\"\n" + sources);
  EXPECT_EQ(build().exit_code, 3);
}

}  // namespace
}  // namespace kiln::test
