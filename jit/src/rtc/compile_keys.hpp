// Cache keys of what the runtime compiles: tagged hashes (util/hasher.hpp) of every input that
// decides the image (source and header contents, options, name expressions, target, the NVRTC and
// nvJitLink versions, this schema), never an absolute path, a time or anything random, so a cache
// filled from one copy of a project hits from another.
#pragma once

#include "core/compile_library.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln::rtc {

// Bump when what an entry holds or how a key is made changes: old entries then simply miss.
inline constexpr const char* k_runtime_cache_schema = "kiln-runtime-cache 1";

struct CompilerIdentity {
  std::string nvrtc_version;       // "13.0"
  std::string nvjitlink_version;
  // The libraries' files, when known (compiler_identity): for direct records, never in a key.
  std::vector<std::string> files = {};
};

// A unit's carried sources, by content (format: CARRIED_UNITS): enough to key a compile without
// decompressing anything.
struct CarriedFileRef {
  std::string path;                // in the carried tree: "include/ops.cuh"
  std::uint64_t content_hash = 0;
};
struct CarriedInputs {
  std::string program;             // the source's path in the tree
  std::uint64_t source_hash = 0;
  std::vector<CarriedFileRef> headers;
  std::vector<std::string> include_dirs, options, link_options;
};

// NVRTC's -frandom-seed for a carried unit, which names its internal-linkage symbols: the build's
// (generator/src/compile/nvrtc_compiler.cpp), the source's path relative to the manifest, which is
// its path in the tree (but for a source under the build directory, which the tree names _build/).
inline const std::string& carried_random_seed(const CarriedInputs& inputs) { return inputs.program; }

std::string carried_key(const CarriedInputs& inputs, const std::string& expression, const std::string& target,
                        const CompilerIdentity& compiler);

// A program from strings (kiln_program_compile).
// kiln_program as plain data: the loader's (core/compile_library.hpp), which hands it over.
using ProgramRequest = core::ProgramRequest;

// Headers a program read from disk are known only after compiling it, so its key has two levels (as
// ccache's direct mode): the request's key (everything but the include directories' paths) names a
// record of the headers read, each by where it was found and its content hash; the entry's key
// adds those hashes. A changed header misses; a moved project does not.
std::string program_request_key(const ProgramRequest& request, const std::string& target,
                                const CompilerIdentity& compiler);

enum class HeaderOrigin : std::uint32_t {
  include_dir = 0,                 // under request.include_dirs[index]
  beside_program = 1,              // relative to the directory of the program's name
  absolute = 2,                    // elsewhere: kept as read (the key still holds no path)
};
struct HeaderRecord {
  HeaderOrigin origin = HeaderOrigin::absolute;
  std::uint32_t index = 0;         // include_dir: which
  std::string path;                // relative to its origin, or absolute
  std::uint64_t content_hash = 0;
  // The file as it was before it was hashed: a check that finds the same file (device and inode)
  // with the same size, modification and change times trusts the hash without reading the file
  // again, as ccache's direct mode does; the change time is one no program can set back, as
  // `touch -r` and `cp -p` set the other. Only where the file had settled (stat_trusted): a file
  // changed within store::k_settle_ns of its hashing could change again within the same clock tick,
  // so it is hashed again at every check. Never in a key.
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t device = 0;
  std::uint64_t file = 0;
  bool stat_trusted = false;
  // An include directory's header: the places NVRTC looks before it where no file was when it was
  // recorded, each of which a new file would shadow it from: bit i for include directory i (of those
  // before this one's, up to 63), k_shadow_beside for the program's directory.
  std::uint64_t shadows = 0;
};
inline constexpr std::uint64_t k_shadow_beside = std::uint64_t{1} << 63;

// Where each header NVRTC opened came from; in-memory headers are left out (the request key holds them).
// Nothing where a header can no longer be read (gone or changed into something else since the
// compile): a record without it would not see it come back changed.
std::optional<std::vector<HeaderRecord>> locate_headers(const ProgramRequest& request,
                                                        const std::vector<std::string>& opened);
// The records as stored under the request key, and back (nothing: not such a record).
std::string encode_header_records(const std::vector<HeaderRecord>& records);
std::optional<std::vector<HeaderRecord>> decode_header_records(const std::string& text);
// Whether each recorded header still has its recorded content, from where the request says it is:
// the same file with unchanged size and times (HeaderRecord), else its content hashed again
// (header_check.cpp).
bool headers_unchanged(const ProgramRequest& request, const std::vector<HeaderRecord>& records);
// The directory beside_program headers are relative to: that of the program's name, made absolute.
std::filesystem::path program_directory(const ProgramRequest& request);
std::string program_entry_key(const std::string& request_key, const std::vector<HeaderRecord>& records);

// XXH3-64 of a file's bytes; nothing when it cannot be read.
std::optional<std::uint64_t> file_content_hash(const std::string& path);

}  // namespace kiln::rtc
