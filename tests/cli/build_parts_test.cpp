// Image parts (plan/image_parts.hpp) end to end, on tests/fixtures/projects/parts: a source asked for
// more kernels than kernels_per_image builds as parts; each kernel is found in its part; a later
// part's images hold its own kernels and nothing else; a bound of 0, or a __device__ variable,
// keeps the source whole, with the same kernels. (Shards and merge of parts: build_shard_test.cpp.)
#include "kiln_runner.hpp"

#include "format/package_reader.hpp"
#include "image/cubin_reader.hpp"
#include "package/kernel_names.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using Names = std::set<std::string>;

class BuildParts : public ::testing::Test {
protected:
  void SetUp() override {
    m_project = m_dir.path() / "p";
    fs::copy(project_fixture("parts"), m_project, fs::copy_options::recursive);
  }

  // Builds with the fixture's manifest, `edit` applied to it; opens the package.
  RunResult build(const std::string& output, const std::function<std::string(std::string)>& edit = {}) {
    std::string manifest = read_text(project_fixture("parts") / "kiln.toml");
    if (edit) manifest = edit(manifest);
    write_text(m_project / "kiln.toml", manifest);
    const RunResult r = run_kiln({"build", "-v", "p/kiln.toml", "-o", output}, m_dir.path(),
                                 {"KILN_CACHE_DIR=" + (m_dir.path() / "cache").string()});
    if (r.exit_code == 0) {
      m_bytes = read_bytes(m_dir.path() / output);
      EXPECT_TRUE(m_reader.open(m_bytes));
    }
    return r;
  }

  std::string unit_of(const std::string& name) const {
    const std::optional<std::uint32_t> k = m_reader.find_kernel(name);
    return k ? std::string(m_reader.unit(m_reader.kernel(*k).unit).source) : std::string();
  }

  Names units() const {
    Names out;
    for (std::uint32_t u = 0; u < m_reader.unit_count(); ++u) out.insert(std::string(m_reader.unit(u).source));
    return out;
  }

  Names kernels() const {
    Names out;
    for (std::uint32_t k = 0; k < m_reader.kernel_count(); ++k) out.insert(std::string(m_reader.kernel(k).canonical_name));
    return out;
  }

  // The kernels in the unit's sm_90 cubin, by their canonical names.
  Names cubin_kernels(const std::string& unit) const {
    Names out;
    for (std::uint32_t u = 0; u < m_reader.unit_count(); ++u) {
      if (m_reader.unit(u).source != unit) continue;
      for (std::uint32_t i = 0; i < m_reader.unit(u).image_count; ++i) {
        const std::uint32_t index = m_reader.unit(u).first_image + i;
        if (m_reader.target(m_reader.image(index).target).name != "sm_90") continue;
        Result<std::vector<std::byte>> read = m_reader.read_image(index);
        EXPECT_TRUE(read);
        const std::vector<std::byte> bytes = read ? std::move(*read) : std::vector<std::byte>{};
        const Result<image::CubinInfo> cubin = image::read_cubin(bytes, unit);
        EXPECT_TRUE(cubin) << unit;
        for (const image::CubinSymbol& s : cubin ? cubin->symbols : std::vector<image::CubinSymbol>{})
          if (s.is_kernel) out.insert(package::canonical_kernel_name(s.name));
      }
    }
    return out;
  }

  ScratchDir m_dir;
  fs::path m_project;
  std::vector<std::byte> m_bytes;
  format::PackageReader m_reader;
};

const Names k_every_kernel = {"plain", "tile<0>", "tile<1>", "tile<2>", "tile<3>", "tile<4>",
                              "tile<5>", "tile<6>", "tile<7>", "tile<8>", "tile<9>", "tile<100>"};

