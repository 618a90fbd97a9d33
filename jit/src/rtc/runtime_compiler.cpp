#include "rtc/runtime_compiler.hpp"

#include "rtc/compiled_package.hpp"
#include "rtc/compiler_access.hpp"
#include "rtc/run_log.hpp"
#include "util/switch_words.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <map>
#include <mutex>

namespace kiln::rtc {

namespace {

bool flag_off(const char* name) {
  const char* value = std::getenv(name);
  if (!value) return false;
  return is_off_word(value);
}

bool flag_on(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::string(value) != "0";
}

// A lock per key, so that threads compiling one program wait for each other, not for other programs.
class KeyLocks {
public:
  std::shared_ptr<std::mutex> lock_for(const std::string& key) {
    std::lock_guard lock(m_mutex);
    std::shared_ptr<std::mutex>& slot = m_locks[key];
    if (!slot) slot = std::make_shared<std::mutex>();
    return slot;
  }

private:
  std::mutex m_mutex;
  std::map<std::string, std::shared_ptr<std::mutex>> m_locks;
};

// The store checksums its entries; this tells a header record from another kind of entry. The
// record itself is decoded once, by the caller, which takes one that does not decode for a miss.
bool is_header_record(const Bytes& bytes) {
  constexpr std::string_view magic = "kiln-headers ";
  return bytes.size() >= magic.size() && std::equal(magic.begin(), magic.end(), bytes.begin(),
                                                    [](char c, std::byte b) { return c == static_cast<char>(b); });
}

}  // namespace

CompilerSettings CompilerSettings::from_environment() {
  CompilerSettings settings;
  settings.enabled = !flag_off("KILN_JIT");
  settings.log = flag_on("KILN_LOG");
  return settings;
}

RuntimeCompiler::RuntimeCompiler(CompilerSettings settings, CompiledCache& cache)
    : m_settings(settings), m_cache(cache) {}

RuntimeCompiler& RuntimeCompiler::process() {
  static RuntimeCompiler* compiler = new RuntimeCompiler(CompilerSettings::from_environment(), CompiledCache::process());
  return *compiler;   // never destroyed, as the cache it uses
}

Result<Compiled> RuntimeCompiler::program(const ProgramRequest& request, const std::string& target) {
  // The keys need the compiler's versions, not the compiler: a hit loads no NVRTC.
  Result<CompilerIdentity> identity = compiler_identity(0, m_cache);
  if (!identity)
    return fail(KILN_STATUS_NO_COMPILER, request.name + ": cannot compile at run time: " + identity.error().message);
  const std::string request_key = program_request_key(request, target, *identity);
  static KeyLocks locks;
  const std::shared_ptr<std::mutex> key_lock = locks.lock_for(request_key);
  std::lock_guard serialized(*key_lock);

  // Known already: the headers it read last time are unchanged, and the image is still cached.
  if (std::optional<SharedBytes> record = m_cache.find(request_key, is_header_record, nullptr, /*counted=*/false)) {
    const std::optional<std::vector<HeaderRecord>> headers =
        decode_header_records(std::string(reinterpret_cast<const char*>((*record)->data()), (*record)->size()));
    if (headers && headers_unchanged(request, *headers)) {
      Source source = Source::disk;
      const std::string entry_key = program_entry_key(request_key, *headers);
      if (std::optional<SharedBytes> package = m_cache.find(entry_key, is_compiled_package, &source)) {
        if (m_settings.log) log_cache_hit(request.name, target, source);
        return Compiled{*package, source, {}};
      }
    }
  }

  Result<Compiler*> compiler = process_compiler(0);
  if (!compiler)
    return fail(KILN_STATUS_NO_COMPILER, request.name + ": cannot compile at run time: " + compiler.error().message);
  CompileInput input;
  input.name = request.name;
  input.source = request.source;
  input.headers = request.headers;
  for (const std::string& dir : request.include_dirs) input.options.push_back("-I" + dir);
  input.options.insert(input.options.end(), request.options.begin(), request.options.end());
  input.kernels = request.kernels;
  input.variables = request.globals;
  input.target = target;
  input.record_headers = true;
  CompileOutput output = (*compiler)->compile(input);
  if (!output.ok) {
    ++m_cache.counters().compile_failures;
    return Error(request.name + ": compiling for " + target + " at run time failed:", {}, KILN_STATUS_COMPILE_FAILED,
                 std::move(output.log));
  }
  CompiledProgram compiled{request.name, target, std::move(output.image), {}, {}, {}};
  for (std::size_t i = 0; i < request.kernels.size(); ++i)
    compiled.kernels.push_back(CompiledName{request.kernels[i], output.kernel_symbols.at(i), {}});
  for (std::size_t i = 0; i < request.globals.size(); ++i)
    compiled.variables.push_back(CompiledName{request.globals[i], output.variable_symbols.at(i), {}});
  compiled.metadata = {{"compiled.at", "run time"}, {"nvrtc.version", (*compiler)->identity().nvrtc_version},
                       {"nvjitlink.version", (*compiler)->identity().nvjitlink_version}};
  Result<Bytes> package = package_compiled(compiled);
  if (!package) return fail(KILN_STATUS_COMPILE_FAILED, package.error().message);
  m_cache.count_compile(package->size());
  const std::optional<std::vector<HeaderRecord>> headers =
      output.headers_unknown ? std::nullopt : locate_headers(request, output.headers);
  if (!headers) {
    // Without the headers it read, a later hit could not see one of them change: used, not cached.
    if (m_settings.log)
      log_compile(request.name, request.name, target, output.seconds, m_cache.directory(),
                  output.headers_unknown ? "NVRTC's time trace, which names the headers it read, could not be read"
                                         : "a header it read could not be read again to record it");
    return Compiled{std::make_shared<const Bytes>(std::move(*package)), Source::produced, {}};
  }
  if (m_settings.log) log_compile(request.name, request.name, target, output.seconds, m_cache.directory());
  const std::string entry_key = program_entry_key(request_key, *headers);
  m_cache.put(request_key, bytes_of(encode_header_records(*headers)));
  return Compiled{m_cache.put(entry_key, std::move(*package)), Source::produced, {}};
}

}  // namespace kiln::rtc
