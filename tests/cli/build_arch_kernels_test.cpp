// Kernels that differ per target: one guarded by __CUDA_ARCH__, and CUB's kernels in namespaces
// versioned per SM when a source includes <cub/cub.cuh>. The package records which images hold
// each (KERNEL_TARGETS); inspect shows it, verify checks it against the images.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path write_arch_project(const ScratchDir& dir, const std::string& targets, const std::string& source) {
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", "targets = [" + targets + "]\n[[source]]\npath = \"kernels/k.cu\"\n");
  write_text(p / "kernels/k.cu", source);
  return p;
}

json inspect(const fs::path& dir, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"inspect", "out.kiln", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult r = run_kiln(args, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

const json* kernel_named(const json& report, const std::string& prefix) {
  for (const json& k : report["kernels"])
    if (k["name"].get<std::string>().rfind(prefix, 0) == 0) return &k;
  return nullptr;
}

TEST(BuildArchKernels, AGuardedKernelIsRecordedWithTheTargetsThatHoldIt) {
  ScratchDir dir;
  write_arch_project(dir, "\"sm_80\", \"sm_90\", \"compute_80\"",
                "#if __CUDA_ARCH__ >= 900\nextern \"C\" __global__ void new_only(int* x) { x[0] = 1; }\n#endif\n"
                "extern \"C\" __global__ void always(int* x) { x[0] = 2; }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = inspect(dir.path());
  EXPECT_EQ(report["format"], "2.0");
  const json* guarded = kernel_named(report, "new_only");
  ASSERT_TRUE(guarded);
  EXPECT_EQ((*guarded)["targets"], json::array({"sm_90"}));
  EXPECT_FALSE((*guarded)["in_every_image"].get<bool>());
  const json* always = kernel_named(report, "always");
  ASSERT_TRUE(always);
  EXPECT_EQ((*always)["targets"], json::array({"sm_80", "sm_90", "compute_80"}));
  EXPECT_TRUE((*always)["in_every_image"].get<bool>());
  // On 8.6 the unit loads sm_80, which lacks new_only; on 9.0 sm_90 holds it.
  const json on_86 = inspect(dir.path(), {"--device", "8.6"});
  EXPECT_TRUE((*kernel_named(on_86, "new_only"))["loads"]["target"].is_null());
  EXPECT_EQ((*kernel_named(on_86, "always"))["loads"]["target"], "sm_80");
  EXPECT_EQ((*kernel_named(inspect(dir.path(), {"--device", "9.0"}), "new_only"))["loads"]["target"], "sm_90");
  const RunResult text = run_kiln({"inspect", "out.kiln"}, dir.path());
  EXPECT_NE(text.out.find("      only in: sm_90\n"), std::string::npos) << text.out;
  EXPECT_EQ(run_kiln({"verify", "out.kiln"}, dir.path()).exit_code, 0);
}

TEST(BuildArchKernels, CubsUmbrellaHeaderBuildsForSeveralTargets) {
  ScratchDir dir;
  write_arch_project(dir, "\"sm_80\", \"sm_90\"",
                "#include <cub/cub.cuh>\n"
                "template <int B> __global__ void block_sum(const float* in, float* out) {\n"
                "  using Reduce = cub::BlockReduce<float, B>;\n"
                "  __shared__ typename Reduce::TempStorage temp;\n"
                "  const float total = Reduce(temp).Sum(in[threadIdx.x]);\n"
                "  if (threadIdx.x == 0) out[blockIdx.x] = total;\n"
                "}\n"
                "template __global__ void block_sum<128>(const float*, float*);\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = inspect(dir.path());
  const json* user = kernel_named(report, "block_sum<128>");
  ASSERT_TRUE(user) << report.dump(2);
  EXPECT_TRUE((*user)["in_every_image"].get<bool>());
  // CUB's own kernels live in a namespace per SM (cub::CUB_300001_SM_800::...): each is one target's.
  std::size_t versioned = 0;
  for (const json& k : report["kernels"]) {
    const std::string name = k["name"];
    if (name.find("_SM_800::") != std::string::npos) {
      EXPECT_EQ(k["targets"], json::array({"sm_80"})) << name;
      ++versioned;
    } else if (name.find("_SM_900::") != std::string::npos) {
      EXPECT_EQ(k["targets"], json::array({"sm_90"})) << name;
      ++versioned;
    }
  }
  EXPECT_GE(versioned, 2u) << report.dump(2);
  EXPECT_EQ(run_kiln({"verify", "out.kiln"}, dir.path()).exit_code, 0);
}

}  // namespace
}  // namespace kiln::test
