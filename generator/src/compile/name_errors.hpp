// NVRTC reports a bad name expression against a file of its own ("__nv_name_map(2): error: identifier
// "flaot" is undefined", under "#pragma nv_mangled_name EXPR" and a caret). The user never wrote that
// file: each such error is moved to where the expression came from (the manifest's `instantiate`
// entry, line and column, or the launch or runtime request the scanner found), with a note saying
// what it is; to the kiln_add_cache() call that listed it, for a manifest generated from one, as one
// error under CMake's keyword ("CMakeLists.txt:12: error: INSTANTIATE 'k<flaot>' of cache 'k': ...").
// Everything else in the log is left as it is.
#pragma once

#include "compile/compile_job.hpp"

#include <string>

namespace kiln::compile {

// The NVRTC log (locations already rewritten: "p/__nv_name_map:2: error: ...") with every error in
// NVRTC's name map moved to the expression's origin. NVRTC's echo "Error in parsing name expression
// for lowered name lookup" is dropped when the expression has another error to show.
std::string explain_name_errors(const std::string& log, const CompileJob& job);

// nvcc compiles the expressions in a wrapper whose `#line` puts each at its origin, so its errors are
// there already; for an origin with a label (a kiln_add_cache() call) each is said once under it,
// without nvcc's echo of the wrapper's line and its caret: "CMakeLists.txt:12: error: INSTANTIATE
// 'k<flaot>' of cache 'k': identifier "flaot" is undefined". Other lines are left as they are.
std::string label_wrapper_errors(const std::string& log, const CompileJob& job);

}  // namespace kiln::compile
