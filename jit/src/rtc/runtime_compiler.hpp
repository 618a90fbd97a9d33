// Compiling at run time, for the loader (through bridge/compile_library.cpp): a kernel a package lacks, from the sources it carries, and
// programs from strings. Each compile goes through the process's cache (compiled_cache.hpp) under a
// key of its inputs (compile_keys.hpp) and comes back as a package (compiled_package.hpp); NVRTC and
// nvJitLink are loaded on the first compile, with dlopen only (nvrtc/compiler_loader.hpp).
#pragma once

#include "format/package_reader.hpp"
#include "rtc/compile_keys.hpp"
#include "rtc/compiled_cache.hpp"

#include <string>
#include <string_view>

namespace kiln::rtc {

// What a run-time compile gave. One that gives nothing is an Error with the status the loader reports
// (core/compile_library.hpp), its message naming the package, kernel, source and target.
struct Compiled {
  SharedBytes package;              // the compiled package's bytes
  Source source = Source::produced;
  std::string expression;           // the name expression that was compiled ("mylib::block_sum<double, 512>")
};

// Settings read from the environment once per process.
struct CompilerSettings {
  bool enabled = true;              // KILN_JIT (0, false, no, off: disabled)
  bool log = false;                 // KILN_LOG: one stderr line per compile and cache hit
  static CompilerSettings from_environment();
};

class RuntimeCompiler {
public:
  RuntimeCompiler(CompilerSettings settings, CompiledCache& cache);
  static RuntimeCompiler& process();

  bool enabled() const { return m_settings.enabled; }
  CompiledCache& cache() { return m_cache; }

  // The kernel `request` ("block_sum<double, 512>") compiled for `target` ("sm_90") from a source the
  // package `reader` (labelled `label` in messages) carries: the sources whose kernels or kernel
  // templates match the request's name are tried in the package's order.
  Result<Compiled> package_kernel(const format::PackageReader& reader, std::string_view label, std::string_view request,
                                  const std::string& target);
  // Whether a source `reader` carries may compile `request`: KERNEL_NOT_FOUND when none declares a
  // kernel of its name. Needs neither a driver nor a compiler: a misspelt name is told as such.
  Status check_declared(const format::PackageReader& reader, std::string_view label, std::string_view request) const;
  // A program from strings, compiled for `target`.
  Result<Compiled> program(const ProgramRequest& request, const std::string& target);

private:
  CompilerSettings m_settings;
  CompiledCache& m_cache;
};

}  // namespace kiln::rtc
