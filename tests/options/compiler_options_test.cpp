// Reading a manifest's option list: both spellings NVRTC accepts, the forms -D takes, value checks,
// refusals with their reasons, and what NVRTC, nvJitLink, nvcc and the scanner get.
#include "options/compiler_options.hpp"

#include <gtest/gtest.h>

namespace kiln::options {
namespace {

using Strings = std::vector<std::string>;

CompilerOptions interpreted(const Strings& given) {
  Result<CompilerOptions> r = interpret(given);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? *r : CompilerOptions{};
}

std::string problem_of(const Strings& given) {
  const std::vector<OptionProblem> problems = check_options(given);
  if (problems.size() != 1) return "(" + std::to_string(problems.size()) + " problems)";
  return "option '" + problems[0].option + "' " + problems[0].message;
}

TEST(CompilerOptions, BothSpellingsOfAValueGiveTheSameTranslation) {
  const Strings expected_nvrtc = {"--maxrregcount=64"};
  for (const Strings& given : {Strings{"--maxrregcount=64"}, Strings{"-maxrregcount=64"}, Strings{"--maxrregcount", "64"},
                               Strings{"-maxrregcount", "64"}, Strings{"-maxrregcount 64"}}) {
    const CompilerOptions o = interpreted(given);
    EXPECT_EQ(o.nvrtc, expected_nvrtc) << given[0];
    EXPECT_EQ(o.link, Strings{"-maxrregcount=64"}) << given[0];
    EXPECT_EQ(o.nvcc, Strings{"--maxrregcount=64"}) << given[0];
  }
  // Short and long names are one option.
  EXPECT_EQ(interpreted({"-jtd", "10"}).link, interpreted({"--jump-table-density=10"}).link);
}

TEST(CompilerOptions, MacrosTakeEveryFormNvrtcAccepts) {
  for (const Strings& given : {Strings{"-DN=4"}, Strings{"-D N=4"}, Strings{"-D=N=4"}, Strings{"-D", "N=4"},
                               Strings{"--define-macro=N=4"}, Strings{"--define-macro", "N=4"}}) {
    const CompilerOptions o = interpreted(given);
    EXPECT_EQ(o.nvrtc, Strings{"-DN=4"}) << given[0];
    EXPECT_EQ(o.nvcc, Strings{"-DN=4"}) << given[0];
    EXPECT_EQ(o.scan.macros, Strings{"-DN=4"}) << given[0];
  }
  const CompilerOptions o = interpreted({"-DA", "-U", "A", "--undefine-macro=B"});
  EXPECT_EQ(o.scan.macros, (Strings{"-DA", "-UA", "-UB"})) << "in order";
}

TEST(CompilerOptions, NvJitLinkGetsWhatGeneratesCodeInItsOwnSpelling) {
  const CompilerOptions o = interpreted({"-ftz=true", "--prec-div", "false", "-prec-sqrt=true", "-fmad=false", "-G",
                                        "-lineinfo", "-Xptxas", "-O2,-warn-spills", "-split-compile=2", "-no-cache"});
  EXPECT_EQ(o.link, (Strings{"-ftz=1", "-prec-div=0", "-prec-sqrt=1", "-fma=0", "-g", "-lineinfo", "-Xptxas=-O2",
                             "-Xptxas=-warn-spills", "-split-compile=2", "-no-cache"}));
  EXPECT_EQ(interpreted({"-use_fast_math"}).link, (Strings{"-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"}));
  // ptxas runs at link time for NVRTC's units, and in nvcc for nvcc's (which compiles them to cubins
  // itself): NVRTC does not get -Xptxas, nvcc does, and either compiler may build the unit.
  EXPECT_TRUE(interpreted({"-Xptxas=-O2"}).nvrtc.empty());
  EXPECT_EQ(interpreted({"-Xptxas", "-O2,-warn-spills"}).nvcc, (Strings{"--ptxas-options=-O2,-warn-spills"}));
  EXPECT_TRUE(interpreted({"-Xptxas=-O2"}).needs_nvcc.empty());
}

// ptxas's -v asks for its report, which kiln build prints as notes: ptxas gets it too, in nvJitLink's
// and nvcc's spelling (its report is the only record of spills, and the cubin records the option, so
// the key must have it), whatever the spelling.
TEST(CompilerOptions, PtxasVerboseAsksForNotesAndReachesPtxas) {
  for (const Strings& given : {Strings{"-Xptxas=-v"}, Strings{"-Xptxas", "-v"}, Strings{"--ptxas-options=--verbose"},
                               Strings{"-Xptxas=-verbose"}, Strings{"--ptxas-options", "--v"}}) {
    const CompilerOptions o = interpreted(given);
    EXPECT_TRUE(o.ptxas_verbose) << given[0];
    ASSERT_EQ(o.link.size(), 1u) << given[0];
    EXPECT_TRUE(o.link[0] == "-Xptxas=-v" || o.link[0] == "-Xptxas=--verbose" || o.link[0] == "-Xptxas=-verbose" ||
                o.link[0] == "-Xptxas=--v")
        << o.link[0];
    ASSERT_EQ(o.nvcc.size(), 1u) << given[0];
    EXPECT_EQ(o.nvcc[0].rfind("--ptxas-options=", 0), 0u) << o.nvcc[0];
    EXPECT_TRUE(o.nvrtc.empty()) << given[0];
  }
  const CompilerOptions mixed = interpreted({"-Xptxas=-O3,-v,-warn-spills"});
  EXPECT_TRUE(mixed.ptxas_verbose);
  EXPECT_EQ(mixed.link, (Strings{"-Xptxas=-O3", "-Xptxas=-v", "-Xptxas=-warn-spills"}));
  EXPECT_EQ(mixed.nvcc, (Strings{"--ptxas-options=-O3,-v,-warn-spills"}));
  EXPECT_FALSE(interpreted({"-Xptxas=-O3,-warn-spills"}).ptxas_verbose);
  EXPECT_FALSE(interpreted({"-lineinfo"}).ptxas_verbose);
}

TEST(CompilerOptions, TheScannerGetsWhatChangesTheLanguage) {
  const CompilerOptions o =
      interpreted({"-std=c++14", "-include", "pre.cuh", "-default-device", "-use_fast_math", "-device-int128", "-std",
                   "c++20"});
  EXPECT_EQ(o.scan.standard, "c++20") << "the last -std wins, as with NVRTC";
  EXPECT_EQ(o.scan.pre_includes, Strings{"pre.cuh"});
  EXPECT_TRUE(o.scan.default_device);
  EXPECT_EQ(o.scan.macros, (Strings{"-D__USE_FAST_MATH__", "-D__CUDACC_RTC_INT128__"}));
}

TEST(CompilerOptions, WhatOnlyOneCompilerTakesDecidesTheCompiler) {
  const CompilerOptions lambda = interpreted({"--extended-lambda", "--expt-relaxed-constexpr"});
  EXPECT_EQ(lambda.needs_nvcc, "--extended-lambda");
  EXPECT_TRUE(lambda.nvrtc.empty()) << "NVRTC 13.0 refuses both";
  EXPECT_EQ(lambda.nvcc, (Strings{"--extended-lambda", "--expt-relaxed-constexpr"}));
  const CompilerOptions device = interpreted({"-default-device"});
  EXPECT_EQ(device.forbids_nvcc, "-default-device");
  EXPECT_EQ(device.nvrtc, Strings{"--device-as-default-execution-space"});
  EXPECT_TRUE(device.nvcc.empty());
  // Options nvcc has no use for are left out for it, with no consequence.
  EXPECT_TRUE(interpreted({"-builtin-move-forward=false", "-minimal", "-modify-stack-limit", "false"}).nvcc.empty());
}

TEST(CompilerOptions, RefusedOptionsSayWhy) {
  EXPECT_EQ(problem_of({"-arch=sm_90"}), "option '-arch=sm_90' is set by Kiln for each target; list targets in 'targets'");
  EXPECT_EQ(problem_of({"--gpu-architecture", "sm_90"}),
            "option '--gpu-architecture sm_90' is set by Kiln for each target; list targets in 'targets'");
  EXPECT_EQ(problem_of({"-arch"}), "option '-arch' is set by Kiln for each target; list targets in 'targets'");
  EXPECT_EQ(problem_of({"-Iinclude"}),
            "option '-Iinclude' is set by Kiln from 'include_dirs', whose paths are relative to the manifest");
  EXPECT_NE(problem_of({"-extra-device-vectorization"}).find("nvJitLink 13.0 has no such option"), std::string::npos);
  EXPECT_NE(problem_of({"-pch"}).find("precompiled headers"), std::string::npos);
}

TEST(CompilerOptions, MalformedOptionsAreNamed) {
  EXPECT_EQ(problem_of({"-ftz=yes"}), "option '-ftz=yes' takes true or false, not 'yes'");
  EXPECT_EQ(problem_of({"--maxrregcount", "many"}), "option '--maxrregcount many' takes a whole number, not 'many'");
  EXPECT_EQ(problem_of({"-jtd=200"}), "option '-jtd=200' takes a percentage from 0 to 101, not 200");
  EXPECT_EQ(problem_of({"-std=c++23"}),
            "option '-std=c++23' takes c++03, c++11, c++14, c++17 or c++20 (NVRTC 13.0's), not 'c++23'");
  EXPECT_EQ(problem_of({"-maxrregcount"}),
            "option '-maxrregcount' needs a value (--maxrregcount=VALUE, or the value as the next string)");
  EXPECT_EQ(problem_of({"-lineinfo=yes"}), "option '-lineinfo=yes' takes no value");
  EXPECT_EQ(problem_of({"-O3"}), "option '-O3' is not an option NVRTC 13.0 documents (nor one of nvcc's "
                                 "--extended-lambda and --expt-relaxed-constexpr); Kiln's manifest.md "
                                 "(share/doc/kiln/ in its install) lists what Kiln takes");
  EXPECT_EQ(problem_of({"maxrregcount=4"}), "option 'maxrregcount=4' is not an option (options start with - or --)");
  EXPECT_NE(problem_of({"--"}).find("is not an option NVRTC 13.0 documents"), std::string::npos);
  EXPECT_NE(problem_of({"-"}).find("is not an option NVRTC 13.0 documents"), std::string::npos);
  // Every problem of a list, each at its own index; a two-string option's value is not an option.
  const std::vector<OptionProblem> problems = check_options(Strings{"-arch", "sm_90", "-lineinfo", "-O3", "--ftz", "maybe"});
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0].index, 0u);
  EXPECT_EQ(problems[1].index, 3u);
  EXPECT_EQ(problems[2].index, 4u);
}

