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

TEST(ShowsTemplates, TheKeywordAloneCounts) {
  EXPECT_TRUE(shows_templates(code_only("template <int N> __global__ void k(float* x);")));
  EXPECT_TRUE(shows_templates(code_only("template __global__ void k<3>(float*);")));
  EXPECT_TRUE(shows_templates(code_only("x.template get<0>()")));
  EXPECT_FALSE(shows_templates(code_only("__global__ void templated_copy(float* template_x);")));
  EXPECT_FALSE(shows_templates(code_only("// template <int N>\nconst char* s = \"template\";")));
}

TEST(ShowsDeviceVariables, WhatMayDeclareAVariableInDeviceMemory) {
  EXPECT_TRUE(shows_device_variables(code_only("__constant__ float coeffs[4];")));
  EXPECT_TRUE(shows_device_variables(code_only("static __constant__ float c = 1;")));
  EXPECT_TRUE(shows_device_variables(code_only("__managed__ int flag;")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__ float table[8];")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__ int counter = 0;")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__ int counter;")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__ Pair pairs{1, 2};")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__")));
  // Pointers to functions: the declarator in parentheses comes before the parameter list.
  EXPECT_TRUE(shows_device_variables(code_only("__device__ float (*op)(float) = twice;")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__ float ( *ops[2] )(float) = {twice, half};")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__ float (&pick)(float) = twice;")));
  // A variable's name in parentheses: what precedes a parameter list is a name, never `int`.
  EXPECT_TRUE(shows_device_variables(code_only("__device__ int (x);")));
  EXPECT_TRUE(shows_device_variables(code_only("__device__ unsigned long ( hits ) = 0;")));
  // A macro may declare anything: DEVICE float t[4];
  EXPECT_TRUE(shows_device_variables(code_only("#define DEVICE __device__\nDEVICE void f();")));
  EXPECT_TRUE(shows_device_variables(code_only("#define TABLE(n) \\\n  __device__ float n##_f(float x) { return x; }")));
  // Functions, lambdas, and what comments and strings say.
  EXPECT_FALSE(shows_device_variables(code_only("__device__ inline float twice(float v) { return 2 * v; }")));
  EXPECT_FALSE(shows_device_variables(code_only("__device__ __forceinline__ int lane();\n__host__ __device__ int f(int);")));
  EXPECT_FALSE(shows_device_variables(code_only("auto f = [] __device__ (int x) { return x; };")));
  EXPECT_FALSE(shows_device_variables(code_only("__device__ void static put_bits(unsigned* out, unsigned kc);")));
  EXPECT_FALSE(shows_device_variables(code_only("// __constant__ float c[4];\nconst char* s = \"__device__ int x;\";")));
  EXPECT_FALSE(shows_device_variables(code_only("__global__ void k(float* x) { __shared__ float tile[32]; }")));
  EXPECT_FALSE(shows_device_variables(code_only("#define ALIGN 16\n__device__ float f(float);")));
  EXPECT_FALSE(shows_device_variables(code_only("__device__ float f( const float* x);\n__device__ int g(\n);")));
  EXPECT_FALSE(shows_device_variables(code_only("struct H { __device__ operator int() const; };")));
  EXPECT_FALSE(shows_device_variables(code_only("__device__ int (my_strcmp)(const char* a, const char* b) { return 0; }")))
      << "a function's name in parentheses, as C libraries keep it from function-like macros";
  EXPECT_FALSE(shows_device_variables(code_only("struct H { __device__ operator unsigned long (); };")));
  EXPECT_FALSE(shows_device_variables(code_only("__device__ int_fast32_t (fast)(int);")))
      << "a type whose name starts with a keyword's is a name, not the keyword";
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
  // A device-only unit: NVRTC compiles it whole unless a parse has names to give.
  EXPECT_TRUE(image_decides(manifest_of(source), source, UnitTextFacts{}, false, false));
  EXPECT_FALSE(image_decides(manifest_of(source), source, {.templates = true}, false, false))
      << "the scan names a template's instantiations";
  EXPECT_TRUE(image_decides(manifest_of(source), source, {.host_code = true, .templates = true}, false, false))
      << "nvcc builds the instantiations its text makes";
  EXPECT_FALSE(image_decides(manifest_of(source), source, {.device_variables = true}, false, false))
      << "the link keeps only the variables the scan names";
  EXPECT_FALSE(image_decides(manifest_of(source), source, {.unseen_headers = true}, false, false))
      << "a header the walk did not see may hold a variable";
  EXPECT_TRUE(image_decides(manifest_of(source), source, {.host_code = true, .unseen_headers = true}, false, false))
      << "nvcc's image holds what nvcc keeps";
  EXPECT_FALSE(image_decides(manifest_of(source), source, {.complete = false}, false, false));
  EXPECT_FALSE(image_decides(manifest_of(source), source, {.kiln_runtime = true}, false, false));
  EXPECT_FALSE(image_decides(manifest_of(source), source, UnitTextFacts{}, true, false));
  manifest::SourceEntry carried = source;
  carried.carry_sources = true;
  EXPECT_FALSE(image_decides(manifest_of(carried), carried, UnitTextFacts{}, false, false))
      << "the runtime finds a carried source by the kernels the scan names";
  EXPECT_TRUE(image_decides(manifest_of(carried), carried, host, false, false)) << "nvcc's sources are not carried";
  manifest::Manifest carrying = manifest_of(source);
  carrying.carry_sources = true;
  EXPECT_FALSE(image_decides(carrying, source, UnitTextFacts{}, false, false));
  carried.carry_sources = false;
  carrying.sources = {carried};
  EXPECT_TRUE(image_decides(carrying, carried, UnitTextFacts{}, false, false)) << "the source's own setting wins";
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
