// The process's compiler: NVRTC and nvJitLink loaded with dlopen (jit/compiler_loader.hpp) on the
// first compile that needs them, once per major version asked for, and kept for the process.
#include "rtc/compiler_access.hpp"

#include "nvrtc/compiler_loader.hpp"
#include "nvrtc/program_compiler.hpp"

#include "platform/library.hpp"

#include <map>
#include <mutex>

namespace kiln::rtc {

namespace {

class LoadedCompiler final : public Compiler {
public:
  explicit LoadedCompiler(jit::CompilerApi api)
      : m_api(std::move(api)), m_identity{m_api.nvrtc_version, m_api.nvjitlink_version} {}
  const CompilerIdentity& identity() const override { return m_identity; }
  // The files as loaded: a name the loader resolved is named by the file it found.
  std::vector<std::string> files() const override {
    std::vector<std::string> out;
    for (const void* symbol : {reinterpret_cast<const void*>(m_api.nvrtc.version),
                               reinterpret_cast<const void*>(m_api.nvjitlink.version)}) {
      platform::ModuleInfo module = platform::module_of(symbol);
      if (module.path.empty()) return {};
      out.push_back(std::move(module.path));
    }
    return out;
  }
  CompileOutput compile(const CompileInput& input) override {
    jit::ProgramInput in{input.name,    input.source,    input.headers, input.options,        input.link_options,
                         input.kernels, input.variables, input.target,  input.record_headers, input.random_seed};
    jit::ProgramOutput done = jit::compile_program(m_api, in);
    return CompileOutput{done.ok,
                         std::move(done.log),
                         std::move(done.image),
                         std::move(done.kernel_symbols),
                         std::move(done.variable_symbols),
                         std::move(done.headers),
                         done.seconds,
                         done.headers_unknown};
  }

private:
  jit::CompilerApi m_api;
  CompilerIdentity m_identity;
};

}  // namespace

Result<Compiler*> load_process_compiler(int required_major) {
  static std::mutex mutex;
  static std::map<int, Result<Compiler*>> loaded;   // by the major asked for; never unloaded
  std::lock_guard lock(mutex);
  auto found = loaded.find(required_major);
  if (found == loaded.end()) {
    Result<jit::CompilerApi> api = jit::load_compiler(jit::process_search_settings(), required_major);
    Result<Compiler*> outcome = api ? Result<Compiler*>(new LoadedCompiler(std::move(*api)))
                                    : Result<Compiler*>(api.error());
    found = loaded.emplace(required_major, std::move(outcome)).first;
  }
  return found->second;
}

void add_compiler_search_directory(const std::string& directory) { jit::add_search_directory(directory); }

}  // namespace kiln::rtc
