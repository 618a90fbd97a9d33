// What a kernel source's own text says before anything parses it (its headers unread): whether it
// shows host code, so that nvcc compiles it, and whether anything could ask it for a name that only
// the scan can spell. Two uses:
//
// - The scan leaves a source unread when the image alone can say what it holds (image_decides): its
//   compiler (nvcc for host code, else NVRTC) compiles it whole, its kernels are named by their
//   symbols, as `nvcc -cubin` builds them, and no name is asked of it. The scan's cost is then none,
//   where it was more than the whole compile.
// - The build compiles every source's jobs as they would be without the scan's findings while the
//   scan runs (build/speculation.hpp); a wrong guess costs time, never a result.
#pragma once

#include "manifest/manifest.hpp"
#include "plan/planned_unit.hpp"
#include "plan/unit_text.hpp"

#include <set>
#include <string>
#include <string_view>

namespace kiln::plan {

// `text` with comments and the contents of string and character literals blanked (line breaks
// kept), so that what they hold never counts as code; a directive's file name is kept.
std::string code_only(std::string_view text);

// Whether `code` (code_only's) shows host code: a launch (<<<), an #include of the CUDA runtime's
// or the driver API's header or of a standard header NVRTC cannot open, a call of the runtime API
// (any cudaXxx(...): cudaMalloc, cudaSetDevice) or a main function. A device-only source that calls
// the device runtime (cudaGetLastError in a kernel) counts too: nvcc compiles it as NVRTC would.
bool looks_like_host_code(std::string_view code);

// Whether `code` uses Kiln's runtime (includes kiln.h or kiln.hpp, or calls kiln_package_get_*): its
// requests are found by the scan alone.
bool uses_kiln_runtime(std::string_view code);

// Whether `code` uses the `template` keyword: a template's instantiations are what only the scan
// names as written.
bool shows_templates(std::string_view code);

// Whether `code` may declare a variable in device memory: `__constant__` or `__managed__` anywhere,
// or a `__device__` followed by `;`, `=`, `[` or `{` before any `(` (a function's parameter list), or
// in a macro's definition.
bool shows_device_variables(std::string_view code);

// Whether the scan may leave `source` unread: the text of its unit (the source and the project
// headers it reaches, unit_text.hpp) shows no use of Kiln's runtime, every header it reaches was read,
// and either it shows host code (nvcc compiles it) or it shows no template and no variable in device
// memory, reads no header the walk did not see, and is not carried (NVRTC compiles it whole); the manifest asks it for no name and no variable and puts it in
// no link group; the build has no host or Python sources (whose requests could name its kernels); and
// the build is not --strict (which fails on the scan's findings, so wants them all).
bool image_decides(const manifest::Manifest& manifest, const manifest::SourceEntry& source, const UnitTextFacts& unit,
                   bool strict, bool extra_request_sources);

// A discovery that finds nothing but each readable source's route, guessed from its unit's text
// (unit_text.hpp), and which of them the scan leaves to the image (`unread`: left_to_the_image's).
// Sources that cannot be read are left out (the scan will say why).
Discovery speculative_discovery(const manifest::Manifest& manifest, ProjectText& project,
                                const std::set<std::string>& unread);

}  // namespace kiln::plan