TEST_F(BuildParts, ASourceAskedForMoreKernelsThanItsBoundBuildsAsParts) {
  const RunResult r = build("parts.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(units(), (Names{"kernels/tile.cu", "kernels/tile.cu#2", "kernels/tile.cu#3"}));
  EXPECT_EQ(kernels(), k_every_kernel);
  EXPECT_NE(r.err.find("image parts: kernels/tile.cu: 11 kernels in 3 parts of at most 4\n"), std::string::npos) << r.err;
  // The first part: the kernels its text makes (plain, tile<100>) and the first names.
  for (const char* k : {"plain", "tile<100>", "tile<0>", "tile<1>", "tile<2>"}) EXPECT_EQ(unit_of(k), "kernels/tile.cu") << k;
  for (const char* k : {"tile<3>", "tile<6>"}) EXPECT_EQ(unit_of(k), "kernels/tile.cu#2") << k;
  for (const char* k : {"tile<7>", "tile<9>"}) EXPECT_EQ(unit_of(k), "kernels/tile.cu#3") << k;
  // A later part's images hold its kernels alone: nvJitLink dropped the source's plain kernel.
  EXPECT_EQ(cubin_kernels("kernels/tile.cu#2"), (Names{"tile<3>", "tile<4>", "tile<5>", "tile<6>"}));
  EXPECT_EQ(cubin_kernels("kernels/tile.cu#3"), (Names{"tile<7>", "tile<8>", "tile<9>"}));
  EXPECT_EQ(cubin_kernels("kernels/tile.cu"), (Names{"plain", "tile<100>", "tile<0>", "tile<1>", "tile<2>"}));
  EXPECT_EQ(run_kiln({"verify", "parts.kiln"}, m_dir.path()).exit_code, 0);
  // The source is recorded once, and inspect says what each part is.
  const RunResult json = run_kiln({"inspect", "--json", "parts.kiln"}, m_dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json report = nlohmann::json::parse(json.out);
  ASSERT_EQ(report["units"].size(), 3u);
  EXPECT_EQ(report["units"][0]["kind"], "source");
  EXPECT_EQ(report["units"][2]["kind"], "image_part");
  EXPECT_EQ(report["units"][2]["part_of"], "kernels/tile.cu");
  EXPECT_EQ(report["units"][2]["part"], 3);
  EXPECT_EQ(report["units"][2]["sources"], nlohmann::json::array({"kernels/tile.cu"}));
  const RunResult text = run_kiln({"inspect", "parts.kiln"}, m_dir.path());
  EXPECT_NE(text.out.find("kernels/tile.cu#2 (image part 2 of kernels/tile.cu): 3 images"), std::string::npos) << text.out;
}

TEST_F(BuildParts, BoundZeroBuildsTheSourceWholeWithTheSameKernels) {
  const RunResult r = build("whole.kiln", [](std::string m) {
    return m.replace(m.find("kernels_per_image = 4"), 21, "kernels_per_image = 0");
  });
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(units(), (Names{"kernels/tile.cu"}));
  EXPECT_EQ(kernels(), k_every_kernel);
}

TEST_F(BuildParts, ASourceWithADeviceVariableStaysWhole) {
  write_text(m_project / "kernels" / "tile.cu",
             read_text(m_project / "kernels" / "tile.cu") + "__device__ int calls;\n");
  const RunResult r = build("variable.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(units(), (Names{"kernels/tile.cu"}));
  EXPECT_EQ(kernels(), k_every_kernel);
  EXPECT_NE(r.err.find("image parts: kernels/tile.cu: 11 kernels in one image (kernels_per_image 4): it has __device__ "
                       "or __constant__ variables"),
            std::string::npos)
      << r.err;
}

TEST_F(BuildParts, AKernelTheTextMakesWhereTheScanCannotSeeItIsTheFirstPartsInEveryPart) {
  // clang scans as sm_90 at most, so it never sees the sm_100 branch's instantiation: hidden<1> is
  // in the first part's image (the text makes it) and in the second's (its name). Internal linkage
  // makes them two non-template-looking symbols of one kernel: the first part's copy is the kernel.
  write_text(m_project / "kernels" / "hidden.cu",
             "namespace {\ntemplate <int N> __global__ void hidden(int* out) { out[0] = N; }\n"
             "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000\ntemplate __global__ void hidden<1>(int*);\n#endif\n}\n");
  const RunResult r = build("hidden.kiln", [](std::string) {
    return std::string("name = \"hidden\"\ntargets = [\"sm_100\"]\nkernels_per_image = 1\n\n[[source]]\n"
                       "path = \"kernels/hidden.cu\"\ninstantiate = [\"hidden<0>\", \"hidden<1>\"]\n");
  });
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(units(), (Names{"kernels/hidden.cu", "kernels/hidden.cu#2"}));
  EXPECT_EQ(unit_of("hidden<0>"), "kernels/hidden.cu");
  EXPECT_EQ(unit_of("hidden<1>"), "kernels/hidden.cu");
  EXPECT_EQ(r.err.find("no kernel"), std::string::npos) << r.err;   // the second part has none of its own
  EXPECT_EQ(run_kiln({"verify", "hidden.kiln"}, m_dir.path()).exit_code, 0);
}

}  // namespace
}  // namespace kiln::test
