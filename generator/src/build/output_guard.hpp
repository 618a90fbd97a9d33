// kiln build never writes over its own inputs: an output (the package, the depfile or the compilation
// database) that is the manifest, a kernel source, a host or Python source, a header the build read, or
// another output is refused before anything is written. Files are compared as files (util/same_file.hpp), so
// "./k.cu", a symbolic link and a hard link to k.cu are k.cu.
#pragma once

#include "manifest/manifest.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::build {

struct Outputs {
  std::filesystem::path package;   // as given (-o) or defaulted
  std::filesystem::path depfile;   // empty: none (--no-depfile)
  std::filesystem::path compile_commands;   // empty: none (kiln build --compile-commands)
};

struct Input {
  std::filesystem::path path;      // as it can be opened from the current directory
  std::string role;                // "the manifest", "the kernel source", ...
  std::string shown;               // how the message names it
};

// What the build reads that is known before it starts: the manifest, its kernel, host and Python
// sources (shown with `prefix`, how the manifest directory looks from the current directory), and
// the --host-source and --python-source files (relative to the current directory).
std::vector<Input> known_inputs(const manifest::Manifest& manifest, const std::string& prefix,
                                const std::vector<std::filesystem::path>& host_sources,
                                const std::vector<std::filesystem::path>& python_sources);

// Everything the build read (absolute paths, the depfile's list), as "the input" of the build;
// headers are known only once the compiles are done.
std::vector<Input> read_inputs(const std::vector<std::filesystem::path>& paths);

// Fails, naming the output and the input, when an output is one of `inputs` or both outputs are the
// same file; and, naming what it is, when an output is there already and is not a regular file (a
// device, a FIFO, a directory: what kiln would replace with its own file).
Status check_outputs(const Outputs& outputs, const std::vector<Input>& inputs);

}  // namespace kiln::build
