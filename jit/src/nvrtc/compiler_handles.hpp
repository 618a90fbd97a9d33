// What the generator's compiles and the run-time ones both do with the table's handles: own an NVRTC
// program or an nvJitLink linker until the scope ends, and read the log each keeps.
#pragma once

#include "nvrtc/compiler_api.hpp"

#include <string>

namespace kiln::jit {

// An NVRTC program, destroyed through the table that made it.
class ProgramOwner {
public:
  ProgramOwner(const NvrtcApi& nvrtc, nvrtcProgram program) : m_nvrtc(nvrtc), m_program(program) {}
  ProgramOwner(const ProgramOwner&) = delete;
  ProgramOwner& operator=(const ProgramOwner&) = delete;
  ~ProgramOwner() { m_nvrtc.destroy_program(&m_program); }

private:
  const NvrtcApi& m_nvrtc;
  nvrtcProgram m_program;
};

// An nvJitLink linker, destroyed through the table that made it.
class LinkerOwner {
public:
  LinkerOwner(const NvJitLinkApi& link, nvJitLinkHandle handle) : m_link(link), m_handle(handle) {}
  LinkerOwner(const LinkerOwner&) = delete;
  LinkerOwner& operator=(const LinkerOwner&) = delete;
  ~LinkerOwner() { m_link.destroy(&m_handle); }

private:
  const NvJitLinkApi& m_link;
  nvJitLinkHandle m_handle;
};

// The program's log, up to its NUL; "" when there is none or it cannot be read.
std::string program_log(const NvrtcApi& nvrtc, nvrtcProgram program);
// The linker's error log, likewise.
std::string linker_log(const NvJitLinkApi& link, nvJitLinkHandle linker);
// The linker's info log, likewise: where ptxas's -v report ("ptxas info    : ...") comes back.
std::string linker_info_log(const NvJitLinkApi& link, nvJitLinkHandle linker);

}  // namespace kiln::jit
