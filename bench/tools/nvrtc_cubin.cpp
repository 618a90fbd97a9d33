// Plain NVRTC: compile one source to a cubin the way NVRTC does by default (no -dlto, no nvJitLink),
// for the size benchmark's "what trimming saves" figure. Built by bench/size_and_build_time.py:
//
//   g++ -std=c++17 -O1 -I<cuda>/include nvrtc_cubin.cpp -L<cuda>/lib64 -lnvrtc -o nvrtc_cubin
//   nvrtc_cubin SOURCE OUT.cubin NAME_EXPR|- [NVRTC options...]     e.g. -arch=sm_90 -I<cuda>/include/cccl
//
// Prints the lowered name of NAME_EXPR (if given) on stdout; exits non-zero with NVRTC's log on error.
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

bool check(nvrtcResult result, const char* what) {
  if (result == NVRTC_SUCCESS) return true;
  std::fprintf(stderr, "nvrtc_cubin: %s: %s\n", what, nvrtcGetErrorString(result));
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s SOURCE OUT.cubin NAME_EXPR|- [NVRTC options...]\n", argv[0]);
    return 2;
  }
  const std::string source_path = argv[1];
  const std::string out_path = argv[2];
  const std::string name_expr = argv[3];
  std::vector<const char*> options(argv + 4, argv + argc);

  std::ifstream in(source_path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "nvrtc_cubin: cannot read %s\n", source_path.c_str());
    return 1;
  }
  const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string program_name = source_path.substr(source_path.find_last_of('/') + 1);

  nvrtcProgram program = nullptr;
  if (!check(nvrtcCreateProgram(&program, source.c_str(), program_name.c_str(), 0, nullptr, nullptr),
             "nvrtcCreateProgram"))
    return 1;
  if (name_expr != "-" && !check(nvrtcAddNameExpression(program, name_expr.c_str()), "nvrtcAddNameExpression"))
    return 1;

  const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  if (compiled != NVRTC_SUCCESS) {
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::fprintf(stderr, "%s\nnvrtc_cubin: compile failed: %s\n", log.c_str(), nvrtcGetErrorString(compiled));
    return 1;
  }

  std::size_t cubin_size = 0;
  if (!check(nvrtcGetCUBINSize(program, &cubin_size), "nvrtcGetCUBINSize")) return 1;
  std::vector<char> cubin(cubin_size);
  if (!check(nvrtcGetCUBIN(program, cubin.data()), "nvrtcGetCUBIN")) return 1;
  std::ofstream out(out_path, std::ios::binary);
  out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  if (!out) {
    std::fprintf(stderr, "nvrtc_cubin: cannot write %s\n", out_path.c_str());
    return 1;
  }

  if (name_expr != "-") {
    const char* lowered = nullptr;
    if (!check(nvrtcGetLoweredName(program, name_expr.c_str(), &lowered), "nvrtcGetLoweredName")) return 1;
    std::printf("%s\n", lowered);
  }
  nvrtcDestroyProgram(&program);
  return 0;
}
