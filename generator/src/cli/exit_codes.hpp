// Process exit codes of `kiln`. Scripts rely on them (docs/cli.md): never renumber.
#pragma once

namespace kiln::cli {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_failed = 1;        // the build failed (compile errors) or verify found problems
inline constexpr int k_exit_usage = 2;         // bad command line
inline constexpr int k_exit_bad_input = 3;     // invalid manifest, unreadable or corrupt package
inline constexpr int k_exit_environment = 4;   // no CUDA toolkit, cannot write the output
inline constexpr int k_exit_internal = 70;     // a bug in kiln (EX_SOFTWARE)

}  // namespace kiln::cli
