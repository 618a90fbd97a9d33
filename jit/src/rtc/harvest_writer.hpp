// The compile library's half of harvest records (store/harvest_record.hpp): after a kernel of a
// package was compiled from its carried sources, or found compiled, a note in the user's cache of
// what was asked, from which source and package, for which target, for `kiln harvest` to read.
#pragma once

#include "format/package_reader.hpp"
#include "rtc/compiled_cache.hpp"

#include <string>
#include <string_view>

namespace kiln::rtc {

// Notes that `request` of the package `reader` (opened as `label`) resolved to `expression` of the
// carried source `source` and was compiled for `target`. Nothing is written without a disk cache.
void write_harvest_note(CompiledCache& cache, const format::PackageReader& reader, std::string_view label,
                        std::string_view request, const std::string& expression, const std::string& source,
                        const std::string& target);

}  // namespace kiln::rtc
