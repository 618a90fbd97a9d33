// What the text of a kernel source and of the project headers it includes says, before anything
// parses it (text_discovery.hpp's questions, asked of the whole unit): host code shown only by a
// header ("common.h" with <cstdio> and a cudaMalloc helper) sends its sources to nvcc unparsed, and
// Kiln's runtime used only in a header keeps its sources parsed, so that its requests are found; a
// template or a device variable in a header keeps a device-only source parsed.
//
// Project headers are those the preprocessor would find in the project: a quoted include beside the
// file that includes it, then (quoted or not) in the manifest's include directories and the source's
// own, relative to the manifest's root. The toolkit's and Kiln's directories (<cuda>, <kiln>,
// <build>), the system's and -I options are not followed: what they hold is not the project's code.
// A computed include (#include MACRO) is not followed either, as text_discovery.hpp never looked.
#pragma once

#include "manifest/manifest.hpp"
#include "scan/source_text.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::plan {

struct UnitTextFacts {
  bool host_code = false;      // looks_like_host_code of the source or of a header it reaches
  bool kiln_runtime = false;   // uses_kiln_runtime of the same
  bool templates = false;      // shows_templates of the same
  bool device_variables = false;   // shows_device_variables of the same
  // The compiler may read headers the walk did not: a quoted include that neither the project nor
  // the toolkit holds, a computed one (#include MACRO), a <build> include directory, or an option that
  // includes a header first or adds a search directory (--pre-include, -I). Only a device-only unit's route asks it:
  // nvcc's image holds what nvcc keeps whatever the text shows.
  bool unseen_headers = false;
  // False where a header the unit reaches exists but could not be read (not a regular file, too
  // large, unreadable), or the walk stopped at its bounds: what was not read may hold anything.
  bool complete = true;
};

// The most project headers one ProjectText reads, the largest it reads and the most bytes it reads in
// all: a project past any of them is parsed as before (complete = false), never read without end.
inline constexpr std::size_t k_most_project_headers = 4096;
inline constexpr std::uint64_t k_largest_project_header = 8 << 20;
inline constexpr std::uint64_t k_most_project_header_bytes = 256 << 20;

// One walk of a manifest's project headers, each read once however many sources include it.
class ProjectText {
public:
  // `cuda_root`: the toolkit, whose include directories a quoted include the project does not hold
  // ("cuda_fp16.h") is found in as an angled one is; empty: none, and such an include is unseen.
  explicit ProjectText(const manifest::Manifest& manifest, const std::filesystem::path& cuda_root = {});

  // The facts of `source`'s unit; nullopt when the source itself cannot be read (the scan says why).
  std::optional<UnitTextFacts> facts_of(const manifest::SourceEntry& source);

private:
  struct FileFacts {
    bool read = false;         // false: it exists but was not read (the unit is then incomplete)
    bool host_code = false;
    bool kiln_runtime = false;
    bool templates = false;
    bool device_variables = false;
    bool computed_includes = false;   // an #include line include_directives does not read
    std::vector<scan::detail::IncludeDirective> includes;   // the scan's reading of #include lines
  };

  const FileFacts& file_facts(const std::filesystem::path& file);
  // Where the preprocessor finds `include` from `includer` (an empty path: nowhere in the project).
  std::filesystem::path find(const scan::detail::IncludeDirective& include, const std::filesystem::path& includer,
                             const std::vector<std::filesystem::path>& dirs) const;

  const manifest::Manifest& m_manifest;
  std::vector<std::filesystem::path> m_include_dirs;   // the manifest's own, resolved
  std::vector<std::filesystem::path> m_toolkit_dirs;   // <cuda>/include and <cuda>/include/cccl
  std::map<std::filesystem::path, FileFacts> m_files;
  std::uint64_t m_bytes_read = 0;
};

}  // namespace kiln::plan
