// The run-time compiler as the rest of rtc sees it: NVRTC and nvJitLink loaded once per process with
// dlopen (jit/compiler_loader.hpp), or a stand-in set by a test, behind one small interface.
#pragma once

#include "rtc/compile_keys.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::rtc {

// One compile, as plain data: the trimmed image the build makes, for one target.
struct CompileInput {
  std::string name;                  // NVRTC's program name (an absolute path when headers sit beside it)
  std::string source;
  std::vector<std::pair<std::string, std::string>> headers;   // in memory
  std::vector<std::string> options;  // NVRTC's, -I included; not -arch
  std::vector<std::string> link_options;
  std::vector<std::string> kernels;  // name expressions
  std::vector<std::string> variables;
  std::string target;                // "sm_90"
  bool record_headers = false;       // report the headers NVRTC opened
  std::string random_seed = {};      // -frandom-seed: a carried unit's is the build's (carried_compile.cpp)
};

struct CompileOutput {
  bool ok = false;
  std::string log;                   // the compiler's messages; on failure, why
  std::vector<std::byte> image;
  std::vector<std::string> kernel_symbols;     // parallel to CompileInput::kernels
  std::vector<std::string> variable_symbols;   // parallel to CompileInput::variables
  std::vector<std::string> headers;            // opened, when asked
  double seconds = 0;
  bool headers_unknown = false;                // asked, and the compiler could not tell them: not cached
};

class Compiler {
public:
  virtual ~Compiler() = default;
  virtual const CompilerIdentity& identity() const = 0;
  virtual CompileOutput compile(const CompileInput& input) = 0;
  // The library files loaded (NVRTC's, nvJitLink's), for compiler_identity's memo; none for a stand-in.
  virtual std::vector<std::string> files() const { return {}; }
};

// The process's compiler for options written for NVRTC `required_major` (0: any), loaded on the first
// call; the error says where it looked and why each place was refused.
Result<Compiler*> process_compiler(int required_major);

// The identity (versions) of the compiler process_compiler would give, for cache keys, without
// loading it when a memo in the user's cache (`cache`) names the files it loaded last time and they
// are unchanged (size and modification time): loading NVRTC and nvJitLink costs 100 ms and more with
// a cold page cache, and a cache hit must not pay it. The memo is this machine's, keyed by the
// variables that steer the search; kernel entries are keyed by the versions alone.
class CompiledCache;
Result<CompilerIdentity> compiler_identity(int required_major, CompiledCache& cache);

// A directory to search for the libraries before $CUDA_PATH (kiln_compiler_add_search_dir).
void add_compiler_search_directory(const std::string& directory);

// Test hooks, internal to the runtime: a stand-in for every later process_compiler call, or the
// failure to find one (`no_compiler`: the message); null and empty: the libraries again.
void set_compiler_for_testing(std::shared_ptr<Compiler> compiler, std::string no_compiler = {});

}  // namespace kiln::rtc
