#include "package/depfile.hpp"

#include <gtest/gtest.h>

namespace kiln::package {
namespace {

TEST(Depfile, ListsEveryInputAfterTheTarget) {
  EXPECT_EQ(depfile_text("out/app.kiln", {"/src/kiln.toml", "/src/a.cu"}),
            "out/app.kiln: \\\n  /src/kiln.toml \\\n  /src/a.cu\n");
}

TEST(Depfile, EscapesSpacesHashesAndDollars) {
  EXPECT_EQ(depfile_text("a b.kiln", {"/x/my dir/#h$.cuh"}), "a\\ b.kiln: \\\n  /x/my\\ dir/\\#h$$.cuh\n");
}

}  // namespace
}  // namespace kiln::package
