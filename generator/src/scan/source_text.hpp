// Cheap looks at source text, without clang: which #includes a file names (to choose how to parse
// it), and its conditionals on the GPU architecture (to know when host code may hide behind
// `#ifndef __CUDA_ARCH__`, and to warn about code for GPUs clang 19 cannot target).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln::scan::detail {

struct IncludeDirective {
  std::string name;      // "cuda_fp16.h", "ops.cuh"
  bool angled = false;
};

// Every #include line, in order, including those in #if blocks that may be skipped.
std::vector<IncludeDirective> include_directives(std::string_view text);

// Lines `first` to `last` (1-based, both included) of a text.
struct LineSpan {
  int first = 0;
  int last = 0;
};

struct ArchFacts {
  bool conditional = false;          // some line tests the architecture (#if __CUDA_ARCH__, NV_IF_TARGET)
  std::vector<int> unseen_lines;     // 1-based lines with a branch for sm_100 or later
  // Each #if ... #endif block where a condition (#if, #elif, #ifdef, #ifndef) tests __CUDA_ARCH__, from
  // its #if line to its #endif line: what the scan reads there (a host parse) a device compile may
  // not see (`#ifndef __CUDA_ARCH__` around a launch).
  std::vector<LineSpan> arch_blocks;
};

// Lines that compare __CUDA_ARCH__ (or __CUDA_ARCH_SPECIFIC__ / __CUDA_ARCH_FAMILY_SPECIFIC__) with a
// value of 1000 or more, in #if/#elif, and <nv/target> tests of SM 100 or later (NV_PROVIDES_SM_100,
// NV_IS_EXACTLY_SM_120, NV_HAS_FEATURE_SM_100a). Lines in skipped blocks count: they are text here.
ArchFacts arch_facts(std::string_view text);

// A source's first lines up to its last leading #include: #include lines, blank lines and // comment
// lines, nothing else before them (a block comment, a #define or code ends them). What sources that
// start alike share, for a precompiled preamble. Empty (0 lines) when the source starts otherwise.
struct LeadingIncludes {
  std::string text;   // those lines, each with its line break
  int lines = 0;
};
LeadingIncludes leading_includes(std::string_view text);

// `text` with its first `lines` lines emptied, their line breaks kept: every later line keeps its number.
std::string blank_lines(std::string_view text, int lines);

}  // namespace kiln::scan::detail
