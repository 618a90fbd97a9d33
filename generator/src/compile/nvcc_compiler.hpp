// Compiles the device side of a source by running nvcc, as `nvcc -cubin` would: one target gives a
// cubin (`-cubin -arch=sm_XY`) or PTX (`-ptx -arch=compute_XY`), and a unit's targets together run
// one nvcc (one `-gencode` each, `-fatbin -keep`), which runs its front end and cicc once per virtual
// architecture (sm_90 and compute_90 share them) and its --threads over them; each target's image
// is taken from the files nvcc keeps. The compiler of record decides what the image holds.
//
// Two kinds of job still go through LTO-IR (`nvcc -fatbin -dc -gencode arch=compute_XY,code=lto_XY`)
// and nvJitLink (lto_link.hpp): a link group's members, whose IR the group's link joins, and an
// image part after the first, whose link keeps only its named kernels. nvcc needs a host compiler
// for this (it preprocesses with it); the package it feeds never does.
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
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compile {

// Whether nvcc compiles `job` straight to its image, not to LTO-IR for nvJitLink (see above).
bool compiles_directly(const CompileJob& job);

// Never throws; compile errors are data, as with NVRTC.
CompileOutput compile_with_nvcc(const CompileJob& job, ChildRunner& runner);
CompileOutput compile_with_nvcc(const CompileJob& job);
// `jobs`: one unit's jobs that nvcc compiles directly and that differ in their target alone
// (target_sharing.hpp), compiled in one nvcc run with `threads` (--threads). Outputs in job order,
// each with the run's messages and headers; the run's time is shared among them.
std::vector<CompileOutput> compile_with_nvcc(std::span<const CompileJob> jobs, int threads, ChildRunner& runner);

// The source followed by the instantiation table (empty when the job has no name expressions).
std::string instantiation_wrapper(std::string_view source_text, const CompileJob& job);

// nvcc's command line for `job`, compiling `input` (as nvcc is to name it: the source, or `copied`, Kiln's
// copy in the workspace) to the workspace's image and depfile. Every argument is plain
// (nvcc_workspace.hpp); an option that is not, and that Kiln cannot pass another way, is an error.
Result<std::vector<std::string>> nvcc_arguments(const CompileJob& job, NvccWorkspace& workspace, const std::string& input,
                                                bool copied);
// The same for a unit's jobs that nvcc compiles together (compile_with_nvcc above).
Result<std::vector<std::string>> nvcc_arguments(std::span<const CompileJob> jobs, int threads, NvccWorkspace& workspace,
                                                const std::string& input, bool copied);

// The files a preprocessed text's line markers name (# 12 "a.cuh" 2, #line 3 "b.h"), unescaped, in
// order, each once; not <built-in> or <command-line>.
std::vector<std::string> line_marker_files(std::string_view text);

// The prerequisites of a Makefile rule as nvcc -MD (or Kiln's own depfile) writes it ("out : a.cu \\\n  b.h"),
// unescaped ("\\ ", "\\#", "\\:", "$$").
std::vector<std::string> depfile_prerequisites(std::string_view text);

}  // namespace kiln::compile
