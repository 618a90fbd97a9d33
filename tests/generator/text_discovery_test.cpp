// What a source's own text says before anything parses it (plan/text_discovery.hpp).
#include "plan/text_discovery.hpp"

#include <gtest/gtest.h>

namespace kiln::plan {
namespace {

TEST(CodeOnly, CommentsAndLiteralsAreBlankedDirectivesAndLineBreaksKept) {
  EXPECT_EQ(code_only("a // k<<<1,1>>>()\nb /* main( */ c \"<<<\" 'x' 1'000\n#include \"kiln.hpp\"\n"),
            "a" + std::string(16, ' ') + "\nb" + std::string(13, ' ') + "c \"   \" ' ' 1'000\n#include \"kiln.hpp\"\n");
  EXPECT_EQ(code_only("s = \"a\\\"<<<\";\n"), "s = \"      \";\n") << "an escaped quote does not end the string";
  EXPECT_EQ(code_only("/* a\n<<< */x"), "    \n      x") << "a block comment keeps its line breaks";
  EXPECT_EQ(code_only("\"open\nk<<<1,1>>>();"), "\"    \nk<<<1,1>>>();") << "an unterminated literal ends with its line";
}

TEST(LooksLikeHostCode, LaunchesTheRuntimeMainAndHostOnlyHeadersAreHostCode) {
  for (const char* text : {"void f() { k<<<1, 1>>>(); }", "#include <cuda_runtime.h>\n", "#include \"cuda_runtime_api.h\"\n",
                           "  #  include <iostream>\n", "#include <vector>\n", "int main(int c, char** v) {}",
                           "int main (void) {}", "void f() { cudaMalloc(&p, 4); }", "cudaMemcpy(a, b, 4, k);",
                           "void f() { cudaGetDeviceCount (&n); }", "cudaSetDevice(best);", "#include \"cuda.h\"\n",
                           "#include <cuda.h>\n"})
    EXPECT_TRUE(looks_like_host_code(code_only(text))) << text;
}

TEST(LooksLikeHostCode, DeviceOnlyCodeAndWhatCommentsOrStringsHoldAreNot) {
  for (const char* text : {"__global__ void k(float* x) { x[0] = 1; }", "// k<<<1,1>>>();\n",
                           "/* #include <iostream> */", "const char* s = \"main(\";", "__device__ int domain(int);",
                           "__device__ int my_cudaMalloc();", "#include <cuda/std/limits>\n", "#include <cmath>\n",
                           "__device__ void f(cudaStream_t s);", "__device__ int cudaish(int);",
                           "__device__ int x = cuda_value(1);", "#include <cuda_fp16.h>\n"})
    EXPECT_FALSE(looks_like_host_code(code_only(text))) << text;
}

TEST(UsesKilnRuntime, KilnsHeadersAndItsCApiAreRequestsTheScanMustRead) {
  EXPECT_TRUE(uses_kiln_runtime(code_only("#include <kiln/kiln.hpp>\n")));
  EXPECT_TRUE(uses_kiln_runtime(code_only("#include \"kiln.h\"\n")));
  EXPECT_TRUE(uses_kiln_runtime(code_only("kiln_package_get_kernel(p, \"k\", &k);")));
  EXPECT_TRUE(uses_kiln_runtime(code_only("auto k = kiln::Package::open(\"a.kiln\");")));
  EXPECT_FALSE(uses_kiln_runtime(code_only("// kiln_package_get_kernel\n__global__ void k();")));
}

manifest::Manifest manifest_of(const manifest::SourceEntry& source) {
  manifest::Manifest m;
  m.sources.push_back(source);
  return m;
}

TEST(ImageDecides, OnlyWhereNothingAsksTheSourceForANameTheImageCannotSpell) {
  const UnitTextFacts host{.host_code = true};
  manifest::SourceEntry source;
  source.path = "k.cu";
  EXPECT_TRUE(image_decides(manifest_of(source), source, host, false, false));
  EXPECT_FALSE(image_decides(manifest_of(source), source, UnitTextFacts{}, false, false))
      << "device-only: NVRTC compiles it, and the scan names its kernels";
  EXPECT_FALSE(image_decides(manifest_of(source), source, host, true, false)) << "--strict wants every finding";
  EXPECT_FALSE(image_decides(manifest_of(source), source, host, false, true)) << "--host-source's requests";
  EXPECT_FALSE(image_decides(manifest_of(source), source, {.host_code = true, .kiln_runtime = true}, false, false))
      << "the unit uses Kiln's runtime: its requests are the scan's";
  EXPECT_FALSE(image_decides(manifest_of(source), source, {.host_code = true, .complete = false}, false, false))
      << "a header the unit reaches was not read: it may use Kiln's runtime";
  manifest::Manifest with_hosts = manifest_of(source);
  with_hosts.host_sources = {"app.cpp"};
  EXPECT_FALSE(image_decides(with_hosts, source, host, false, false)) << "a host source may request its kernels";
  manifest::Manifest with_python = manifest_of(source);
  with_python.python_sources = {"ops.py"};
  EXPECT_FALSE(image_decides(with_python, source, host, false, false));
  manifest::SourceEntry named = source;
  named.instantiations = {"k2<3>"};
  EXPECT_FALSE(image_decides(manifest_of(named), named, host, false, false)) << "the manifest asks for a name";
  manifest::SourceEntry variable = source;
  variable.variables = {"table"};
  EXPECT_FALSE(image_decides(manifest_of(variable), variable, host, false, false));
  manifest::SourceEntry grouped = source;
  grouped.link_group = "rdc";
  EXPECT_FALSE(image_decides(manifest_of(grouped), grouped, host, false, false));
}

}  // namespace
}  // namespace kiln::plan
