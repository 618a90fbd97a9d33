#include "options/option_table.hpp"

#include <array>

namespace kiln::options {

namespace {

constexpr std::string_view k_target = "is set by Kiln for each target; list targets in 'targets'";
constexpr std::string_view k_output_kind = "is set by Kiln, which chooses the kind of output it compiles to";
constexpr std::string_view k_timing = "is set by Kiln when it is asked to time the build";
constexpr std::string_view k_link_time =
    "has no effect on Kiln's builds: their code is generated when nvJitLink links the LTO-IR, and "
    "nvJitLink 13.0 has no such option";
constexpr std::string_view k_pch =
    "is set by Kiln, which shares NVRTC's precompiled headers between sources that start with the same "
    "includes (KILN_NVRTC_PCH=0 turns that off)";

using R = Nvrtc;
using T = Takes;
using V = Values;
using L = Link;
using N = Nvcc;
using S = Scan;

constexpr std::array k_table = {
    // Compilation targets, separate compilation
    OptionSpec{.name = "gpu-architecture", .short_name = "arch", .takes = T::value, .refused = k_target},
    OptionSpec{.name = "device-c", .short_name = "dc", .refused = k_output_kind},
    OptionSpec{.name = "device-w", .short_name = "dw", .refused = k_output_kind},
    OptionSpec{.name = "relocatable-device-code", .short_name = "rdc", .takes = T::value, .values = V::boolean,
               .nvrtc = R::planned, .nvcc = N::needless},
    OptionSpec{.name = "extensible-whole-program", .short_name = "ewp", .refused = k_output_kind},
    // Debugging
    OptionSpec{.name = "device-debug", .short_name = "G", .link = L::same, .link_name = "g",
               .nvcc_name = "device-debug"},
    OptionSpec{.name = "generate-line-info", .short_name = "lineinfo", .link = L::same, .link_name = "lineinfo"},
    // Code generation
    OptionSpec{.name = "dopt", .short_name = "dopt", .takes = T::value, .values = V::on_off, .refused = k_link_time},
    OptionSpec{.name = "Ofast-compile", .short_name = "Ofc", .takes = T::value, .values = V::fast_compile_level,
               .refused = k_link_time},
    // nvcc runs ptxas itself where it compiles straight to a cubin; on its LTO-IR route it ignores the
    // option, and nvJitLink's link applies it.
    OptionSpec{.name = "ptxas-options", .short_name = "Xptxas", .takes = T::value, .values = V::ptxas,
               .nvrtc = R::at_link, .link = L::each, .link_name = "Xptxas"},
    OptionSpec{.name = "maxrregcount", .short_name = "maxrregcount", .takes = T::value, .values = V::integer,
               .link = L::same, .link_name = "maxrregcount"},
    OptionSpec{.name = "ftz", .short_name = "ftz", .takes = T::value, .values = V::boolean, .link = L::boolean,
               .link_name = "ftz"},
    OptionSpec{.name = "prec-sqrt", .short_name = "prec-sqrt", .takes = T::value, .values = V::boolean,
               .link = L::boolean, .link_name = "prec-sqrt"},
    OptionSpec{.name = "prec-div", .short_name = "prec-div", .takes = T::value, .values = V::boolean,
               .link = L::boolean, .link_name = "prec-div"},
    OptionSpec{.name = "fmad", .short_name = "fmad", .takes = T::value, .values = V::boolean, .link = L::boolean,
               .link_name = "fma"},
    OptionSpec{.name = "use_fast_math", .short_name = "use_fast_math", .link = L::fast_math,
               .scan = S::defines_macro, .scan_macro = "__USE_FAST_MATH__"},
    OptionSpec{.name = "extra-device-vectorization", .short_name = "extra-device-vectorization",
               .refused = k_link_time},
    OptionSpec{.name = "modify-stack-limit", .short_name = "modify-stack-limit", .takes = T::value,
               .values = V::boolean, .nvcc = N::needless},
    OptionSpec{.name = "dlink-time-opt", .short_name = "dlto", .refused = k_output_kind},
    OptionSpec{.name = "gen-opt-lto", .short_name = "gen-opt-lto"},
    OptionSpec{.name = "optix-ir", .short_name = "optix-ir",
               .refused = "is refused: Kiln builds cubins and PTX, and OptiX IR is for OptiX to load"},
    OptionSpec{.name = "jump-table-density", .short_name = "jtd", .takes = T::value, .values = V::integer,
               .link = L::same, .link_name = "jump-table-density"},
    OptionSpec{.name = "device-stack-protector", .short_name = "device-stack-protector", .takes = T::optional,
               .values = V::boolean,
               .refused = "has no effect on Kiln's builds: their code is generated when nvJitLink links the LTO-IR, "
                          "and nvJitLink 13.0 refuses the option"},
    OptionSpec{.name = "no-cache", .short_name = "no-cache", .link = L::same, .link_name = "no-cache",
               .nvcc = N::needless},
    OptionSpec{.name = "frandom-seed", .short_name = "frandom-seed", .takes = T::value,
               .refused = "is set by Kiln, which fixes the seed so that builds are reproducible"},
    // Preprocessing
    OptionSpec{.name = "define-macro", .short_name = "D", .takes = T::attached, .scan = S::define},
    OptionSpec{.name = "undefine-macro", .short_name = "U", .takes = T::attached, .scan = S::undefine},
    OptionSpec{.name = "include-path", .short_name = "I", .takes = T::attached,
               .refused = "is set by Kiln from 'include_dirs', whose paths are relative to the manifest"},
    OptionSpec{.name = "pre-include", .short_name = "include", .takes = T::value, .scan = S::pre_include},
    OptionSpec{.name = "no-source-include", .short_name = "no-source-include", .nvcc = N::needless},
    // Language dialect
    OptionSpec{.name = "std", .short_name = "std", .takes = T::value, .values = V::standard, .scan = S::standard},
    OptionSpec{.name = "builtin-move-forward", .short_name = "builtin-move-forward", .takes = T::value,
               .values = V::boolean, .nvcc = N::needless},
    OptionSpec{.name = "builtin-initializer-list", .short_name = "builtin-initializer-list", .takes = T::value,
               .values = V::boolean, .nvcc = N::needless},
    // Precompiled headers
    OptionSpec{.name = "pch", .short_name = "pch", .refused = k_pch},
    OptionSpec{.name = "create-pch", .short_name = "create-pch", .takes = T::value, .refused = k_pch},
    OptionSpec{.name = "use-pch", .short_name = "use-pch", .takes = T::value, .refused = k_pch},
    OptionSpec{.name = "pch-dir", .short_name = "pch-dir", .takes = T::value, .refused = k_pch},
    OptionSpec{.name = "pch-verbose", .short_name = "pch-verbose", .takes = T::value, .values = V::boolean,
               .refused = k_pch},
    OptionSpec{.name = "pch-messages", .short_name = "pch-messages", .takes = T::value, .values = V::boolean,
               .refused = k_pch},
    OptionSpec{.name = "instantiate-templates-in-pch", .short_name = "instantiate-templates-in-pch",
               .takes = T::value, .values = V::boolean, .refused = k_pch},
    // Misc.
    OptionSpec{.name = "disable-warnings", .short_name = "w"},
    OptionSpec{.name = "restrict", .short_name = "restrict"},
    OptionSpec{.name = "device-as-default-execution-space", .short_name = "default-device", .nvcc = N::forbidden,
               .scan = S::default_device},
    OptionSpec{.name = "device-int128", .short_name = "device-int128", .nvcc = N::needless, .scan = S::defines_macro,
               .scan_macro = "__CUDACC_RTC_INT128__"},
    OptionSpec{.name = "device-float128", .short_name = "device-float128", .nvcc = N::needless,
               .scan = S::defines_macro, .scan_macro = "__CUDACC_RTC_FLOAT128__"},
    OptionSpec{.name = "optimization-info", .short_name = "opt-info", .takes = T::value,
               .refused = "has no effect on Kiln's builds: the optimizer whose decisions it reports runs when "
                          "nvJitLink links the LTO-IR, and nvJitLink 13.0 has no such option"},
    OptionSpec{.name = "display-error-number", .short_name = "err-no"},
    OptionSpec{.name = "no-display-error-number", .short_name = "no-err-no"},
    OptionSpec{.name = "diag-error", .short_name = "diag-error", .takes = T::value},
    OptionSpec{.name = "diag-suppress", .short_name = "diag-suppress", .takes = T::value},
    OptionSpec{.name = "diag-warn", .short_name = "diag-warn", .takes = T::value},
    OptionSpec{.name = "brief-diagnostics", .short_name = "brief-diag", .takes = T::value, .values = V::boolean},
    OptionSpec{.name = "time", .short_name = "time", .takes = T::value, .refused = k_timing},
    OptionSpec{.name = "split-compile", .short_name = "split-compile", .takes = T::value, .values = V::integer,
               .link = L::same, .link_name = "split-compile"},
    OptionSpec{.name = "fdevice-syntax-only", .short_name = "fdevice-syntax-only",
               .refused = "is refused: it stops after the front end, so there would be no code to package"},
    OptionSpec{.name = "minimal", .short_name = "minimal", .nvcc = N::needless},
    OptionSpec{.name = "fdevice-time-trace", .short_name = "fdevice-time-trace", .takes = T::value,
               .refused = k_timing},
    // nvcc's alone: NVRTC 13.0 refuses them, so a unit that gives them compiles with nvcc. clang accepts
    // what they allow without a flag, so the scan needs none.
    OptionSpec{.name = "extended-lambda", .short_name = "extended-lambda", .nvrtc = R::lacks},
    OptionSpec{.name = "expt-extended-lambda", .short_name = "expt-extended-lambda", .nvrtc = R::lacks},
    OptionSpec{.name = "expt-relaxed-constexpr", .short_name = "expt-relaxed-constexpr", .nvrtc = R::lacks},
};

using P = PtxasOptionSpec;

// ptxas 13.0's documented options that -Xptxas may pass, in the order of `ptxas --help`.
constexpr std::array k_ptxas_table = {
    P{"Ofast-compile", "Ofc", true},
    P{"allow-expensive-optimizations", "allow-expensive-optimizations", true},
    P{"def-load-cache", "dlcm", true},
    P{"def-store-cache", "dscm", true},
    P{"device-debug", "g", false},
    P{"device-function-maxrregcount", "func-maxrregcount", true},
    P{"disable-optimizer-constants", "disable-optimizer-consts", false},
    P{"disable-warnings", "w", false},
    P{"dont-merge-basicblocks", "no-bb-merge", false},
    P{"fmad", "fmad", true},
    P{"force-load-cache", "flcm", true},
    P{"force-store-cache", "fscm", true},
    P{"generate-line-info", "lineinfo", false},
    P{"maxrregcount", "maxrregcount", true},
    P{"minnctapersm", "minnctapersm", true},
    P{"opt-level", "O", true},
    P{"optimize-float-atomics", "opt-fp-atomics", false},
    P{"position-independent-code", "pic", true},
    P{"register-usage-level", "regUsageLevel", true},
    P{"return-at-end", "ret-end", false},
    P{"sp-bounds-check", "sp-bounds-check", false},
    P{"split-compile", "split-compile", true},
    P{"suppress-async-bulk-multicast-advisory-warning", "suppress-async-bulk-multicast-advisory-warning", false},
    P{"suppress-debug-info", "suppress-debug-info", false},
    P{"suppress-double-demote-warning", "suppress-double-demote-warning", false},
    P{"suppress-sparse-mma-advisory-info", "suppress-sparse-mma-advisory-info", false},
    P{"suppress-stack-size-warning", "suppress-stack-size-warning", false},
    P{"verbose", "v", false},
    P{"warn-on-double-precision-use", "warn-double-usage", false},
    P{"warn-on-local-memory-usage", "warn-lmem-usage", false},
    P{"warn-on-spills", "warn-spills", false},
    P{"warning-as-error", "Werror", false},
};

// A ptxas value is a number or a word ("3", "archmax", "cg"): nothing that could name a file.
bool is_plain_value(std::string_view value) {
  if (value.empty()) return false;
  for (const char c : value) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                       c == '.' || c == '+' || c == '-';
    if (!plain) return false;
  }
  return true;
}

}  // namespace

