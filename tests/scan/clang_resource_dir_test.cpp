// Where the scanner finds clang's resource directory (scan/compile_args.hpp): the variable, else the
// copy beside the parser module (Kiln's wheel ships one), else the one Kiln was configured with.
#include "scan/compile_args.hpp"
#include "scan/parser_module.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using scan::detail::choose_clang_resource_dir;
using From = scan::detail::ResourceDir::From;

class ClangResourceDirTest : public ::testing::Test {
protected:
  ClangResourceDirTest() {
    m_parser_dir = fs::temp_directory_path() /
                   ("kiln-resource-dir-test-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_parser_dir / "clang/include");
  }
  ~ClangResourceDirTest() override {
    std::error_code ignored;
    fs::remove_all(m_parser_dir, ignored);
  }
  void bundle_wrapper() const {
    std::ofstream(m_parser_dir / "clang/include/__clang_cuda_runtime_wrapper.h") << "#pragma once\n";
  }

  fs::path m_parser_dir;
  const fs::path m_built_in = "/usr/lib/llvm-19/lib/clang/19";
};

TEST_F(ClangResourceDirTest, TheVariableWinsOverABundledCopy) {
  bundle_wrapper();
  const auto chosen = choose_clang_resource_dir("/opt/clang/19", m_parser_dir, m_built_in);
  EXPECT_EQ(chosen.path, "/opt/clang/19");
  EXPECT_EQ(chosen.from, From::variable);
}

TEST_F(ClangResourceDirTest, AnEmptyVariableIsUnset) {
  bundle_wrapper();
  const auto chosen = choose_clang_resource_dir("", m_parser_dir, m_built_in);
  EXPECT_EQ(chosen.path, m_parser_dir / "clang");
  EXPECT_EQ(chosen.from, From::bundled);
}

TEST_F(ClangResourceDirTest, ABundledCopyWinsOverTheBuiltInDirectory) {
  bundle_wrapper();
  const auto chosen = choose_clang_resource_dir(nullptr, m_parser_dir, m_built_in);
  EXPECT_EQ(chosen.path, m_parser_dir / "clang");
  EXPECT_EQ(chosen.from, From::bundled);
}

// A clang/ without the CUDA wrapper would fail every CUDA parse: the built-in directory is used.
TEST_F(ClangResourceDirTest, ABundledCopyWithoutTheCudaWrapperIsPassedOver) {
  const auto chosen = choose_clang_resource_dir(nullptr, m_parser_dir, m_built_in);
  EXPECT_EQ(chosen.path, m_built_in);
  EXPECT_EQ(chosen.from, From::built_in);
  EXPECT_EQ(choose_clang_resource_dir(nullptr, "", m_built_in).from, From::built_in) << "no parser directory";
}

// The process's choice reads the variable and looks beside the parser module this kiln loads.
TEST(ClangResourceDir, TheProcessLooksBesideItsParserModule) {
  ASSERT_EQ(std::getenv("KILN_CLANG_RESOURCE_DIR"), nullptr) << "the test expects no variable";
  const fs::path parser_dir = scan::detail::parser_module_path().parent_path();
  const auto chosen = scan::detail::clang_resource_dir();
  EXPECT_EQ(chosen.from, fs::exists(parser_dir / "clang/include/__clang_cuda_runtime_wrapper.h") ? From::bundled
                                                                                                  : From::built_in);
  setenv("KILN_CLANG_RESOURCE_DIR", "/elsewhere/clang", 1);
  const auto from_variable = scan::detail::clang_resource_dir();
  unsetenv("KILN_CLANG_RESOURCE_DIR");
  EXPECT_EQ(from_variable.path, "/elsewhere/clang");
}

}  // namespace
}  // namespace kiln::test
