// compiler_identity: the run-time compiler's versions without loading it, from a memo of the files it
// loaded last time (compiler_access.hpp).
#include "rtc/compiled_cache.hpp"
#include "rtc/compiler_access.hpp"
#include "platform/text.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"

#include "nvrtc/compiler_loader.hpp"

#include <sstream>

namespace kiln::rtc {

namespace {

constexpr const char* k_memo_magic = "kiln-compiler-memo 1";

std::string env(const char* name) {
  const char* value = platform::environment(name);   // as the loader reads them
  return value ? value : "";
}

// What decides which files the search finds.
std::string memo_key(int required_major) {
  Hasher h(Hasher::Dump::skip);
  h.add("memo", k_memo_magic);
  h.add("major", std::to_string(required_major));
  for (const char* name : {"KILN_NVRTC", "KILN_NVJITLINK", "CUDA_PATH", "CUDA_HOME", "LD_LIBRARY_PATH"})
    h.add(name, env(name));
  for (const std::string& dir : jit::process_search_settings().directories) h.add("directory", dir);
  return h.hex_digest();
}

// "<size> <mtime in ns>" of a file, or "" when it cannot be read.
std::string stamp(const std::string& path) {
  platform::FileStatus st;
  if (!platform::status_of(platform::path_of_utf8(path), st)) return {};
  return std::to_string(st.size) + " " + std::to_string(st.mtime_ns);
}

// The memo's identity when every file it names is unchanged.
std::optional<CompilerIdentity> read_memo(const Bytes& bytes) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  std::string magic, line;
  CompilerIdentity identity;
  if (!std::getline(in, magic) || magic != k_memo_magic || !std::getline(in, identity.nvrtc_version) ||
      !std::getline(in, identity.nvjitlink_version))
    return std::nullopt;
  while (std::getline(in, line)) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos || stamp(line.substr(0, tab)) != line.substr(tab + 1)) return std::nullopt;
    identity.files.push_back(line.substr(0, tab));
  }
  return identity.files.empty() ? std::nullopt : std::optional<CompilerIdentity>(identity);
}

}  // namespace

Result<CompilerIdentity> compiler_identity(int required_major, CompiledCache& cache) {
  const std::string key = memo_key(required_major);
  // Read from disk, the memo is checked (its files stamped) once, by the check itself.
  std::optional<CompilerIdentity> checked;
  const auto valid = [&checked](const Bytes& b) { return (checked = read_memo(b)).has_value(); };
  if (std::optional<SharedBytes> memo = cache.find(key, valid, nullptr, /*counted=*/false)) {
    if (checked) return *checked;
    if (std::optional<CompilerIdentity> identity = read_memo(**memo)) return *identity;   // from memory
  }
  Result<Compiler*> compiler = process_compiler(required_major);
  if (!compiler) return compiler.error();
  CompilerIdentity identity = (*compiler)->identity();
  identity.files = (*compiler)->files();
  std::string memo = std::string(k_memo_magic) + "\n" + identity.nvrtc_version + "\n" + identity.nvjitlink_version + "\n";
  for (const std::string& file : identity.files) {
    const std::string s = stamp(file);
    if (s.empty()) return identity;   // a file that cannot be stamped: no memo, load next time too
    memo += file + "\t" + s + "\n";
  }
  if (!identity.files.empty()) cache.put(key, bytes_of(memo));
  return identity;
}

}  // namespace kiln::rtc
