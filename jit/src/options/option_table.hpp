// Every compile option a manifest may give (NVRTC 13.0's documented options, and the two language
// options only nvcc takes), and where each one goes: NVRTC, nvJitLink (which generates the code of
// every Kiln build, since both compilers emit LTO-IR), nvcc, and the scanner. One row per option;
// docs/manifest.md shows the same table to users. The runtime reads it too: a carried unit's options
// are checked against it (carried_rules.hpp), so that a package asks NVRTC and nvJitLink for nothing a
// manifest could not.
#pragma once

#include "util/result.hpp"

#include <span>
#include <string>
#include <string_view>

namespace kiln::options {

// How an option takes its value.
enum class Takes {
  nothing,      // -lineinfo
  value,        // -maxrregcount=64, or "-maxrregcount", "64" as two strings
  attached,     // -DNAME, -D NAME, -D=NAME, or "-D", "NAME"
  optional,     // -device-stack-protector or -device-stack-protector=true
};

// What a value must look like, checked before any compiler sees it.
enum class Values {
  any, boolean, integer, on_off, fast_compile_level, standard,
  ptxas,        // comma-separated ptxas options, each one find_ptxas_option() knows
};

// What NVRTC gets.
enum class Nvrtc {
  passed,       // --<name>=<value> (-DX, -UX for macros)
  at_link,      // nothing: NVRTC takes it, but it acts where code is generated, in nvJitLink (-Xptxas)
  lacks,        // nothing: NVRTC 13.0 refuses it (nvcc's language options), so the unit goes to nvcc
  planned,      // nothing as written: the plan acts on it (-rdc=true puts the unit in a device link
                // group, whose members Kiln compiles with -rdc=true itself)
};

// What nvJitLink gets, given the option's value.
enum class Link {
  none,
  same,         // -<link_name>=<value> (or -<link_name> for options without a value)
  boolean,      // -<link_name>=1 / =0: nvJitLink spells booleans as digits, NVRTC as words
  each,         // -<link_name>=<v> for each comma-separated v (-Xptxas=-v -Xptxas=-O3)
  fast_math,    // -ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1
};

// What nvcc gets.
enum class Nvcc {
  same,         // --<nvcc_name>=<value> (or --<nvcc_name>)
  needless,     // nvcc has no such option and needs none (it reads the real standard library, ...)
  forbidden,    // only NVRTC can honour it: a unit with this option never goes to nvcc
};

// What the scanner makes of it: the options that change the language.
enum class Scan { none, define, undefine, standard, pre_include, default_device, defines_macro };

struct OptionSpec {
  std::string_view name = {};         // the long name, without dashes: "maxrregcount", "define-macro"
  std::string_view short_name = {};   // the short one, or "" ("D", "lineinfo")
  Takes takes = Takes::nothing;
  Values values = Values::any;
  std::string_view refused = {};      // not empty: Kiln refuses the option, and this says why
  Nvrtc nvrtc = Nvrtc::passed;
  Link link = Link::none;
  std::string_view link_name = {};
  Nvcc nvcc = Nvcc::same;
  std::string_view nvcc_name = {};    // "" : the same long name
  Scan scan = Scan::none;
  std::string_view scan_macro = {};   // Scan::defines_macro: the macro NVRTC defines for it
};

// The whole table, in the order of NVRTC's documentation.
std::span<const OptionSpec> option_table();

// The row for a name as written without its dashes ("maxrregcount", "G", "D"), long or short.
const OptionSpec* find_option(std::string_view name);

// A ptxas option that -Xptxas may pass (nvJitLink runs ptxas in the process): ptxas's documented
// options but those that read or write a file (--options-file reads one: its text came back in
// nvJitLink's error), that set what Kiln sets (--gpu-name, --output-file) or that change what kind of
// code ptxas makes (--compile-only, --entry, --extensible-whole-program).
struct PtxasOptionSpec {
  std::string_view name = {};         // without dashes: "warn-on-spills"
  std::string_view short_name = {};   // "warn-spills"
  bool takes_value = false;           // "--opt-level=3", "-O3"
};
std::span<const PtxasOptionSpec> ptxas_option_table();
// Whether `piece` ("-v", "--maxrregcount=32", "-O3") is a ptxas option -Xptxas may pass:
// INVALID_ARGUMENT completing "..., which " otherwise.
Status check_ptxas_option(std::string_view piece);
// Whether `piece` is ptxas's -v (--verbose): a request for its report, which kiln build prints as
// notes (compiler_options.hpp).
bool is_ptxas_verbose(std::string_view piece);

}  // namespace kiln::options
