#include "nvrtc/compiler_handles.hpp"

namespace kiln::jit {

std::string program_log(const NvrtcApi& nvrtc, nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtc.get_program_log_size(program, &size) != 0 || size <= 1) return {};
  std::string log(size, '\0');
  nvrtc.get_program_log(program, log.data());
  return log.c_str();
}

std::string linker_log(const NvJitLinkApi& link, nvJitLinkHandle linker) {
  std::size_t size = 0;
  if (link.get_error_log_size(linker, &size) != 0 || size <= 1) return {};
  std::string log(size, '\0');
  link.get_error_log(linker, log.data());
  return log.c_str();
}

std::string linker_info_log(const NvJitLinkApi& link, nvJitLinkHandle linker) {
  std::size_t size = 0;
  if (link.get_info_log_size(linker, &size) != 0 || size <= 1) return {};
  std::string log(size, '\0');
  link.get_info_log(linker, log.data());
  return log.c_str();
}

}  // namespace kiln::jit