std::span<const OptionSpec> option_table() { return k_table; }

std::span<const PtxasOptionSpec> ptxas_option_table() { return k_ptxas_table; }

Status check_ptxas_option(std::string_view piece) {
  const auto refused = [](std::string why) { return fail(KILN_STATUS_INVALID_ARGUMENT, std::move(why)); };
  std::string_view body = piece;
  if (body.starts_with("--")) body.remove_prefix(2);
  else if (body.starts_with("-")) body.remove_prefix(1);
  else return refused("is not an option (ptxas options start with - or --)");
  const std::size_t equals = body.find('=');
  std::string_view name = body.substr(0, equals);
  std::string_view value = equals == std::string_view::npos ? std::string_view() : body.substr(equals + 1);
  // -O3: the optimization level is also written attached to its short name.
  if (equals == std::string_view::npos && name.size() > 1 && name.front() == 'O' &&
      name.substr(1).find_first_not_of("0123456789") == std::string_view::npos) {
    return {};
  }
  const PtxasOptionSpec* spec = nullptr;
  for (const PtxasOptionSpec& row : k_ptxas_table)
    if (row.name == name || row.short_name == name) spec = &row;
  if (!spec)
    return refused("is not a ptxas option Kiln passes on (none that reads or writes a file or sets what Kiln sets; "
                   "Kiln's manifest.md, share/doc/kiln/ in its install, lists them)");
  if (!spec->takes_value) {
    if (equals == std::string_view::npos) return {};
    return refused("takes no value");
  }
  if (equals == std::string_view::npos) return refused("takes a value (-" + std::string(name) + "=VALUE)");
  if (!is_plain_value(value)) return refused("takes a number or a word, not '" + std::string(value) + "'");
  return {};
}

bool is_ptxas_verbose(std::string_view piece) {
  if (piece.starts_with("--")) piece.remove_prefix(2);
  else if (piece.starts_with("-")) piece.remove_prefix(1);
  else return false;
  return piece == "v" || piece == "verbose";
}

const OptionSpec* find_option(std::string_view name) {
  if (name.empty()) return nullptr;
  for (const OptionSpec& spec : k_table)
    if (spec.name == name || spec.short_name == name) return &spec;
  return nullptr;
}

}  // namespace kiln::options
