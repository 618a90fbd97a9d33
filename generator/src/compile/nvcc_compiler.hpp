// Compiles the device side of a source for one target by running nvcc, then links it like NVRTC's
// output: `nvcc -fatbin -dc -gencode arch=compute_XY,code=lto_XY` writes LTO-IR, and nvJitLink
// (lto_link.hpp) turns it into a trimmed cubin, or PTX for compute_XY. Family PTX (compute_XYf) comes
// from `nvcc -ptx` directly, as NVRTC's does. nvcc needs a host compiler for this (it preprocesses
// with it); the package it feeds never does.
//
// Reproducibility: nvcc names internal-linkage symbols after a module ID that cicc derives from the
// source's absolute path, so a copy of the tree elsewhere would get other symbol names. Kiln passes
// the path relative to the manifest directory instead (-Xcicc --orig_src_path_name, an option of
// nvcc's device front end: measured with CUDA 13.0, two trees give byte-identical cubins), spelt
// plainly (util/plain_names.hpp), as nvcc hands it to its steps' shell unquoted.
//
// Names: nvcc runs its steps through a shell; what it is given, and where it runs, is in
// nvcc_workspace.hpp.
//
// Instantiations: nvcc builds what the translation unit instantiates. Name expressions it would
// not (manifest entries, runtime requests) are added by compiling a copy of the source followed by
// a table that takes each kernel's address; #line directives keep __FILE__, __LINE__ and messages
// pointing at the source, and each table entry at where its expression came from.
#pragma once

#include "compile/child_process.hpp"
#include "compile/compile_job.hpp"
#include "compile/nvcc_workspace.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compile {

// Never throws; compile errors are data, as with NVRTC.
CompileOutput compile_with_nvcc(const CompileJob& job, ChildRunner& runner);
CompileOutput compile_with_nvcc(const CompileJob& job);

// The source followed by the instantiation table (empty when the job has no name expressions).
std::string instantiation_wrapper(std::string_view source_text, const CompileJob& job);

// nvcc's command line for `job`, compiling `input` (as nvcc is to name it: the source, or `copied`, Kiln's
// copy in the workspace) to the workspace's image and depfile. Every argument is plain
// (nvcc_workspace.hpp); an option that is not, and that Kiln cannot pass another way, is an error.
Result<std::vector<std::string>> nvcc_arguments(const CompileJob& job, NvccWorkspace& workspace, const std::string& input,
                                                bool copied);

// The prerequisites of a Makefile rule as nvcc -MD writes it ("out : a.cu \\\n  b.h"), unescaped.
std::vector<std::string> depfile_prerequisites(std::string_view text);

}  // namespace kiln::compile
