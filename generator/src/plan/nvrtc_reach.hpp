// Whether NVRTC can open every header a source names, read from the text before compiling: a source
// that includes a header none of NVRTC's include directories holds (<cmath>, <limits>: NVRTC has no
// standard library) is one NVRTC will most likely reject, so the compile phase tries it for one target
// before the others (build/compile_phase.hpp); every other unit compiles all its targets at once.
#pragma once

#include "compile/compile_job.hpp"

namespace kiln::plan {

// Follows the source's #include lines, and those of every header of the project (under the job's root)
// it finds next to the including file or in the job's -I directories, whatever #if surrounds them.
// True when one names a header found in none of them.
bool includes_beyond_nvrtc(const compile::CompileJob& nvrtc_job);

}  // namespace kiln::plan
