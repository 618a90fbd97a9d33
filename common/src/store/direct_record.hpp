// Direct records of the run-time cache (as ccache's direct mode keeps a manifest): what lets the
// loader answer a kernel compiled earlier, by this process or another, without the compile library.
//
// The compile library keys an entry by everything that decides the image (jit/src/rtc/compile_keys.hpp),
// which needs the compiler's versions, and so NVRTC's files or a memo of them. A direct record is
// found by what the loader knows at a miss instead (DirectQuery): the package's content, the name
// asked, the device target and what steers the compiler search. It names the entry and the identity
// of every file whose change must be seen (the NVRTC and nvJitLink the compile used, and every place
// the search tries by path, which must hold what it held). The loader takes the entry only when its
// query is the record's and every file is as recorded; anything else falls through to the compile
// library, which checks by content and writes the record again. A file changed within k_settle_ns
// of the moment the record is written is not trusted by its times (ccache refuses such a file too):
// no record is written then.
//
// The record carries the compiled package itself (a copy of the entry's payload), so that a hit is
// one file read: the record names the entry too, for the tools, but the loader never reads it.
//
// Stored in the store under direct_key(query) (written to disk: change the magic, never the meaning;
// integers little-endian, strings as a u32 length and their bytes):
//
//   "kiln-direct 2\n", u16 0     16 bytes, so that the package below starts 8-byte aligned in the
//                                payload (a package is read in place, and its tables need that)
//   u64 package size, then the compiled package's bytes
//   string query                 direct_query(): compared whole, so the key is only an address
//   string entry                 the entry's key: 32 hex digits
//   string expression            the name expression the entry compiled
//   u32 file count, then per file:
//     u32 present                1: must be unchanged; 0: the path must still name nothing
//     u64 size, i64 mtime_ns, i64 ctime_ns, u64 device, u64 inode     (0 when absent)
//     string path
//
// Version 1 (no package; the loader read the entry) is not read: such a record is a miss, and the
// compile library writes this version in its place.
#pragma once

#include "platform/files.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::store {

inline constexpr std::string_view k_direct_record_magic = "kiln-direct 2\n";
// How long a file must have stood unchanged before its times are trusted to show a later change.
inline constexpr std::int64_t k_settle_ns = 2'000'000'000;

// What the loader knows when a package's own kernels miss a name.
struct DirectQuery {
  std::uint64_t package_checksum = 0;    // FileHeader::toc_checksum: every section's checksum, so its content
  std::uint64_t package_size = 0;
  std::string name;                      // normalized (format::normalize_name)
  std::string target;                    // "sm_90"
  std::vector<std::string> search_directories;   // registered for NVRTC (kiln_compiler_add_search_dir), in order
};

// The query as a record holds it: its fields and the variables that steer the compiler search as this
// process has them (KILN_NVRTC, KILN_NVJITLINK, CUDA_PATH, CUDA_HOME, LD_LIBRARY_PATH), each tagged
// with its length.
std::string direct_query(const DirectQuery& query);
// Where the record of `query` (direct_query's text) is stored: 32 hex digits.
std::string direct_key(std::string_view query);

struct FileIdentity {
  std::string path;
  bool present = false;                  // false: the path must still name nothing
  platform::FileStatus status;           // when present: size, times, device and inode compared
};

struct DirectRecord {
  std::string query;
  std::string entry_key;
  std::string expression;
  std::vector<FileIdentity> files;
  // The compiled package: the caller's bytes when encoding; when decoded, a view into the bytes the
  // record was decoded from, valid as long as they are.
  std::span<const std::byte> package;
};

// The identity of `path` now (absent when it cannot be stat'ed).
FileIdentity identity_of(const std::string& path);
// Whether the identity can be trusted to show a later change: absent, or unchanged for k_settle_ns.
bool settled(const FileIdentity& file, std::int64_t now_ns);
// Whether every file is as the record says.
bool files_unchanged(const DirectRecord& record);

std::string encode_direct_record(const DirectRecord& record);
// Nothing: not such a record, one that names no file (it could never see a change), or one without a
// package.
std::optional<DirectRecord> decode_direct_record(std::span<const std::byte> bytes);

}  // namespace kiln::store