TEST(CompilerOptions, PtxasGetsItsOwnOptionsButNoneThatNamesAFileOrSetsWhatKilnSets) {
  EXPECT_EQ(interpreted({"-Xptxas=-O3,-v,--warn-on-spills,-maxrregcount=32,-dlcm=cg"}).link,
            (Strings{"-Xptxas=-O3", "-Xptxas=-v", "-Xptxas=--warn-on-spills", "-Xptxas=-maxrregcount=32",
                     "-Xptxas=-dlcm=cg"}));
  // --options-file reads a file (nvJitLink's error quoted its text), --output-file names one, and the
  // others set what Kiln sets or are not ptxas options at all.
  EXPECT_EQ(problem_of({"-Xptxas=-v,--options-file=/etc/hostname"}),
            "option '-Xptxas=-v,--options-file=/etc/hostname' passes '--options-file=/etc/hostname' to ptxas, which "
            "is not a ptxas option Kiln passes on (none that reads or writes a file or sets what Kiln sets; "
            "Kiln's manifest.md, share/doc/kiln/ in its install, lists them)");
  for (const std::string piece : {"-optf=x", "--output-file=x", "-o=x", "--input-as-string=x", "-arch=sm_90",
                                   "--compile-only", "--entry=k", "-knob", "v"}) {
    EXPECT_NE(problem_of({"-Xptxas=" + piece}).find("passes '" + piece + "' to ptxas"), std::string::npos) << piece;
  }
  EXPECT_NE(problem_of({"-Xptxas=--opt-level=/etc/x"}).find("takes a number or a word, not '/etc/x'"), std::string::npos);
  EXPECT_NE(problem_of({"-Xptxas=--opt-level"}).find("takes a value"), std::string::npos);
  EXPECT_NE(problem_of({"-Xptxas=-v=1"}).find("takes no value"), std::string::npos);
}

TEST(CompilerOptions, HostSourcesAreScannedAtAStandardKilnsHeaderCanUse) {
  EXPECT_EQ(host_standard(""), "c++17");
  EXPECT_EQ(host_standard("c++98"), "c++17");   // CMake's CXX_STANDARD 98 (kiln build --host-std)
  EXPECT_EQ(host_standard("c++11"), "c++17");
  EXPECT_EQ(host_standard("c++14"), "c++17");
  EXPECT_EQ(host_standard("c++20"), "c++20");
}

}  // namespace
}  // namespace kiln::options
