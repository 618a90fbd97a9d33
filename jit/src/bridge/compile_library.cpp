// The compile library's side of core/compile_library.hpp: the loader's questions answered by the
// run-time compiler (rtc/runtime_compiler.hpp). The loader hands over a package's bytes, which it has
// checked; they are opened here again with every check (a reader is cheap beside a compile, and this
// library trusts nothing it is handed).
#include "core/compile_library.hpp"

#include "format/package_reader.hpp"
#include "rtc/compiler_access.hpp"
#include "rtc/runtime_compiler.hpp"

#include <cstring>
#include <exception>
#include <new>
#include <string>

namespace kiln::jit {

namespace {

Result<core::CompiledPackage> compiled_of(Result<rtc::Compiled> compiled) {
  if (!compiled) return std::move(compiled).error();
  return core::CompiledPackage{std::move(compiled->package), std::move(compiled->expression)};
}

// Nothing is thrown to the loader: out of memory is a failure it reports as OUT_OF_MEMORY, and
// anything else one that names the compile library.
template <class Compile>
Result<core::CompiledPackage> guarded(Compile&& compile) {
  try {
    return compile();
  } catch (const std::bad_alloc&) {
    return fail(KILN_STATUS_OUT_OF_MEMORY, "out of memory while compiling at run time");
  } catch (const std::exception& e) {
    return fail(KILN_STATUS_NO_COMPILER, std::string("Kiln's compile library failed: ") + e.what());
  }
}

class RuntimeCompileLibrary final : public core::CompileLibrary {
public:
  bool enabled() const override { return rtc::RuntimeCompiler::process().enabled(); }

  Status check_declared(std::span<const std::byte> package, std::string_view label,
                        std::string_view request) override {
    // Without a reader's answer, the compile that follows gives the real one.
    try {
      format::PackageReader reader;
      if (!reader.open(package, std::string(label))) return {};
      return rtc::RuntimeCompiler::process().check_declared(reader, label, request);
    } catch (const std::exception&) {
      return {};
    }
  }

  Result<core::CompiledPackage> package_kernel(std::span<const std::byte> package, std::string_view label,
                                               std::string_view request, const std::string& target) override {
    return guarded([&]() -> Result<core::CompiledPackage> {
      format::PackageReader reader;
      if (Status opened = reader.open(package, std::string(label)); !opened) {
        Error refused = std::move(opened).error();
        refused.status = KILN_STATUS_CORRUPT;   // the loader checked these bytes: they changed on the way
        return refused;
      }
      return compiled_of(rtc::RuntimeCompiler::process().package_kernel(reader, label, request, target));
    });
  }

  Result<core::CompiledPackage> program(const core::ProgramRequest& request, const std::string& target) override {
    return guarded([&] { return compiled_of(rtc::RuntimeCompiler::process().program(request, target)); });
  }

  void add_search_directory(const std::string& directory) override { rtc::add_compiler_search_directory(directory); }

  core::CompileCounters counters() const override {
    const rtc::CacheCounters& c = rtc::RuntimeCompiler::process().cache().counters();
    core::CompileCounters out;
    out.memory_hits = c.memory_hits;
    out.cache_hits = c.disk_hits;
    out.compiles = c.compiles;
    out.compile_failures = c.compile_failures;
    out.compiled_bytes = c.compiled_bytes;
    out.cache_bytes_read = c.disk_bytes_read;
    return out;
  }
};

}  // namespace

}  // namespace kiln::jit

extern "C" KILN_JIT_ENTRY kiln::core::CompileLibrary* kiln_jit_compile_library(const char* interface_id) {
  if (!interface_id || std::strcmp(interface_id, kiln::core::k_compile_interface_id) != 0) return nullptr;
  static kiln::jit::RuntimeCompileLibrary library;
  return &library;
}
