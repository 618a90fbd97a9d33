// The compile library's half of direct records (store/direct_record.hpp): after a kernel of a package
// was compiled or found in the cache, the record under the key the loader makes at the miss, carrying
// the compiled package and naming the compiler's files, so that the next process takes it without
// this library.
#pragma once

#include "format/package_reader.hpp"
#include "rtc/compile_keys.hpp"
#include "rtc/compiled_cache.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace kiln::rtc {

// Records that `request` (as the loader asked it) of the package `reader` for `target` is `compiled`,
// the entry `entry_key`, which compiled `expression` with `compiler`. Nothing is written without a disk cache,
// without the compiler's files (a stand-in compiler), or when a file changed too recently to be
// trusted by its times (store::k_settle_ns).
void write_direct_record(CompiledCache& cache, const format::PackageReader& reader, std::string_view request,
                         const std::string& target, const std::string& entry_key, const std::string& expression,
                         std::span<const std::byte> compiled, const CompilerIdentity& compiler);

}  // namespace kiln::rtc
