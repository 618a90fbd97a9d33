// The named roots that recorded paths are written against: the innermost root names a path, whole
// directories only, a build directory that holds the project names nothing, and names in text are
// replaced only where they start a path.
#include "util/named_roots.hpp"

#include <gtest/gtest.h>

namespace kiln {
namespace {

const NamedRoots k_roots{"/w/project", "/w/project/build", "/opt/kiln/include", "/usr/local/cuda"};

TEST(NamedRoots, APathIsNamedByTheInnermostRootThatHoldsIt) {
  EXPECT_EQ(k_roots.tokenize("/w/project/kernels/a.cu"), "<root>/kernels/a.cu");
  EXPECT_EQ(k_roots.tokenize("/w/project/build/gen/config.h"), "<build>/gen/config.h");
  EXPECT_EQ(k_roots.tokenize("/w/project/build"), "<build>");
  EXPECT_EQ(k_roots.tokenize("/opt/kiln/include/kiln/kiln.hpp"), "<kiln>/kiln/kiln.hpp");
  EXPECT_EQ(k_roots.tokenize("/usr/local/cuda/include/"), "<cuda>/include");
  EXPECT_EQ(k_roots.tokenize("/w/project/../other/x.h"), "/w/other/x.h") << "under no root: as it is";
  EXPECT_EQ(k_roots.tokenize("kernels/a.cu"), "kernels/a.cu") << "relative: as it is";
  EXPECT_EQ(k_roots.tokenize("/usr/local/cuda-12/include"), "/usr/local/cuda-12/include") << "whole directories";
}

TEST(NamedRoots, ExpandUndoesTokenize) {
  for (const char* path : {"/w/project/kernels/a.cu", "/w/project/build/gen/config.h", "/opt/kiln/include",
                           "/usr/local/cuda/include/cuda.h"})
    EXPECT_EQ(k_roots.expand(k_roots.tokenize(path)).string(), path);
  EXPECT_EQ(k_roots.expand("<cudax>/a").string(), "<cudax>/a");
  EXPECT_EQ(k_roots.expand("include").string(), "include");
}

TEST(NamedRoots, ABuildDirectoryThatHoldsTheProjectNamesNothing) {
  const NamedRoots in_source{"/w/project", "/w/project", "", "/usr/local/cuda"};
  EXPECT_EQ(in_source.tokenize("/w/project/gen/x.h"), "<root>/gen/x.h");
  const NamedRoots above{"/w/project", "/w", "", ""};
  EXPECT_EQ(above.tokenize("/w/common/x.h"), "/w/common/x.h") << "an output above the project";
}

TEST(NamedRoots, TextNamesRootsWhereverAWholeDirectoryIs) {
  const std::string text = "/w/project/build/gen/c.h:3: warning: x\nIn file included from /w/project/a.cu:2,\n"
                           "-I/usr/local/cuda/include \"/opt/kiln/include\" /usr/local/cuda-12/x /w/projects/y";
  const std::string named = k_roots.tokenize_text(text);
  EXPECT_EQ(named, "<build>/gen/c.h:3: warning: x\nIn file included from <root>/a.cu:2,\n"
                   "-I<cuda>/include \"<kiln>\" /usr/local/cuda-12/x /w/projects/y");
  EXPECT_EQ(k_roots.expand_text(named), text);
}

TEST(NamedRoots, NamesInsideCppNamesAreNotPaths) {
  const std::string text = "block<root> vec<cuda>::x <kiln>";
  EXPECT_EQ(k_roots.expand_text(text), "block<root> vec<cuda>::x /opt/kiln/include");
}

}  // namespace
}  // namespace kiln
