// What a carried unit may hold (runtime/src/options/carried_rules.hpp): everything a build writes for
// every option of the table, and nothing else: options the table refuses or does not know, files named
// outside the carried tree, link options the table's translation does not give, paths, kernel names
// and the bytes a compile writes.
#include "options/carried_rules.hpp"
#include "options/compiler_options.hpp"

#include <gtest/gtest.h>

namespace kiln::options {
namespace {

using Strings = std::vector<std::string>;

// A unit as a build carries it: its source, a header pre-included through an include directory.
CarriedValues carried_unit() {
  CarriedValues unit;
  unit.program = "kernels/op.cu";
  unit.headers = {"include/pre.cuh", "include/ops.cuh"};
  unit.include_dirs = {"include", "_cuda/include"};
  unit.kernel_names = {"ops::scale", "(anonymous namespace)::fill", "::top"};
  unit.tree_bytes = 1000;
  return unit;
}

Strings problems_with(const Strings& options, const Strings& link_options = {}) {
  CarriedValues unit = carried_unit();
  unit.options = options;
  unit.link_options = link_options;
  return carried_problems(unit, 1 << 20);
}

// A value of the kind the row takes.
std::string value_for(const OptionSpec& spec) {
  if (spec.name == "pre-include") return "include/pre.cuh";
  switch (spec.values) {
    case Values::any: return "20";
    case Values::boolean: return "false";
    case Values::integer: return "8";
    case Values::on_off: return "on";
    case Values::fast_compile_level: return "min";
    case Values::standard: return "c++17";
    case Values::ptxas: return "-O3,-v,-maxrregcount=32";
  }
  return "";
}

TEST(CarriedRules, WhatABuildWritesForEveryOptionOfTheTableIsAccepted) {
  CarriedValues unit = carried_unit();
  for (const OptionSpec& spec : option_table()) {
    // Refused options fail the manifest; nvcc's own and -rdc put the unit where nothing is carried.
    if (!spec.refused.empty() || spec.nvrtc == Nvrtc::lacks || spec.nvrtc == Nvrtc::planned) continue;
    const std::string value = spec.takes == Takes::nothing ? "" : "=" + value_for(spec);
    for (const Strings& given : {Strings{"--" + std::string(spec.name) + value},
                                 Strings{"-" + std::string(spec.short_name) + value}}) {
      Result<CompilerOptions> built = interpret(given);
      ASSERT_TRUE(built) << built.error().message;
      unit.options.insert(unit.options.end(), built->nvrtc.begin(), built->nvrtc.end());
      unit.link_options.insert(unit.link_options.end(), built->link.begin(), built->link.end());
    }
  }
  for (const Strings& given : {Strings{"-DN=4", "-D", "M", "-UX", "-use_fast_math", "-ftz=true"}}) {
    Result<CompilerOptions> built = interpret(given);
    ASSERT_TRUE(built);
    unit.options.insert(unit.options.end(), built->nvrtc.begin(), built->nvrtc.end());
    unit.link_options.insert(unit.link_options.end(), built->link.begin(), built->link.end());
  }
  ASSERT_GE(unit.options.size(), 50u);
  ASSERT_GE(unit.link_options.size(), 20u);
  EXPECT_EQ(carried_problems(unit, 1 << 20), Strings{});
}

TEST(CarriedRules, OptionsThatWriteReadOrAreUnknownAreRefusedNamingTheOption) {
  for (const std::string option :
       {"--create-pch=/tmp/victim", "--use-pch=x.pch", "--pch", "-pch", "--pch-dir=/tmp", "--time=/tmp/t.csv",
        "-time=t.csv", "-fdevice-time-trace=/tmp/trace", "-I/etc", "--include-path=/etc", "-arch=sm_90",
        "--frobnicate", "not-an-option", "--maxrregcount", "-ftz=maybe", "-Xptxas=-v", "--extended-lambda",
        "-rdc=true"}) {
    const Strings problems = problems_with({option});
    ASSERT_EQ(problems.size(), 1u) << option;
    EXPECT_EQ(problems[0].rfind("carried option '" + option + "' ", 0), 0u) << problems[0];
  }
  EXPECT_EQ(problems_with({"--create-pch=/tmp/victim"})[0],
            "carried option '--create-pch=/tmp/victim' is set by Kiln, which shares NVRTC's precompiled headers "
            "between sources that start with the same includes (KILN_NVRTC_PCH=0 turns that off)");
  EXPECT_EQ(problems_with({"-Xptxas=-v"})[0], "carried option '-Xptxas=-v' is not one a build gives NVRTC");
  // A spelling NVRTC might read otherwise than Kiln does is refused: a build writes one spelling.
  for (const std::string option : {"-std=c++17", "-D N=4", "-include=pre.cuh", "--maxrregcount 32", "-lineinfo"}) {
    const Strings problems = problems_with({option});
    ASSERT_EQ(problems.size(), 1u) << option;
    EXPECT_NE(problems[0].find("is not spelled as a build spells it"), std::string::npos) << problems[0];
  }
}

TEST(CarriedRules, APreIncludeMustNameACarriedFileByARelativePath) {
  // As NVRTC looked in the build: the tree's root (its working directory), then each include directory.
  EXPECT_EQ(problems_with({"--pre-include=include/pre.cuh", "--pre-include=pre.cuh", "--pre-include=ops.cuh"}),
            Strings{});
  EXPECT_EQ(pre_included_file(carried_unit(), "pre.cuh"), "include/pre.cuh");
  EXPECT_EQ(pre_included_file(carried_unit(), "include/ops.cuh"), "include/ops.cuh");
  EXPECT_EQ(pre_included_file(carried_unit(), "kernels/op.cu"), "kernels/op.cu");
  EXPECT_EQ(pre_include_value("-include=pre.cuh"), "pre.cuh");
  EXPECT_EQ(pre_include_value("-DX"), std::nullopt);
  for (const std::string outside : {"/etc/hostname", "../secret.h", "include/../../x.h", "./pre.cuh"}) {
    EXPECT_EQ(problems_with({"--pre-include=" + outside}),
              Strings{"carried option '--pre-include=" + outside + "' pre-includes a file outside the carried tree (a "
                      "build carries a relative path without '.' or '..' parts)"});
  }
  EXPECT_EQ(problems_with({"--pre-include=hostname"}),
            Strings{"carried option '--pre-include=hostname' pre-includes a file the unit does not carry"});
}

TEST(CarriedRules, ALinkOptionMustBeOneTheTablesTranslationGives) {
  EXPECT_EQ(problems_with({}, {"-ftz=1", "-prec-div=0", "-fma=1", "-g", "-lineinfo", "-maxrregcount=32",
                               "-Xptxas=-O3", "-split-compile=2", "-no-cache", "-jump-table-density=50"}),
            Strings{});
  for (const std::string link : {"-time=/tmp/t", "-time", "-ftz=2", "-ftz", "--ftz=1", "-g=1", "-lineinfo=x",
                                  "-maxrregcount=many", "-o=x", "-arch=sm_90", "-jump-table-density=500",
                                  "ftz=1", "-Xptxas=-v,-O3"}) {
    const Strings problems = problems_with({}, {link});
    ASSERT_EQ(problems.size(), 1u) << link;
    EXPECT_EQ(problems[0].rfind("carried link option '" + link + "' ", 0), 0u) << problems[0];
  }
  EXPECT_EQ(problems_with({}, {"-time=/tmp/t"}),
            Strings{"carried link option '-time=/tmp/t' is not one Kiln's option table gives nvJitLink"});
  EXPECT_EQ(problems_with({}, {"-Xptxas=--options-file=/etc/hostname"}),
            Strings{"carried link option '-Xptxas=--options-file=/etc/hostname' passes '--options-file=/etc/hostname' "
                    "to ptxas, which is not a ptxas option Kiln passes on (none that reads or writes a file or sets "
                    "what Kiln sets; Kiln's manifest.md, share/doc/kiln/ in its install, lists them)"});
}

TEST(CarriedRules, PathsIncludeDirectoriesAndKernelNamesAreRefusedAsVerifyRefusesThem) {
  CarriedValues unit = carried_unit();
  unit.program = "/etc/passwd";
  unit.headers = {"include/ops.cuh", "include/ops.cuh", "../up.h"};
  unit.include_dirs = {".", "/etc", "a/./b"};
  unit.kernel_names = {"ops::scale", "k<1>\n#include \"/etc/hostname\"\n", "a b"};
  EXPECT_EQ(carried_problems(unit, 1 << 20),
            (Strings{"carried source '/etc/passwd' is not a relative path without '.' or '..' parts",
                     "carried file 'include/ops.cuh' is given twice",
                     "carried header '../up.h' is not a relative path without '.' or '..' parts",
                     "carried include directory '/etc' is not '.' or a relative path without '.' or '..' parts",
                     "carried include directory 'a/./b' is not '.' or a relative path without '.' or '..' parts",
                     "carried kernel name 'k<1>\n#include \"/etc/hostname\"\n' is not a qualified C++ name (NVRTC "
                     "compiles the name expressions made from it)",
                     "carried kernel name 'a b' is not a qualified C++ name (NVRTC compiles the name expressions made "
                     "from it)"}));
}

TEST(CarriedRules, TheBytesACompileWritesAreBoundedByThePackagesSizeAndAnAbsoluteCap) {
  EXPECT_EQ(max_carried_tree_bytes(1000), 1024u * 1000);
  EXPECT_EQ(max_carried_tree_bytes(std::uint64_t{1} << 30), k_max_carried_tree_bytes);
  CarriedValues unit = carried_unit();
  unit.tree_bytes = 1024 * 1000;
  EXPECT_EQ(carried_problems(unit, 1000), Strings{});
  unit.tree_bytes += 1;
  EXPECT_EQ(carried_problems(unit, 1000),
            Strings{"its carried files would write 1024001 bytes, more than a run-time compile from a 1000-byte "
                    "package may write (1024000)"});
  unit.tree_bytes = k_max_carried_tree_bytes + 1;
  EXPECT_EQ(carried_problems(unit, std::uint64_t{1} << 30).size(), 1u);
}

}  // namespace
}  // namespace kiln::options
