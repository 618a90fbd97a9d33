// Finding NVRTC and nvJitLink: the order of the places looked, the message when none is usable, a
// library of the wrong major version or without the symbols Kiln binds. Uses the toolkit's real
// libraries (no GPU needed to load them); skipped, saying so, where the toolkit lacks them.
#include "nvrtc/compiler_loader.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

namespace kiln::jit {
namespace {

namespace fs = std::filesystem;

const fs::path k_toolkit_lib = "/usr/local/cuda/lib64";

bool toolkit_has_compilers() {
  return fs::exists(k_toolkit_lib / "libnvrtc.so.13") && fs::exists(k_toolkit_lib / "libnvJitLink.so.13");
}

class CompilerLoaderTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!toolkit_has_compilers()) GTEST_SKIP() << "no libnvrtc.so.13 and libnvJitLink.so.13 in " << k_toolkit_lib;
    m_dir = fs::temp_directory_path() /
            ("kiln-loader-test-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!m_dir.empty()) fs::remove_all(m_dir, ignored);
  }
  SearchSettings settings(std::map<std::string, std::string> env, std::vector<std::string> dirs = {}) const {
    SearchSettings s;
    s.environment = [env](const char* name) -> std::optional<std::string> {
      auto it = env.find(name);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    s.directories = std::move(dirs);
    s.majors = {13};
    return s;
  }
  // A directory laid out as a toolkit's lib64 (links to the real libraries).
  fs::path toolkit_copy(const std::string& name) const {
    const fs::path lib = m_dir / name / "lib64";
    fs::create_directories(lib);
    fs::create_symlink(k_toolkit_lib / "libnvrtc.so.13", lib / "libnvrtc.so.13");
    fs::create_symlink(k_toolkit_lib / "libnvJitLink.so.13", lib / "libnvJitLink.so.13");
    return m_dir / name;
  }
  fs::path m_dir;
};

TEST_F(CompilerLoaderTest, TheVariablesNameTheFiles) {
  Result<CompilerApi> api = load_compiler(settings({{"KILN_NVRTC", (k_toolkit_lib / "libnvrtc.so.13").string()},
                                                    {"KILN_NVJITLINK", (k_toolkit_lib / "libnvJitLink.so.13").string()}}),
                                          0);
  ASSERT_TRUE(api) << api.error().message;
  EXPECT_EQ(api->nvrtc_path, (k_toolkit_lib / "libnvrtc.so.13").string());
  EXPECT_EQ(api->major, 13);
  EXPECT_EQ(api->nvrtc_version.rfind("13.", 0), 0u) << api->nvrtc_version;
  EXPECT_EQ(api->nvjitlink_version.rfind("13.", 0), 0u);
}

TEST_F(CompilerLoaderTest, ARegisteredDirectoryComesBeforeCudaPath) {
  const fs::path wheel = toolkit_copy("wheel");
  const fs::path cuda = toolkit_copy("cuda");
  Result<CompilerApi> api =
      load_compiler(settings({{"CUDA_PATH", cuda.string()}}, {(wheel / "lib64").string()}), 0);
  ASSERT_TRUE(api) << api.error().message;
  EXPECT_EQ(api->nvrtc_path, (wheel / "lib64" / "libnvrtc.so.13").string());
  EXPECT_EQ(api->nvjitlink_path, (wheel / "lib64" / "libnvJitLink.so.13").string());
}

TEST_F(CompilerLoaderTest, CudaPathComesBeforeCudaHome) {
  const fs::path path = toolkit_copy("path");
  const fs::path home = toolkit_copy("home");
  Result<CompilerApi> api = load_compiler(settings({{"CUDA_PATH", path.string()}, {"CUDA_HOME", home.string()}}), 0);
  ASSERT_TRUE(api) << api.error().message;
  EXPECT_EQ(api->nvrtc_path, (path / "lib64" / "libnvrtc.so.13").string());
  Result<CompilerApi> from_home = load_compiler(settings({{"CUDA_HOME", home.string()}}), 0);
  ASSERT_TRUE(from_home);
  EXPECT_EQ(from_home->nvrtc_path, (home / "lib64" / "libnvrtc.so.13").string());
}

TEST_F(CompilerLoaderTest, NothingUsableListsEveryPlaceLooked) {
  SearchSettings s = settings({{"KILN_NVRTC", (m_dir / "missing.so").string()}, {"CUDA_PATH", (m_dir / "none").string()}},
                              {(m_dir / "registered").string()});
  s.majors = {99};   // no such soname on the loader's path either
  Result<CompilerApi> api = load_compiler(s, 0);
  ASSERT_FALSE(api);
  const std::string& m = api.error().message;
  EXPECT_NE(m.find("no usable NVRTC and nvJitLink"), std::string::npos) << m;
  EXPECT_NE(m.find((m_dir / "missing.so").string() + " (KILN_NVRTC): not found"), std::string::npos) << m;
  EXPECT_NE(m.find((m_dir / "registered" / "libnvrtc.so.99").string() + " (a registered directory): not found"),
            std::string::npos) << m;
  EXPECT_NE(m.find((m_dir / "none" / "lib64" / "libnvrtc.so.99").string() + " ($CUDA_PATH)"), std::string::npos) << m;
  EXPECT_NE(m.find("libnvrtc.so.99 (the dynamic loader's search path): not found"), std::string::npos) << m;
}

TEST_F(CompilerLoaderTest, AnotherMajorVersionIsSkippedWithAMessage) {
  Result<CompilerApi> api = load_compiler(settings({{"KILN_NVRTC", (k_toolkit_lib / "libnvrtc.so.13").string()}}), 12);
  ASSERT_FALSE(api);
  EXPECT_NE(api.error().message.find("cannot read options written for NVRTC 12 (skipped)"), std::string::npos)
      << api.error().message;
}

TEST_F(CompilerLoaderTest, ALibraryWithoutTheSymbolsIsRefusedNamingOne) {
  // nvJitLink as NVRTC: it loads, but has no nvrtc* symbols.
  Result<CompilerApi> only = [&] {
    SearchSettings s = settings({{"KILN_NVRTC", (k_toolkit_lib / "libnvJitLink.so.13").string()}});
    s.majors = {99};
    return load_compiler(s, 0);
  }();
  ASSERT_FALSE(only);
  EXPECT_NE(only.error().message.find("(KILN_NVRTC): not loaded: it does not export nvrtcVersion"), std::string::npos)
      << only.error().message;
}

TEST_F(CompilerLoaderTest, AFileThatIsNotALibraryIsRefusedUnloadedSayingWhy) {
  const fs::path bogus = m_dir / "libnvrtc.so.13";
  { std::FILE* f = std::fopen(bogus.c_str(), "w"); std::fputs("not an ELF", f); std::fclose(f); }
  SearchSettings s = settings({{"KILN_NVRTC", bogus.string()}});
  s.majors = {99};
  Result<CompilerApi> api = load_compiler(s, 0);
  ASSERT_FALSE(api);
  EXPECT_NE(api.error().message.find(bogus.string() + " (KILN_NVRTC): not loaded: it is not an ELF file"),
            std::string::npos) << api.error().message;
}

TEST_F(CompilerLoaderTest, ALibraryWithoutTheEntryPointNeverRunsItsConstructor) {
  const fs::path marker = m_dir / "constructor-ran";
  setenv("KILN_TEST_MARKER", marker.c_str(), 1);
  SearchSettings s = settings({{"KILN_NVRTC", KILN_TEST_MARKER_LIBRARY}});
  s.majors = {99};
  Result<CompilerApi> nvrtc = load_compiler(s, 0);
  s = settings({{"KILN_NVRTC", (k_toolkit_lib / "libnvrtc.so.13").string()}, {"KILN_NVJITLINK", KILN_TEST_MARKER_LIBRARY}});
  s.majors = {99};
  Result<CompilerApi> nvjitlink = load_compiler(s, 0);
  unsetenv("KILN_TEST_MARKER");
  ASSERT_FALSE(nvrtc);
  ASSERT_FALSE(nvjitlink);
  EXPECT_NE(nvrtc.error().message.find(std::string(KILN_TEST_MARKER_LIBRARY) +
                                       " (KILN_NVRTC): not loaded: it does not export nvrtcVersion"),
            std::string::npos) << nvrtc.error().message;
  EXPECT_NE(nvjitlink.error().message.find(std::string(KILN_TEST_MARKER_LIBRARY) +
                                           " (KILN_NVJITLINK): not loaded: it does not export nvJitLinkVersion"),
            std::string::npos) << nvjitlink.error().message;
  EXPECT_FALSE(fs::exists(marker)) << "the library's constructor ran";
}

TEST_F(CompilerLoaderTest, RelativePathsFromTheVariablesAreRefusedNamingThem) {
  // Libraries that are there, under the working directory: a relative value would load them.
  toolkit_copy("here");
  const fs::path before = fs::current_path();
  fs::current_path(m_dir);
  SearchSettings files = settings({{"KILN_NVRTC", "here/lib64/libnvrtc.so.13"}, {"KILN_NVJITLINK", "here/lib64/libnvJitLink.so.13"}});
  files.majors = {99};
  Result<CompilerApi> by_file = load_compiler(files, 0);
  SearchSettings roots = settings({{"CUDA_PATH", "here"}, {"CUDA_HOME", "here"}});
  Result<CompilerApi> by_root_or_loader = load_compiler(roots, 0);   // the loader's path may have them
  roots.majors.clear();   // no sonames: nothing but the roots to look at
  Result<CompilerApi> by_root = load_compiler(roots, 0);
  fs::current_path(before);
  if (by_root_or_loader) {
    EXPECT_EQ(by_root_or_loader->nvrtc_path.rfind("here/", 0), std::string::npos);
  }
  ASSERT_FALSE(by_file) << "loaded " << by_file->nvrtc_path;
  EXPECT_NE(by_file.error().message.find("here/lib64/libnvrtc.so.13 (KILN_NVRTC): KILN_NVRTC is "
                                         "'here/lib64/libnvrtc.so.13', a relative path; it must be absolute"),
            std::string::npos) << by_file.error().message;
  ASSERT_FALSE(by_root) << "loaded " << by_root->nvrtc_path;
  EXPECT_NE(by_root.error().message.find("CUDA_PATH is 'here', a relative path"), std::string::npos)
      << by_root.error().message;
}

// The generator's way (compile/nvrtc_library.hpp): the two files its build found, bound into the same
// table, with every entry point either kind of compile uses, and no search whatever the variables say.
TEST_F(CompilerLoaderTest, NamedFilesAreBoundWithEveryEntryPointAndNoSearch) {
  Result<CompilerApi> api = load_compiler_files((k_toolkit_lib / "libnvrtc.so.13").string(),
                                                (k_toolkit_lib / "libnvJitLink.so.13").string());
  ASSERT_TRUE(api) << api.error().message;
  EXPECT_EQ(api->nvrtc_path, (k_toolkit_lib / "libnvrtc.so.13").string());
  EXPECT_EQ(api->nvjitlink_path, (k_toolkit_lib / "libnvJitLink.so.13").string());
  EXPECT_EQ(api->major, 13);
  EXPECT_EQ(api->nvrtc_version.rfind("13.", 0), 0u) << api->nvrtc_version;
  EXPECT_EQ(api->nvjitlink_version.rfind("13.", 0), 0u) << api->nvjitlink_version;
  // What the generator needs beyond a run-time compile: PTX from NVRTC and nvJitLink, a library to
  // link (libcudadevrt), the architectures NVRTC supports.
  EXPECT_TRUE(api->nvrtc.get_ptx && api->nvrtc.get_ptx_size && api->nvjitlink.add_file &&
              api->nvjitlink.get_linked_ptx && api->nvjitlink.get_linked_ptx_size);
  int count = 0;
  ASSERT_EQ(api->nvrtc.get_num_supported_archs(&count), 0);
  std::vector<int> archs(static_cast<std::size_t>(count));
  ASSERT_EQ(api->nvrtc.get_supported_archs(archs.data()), 0);
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
}

TEST_F(CompilerLoaderTest, ANamedFileThatDoesNotLoadIsTheSystemsMessage) {
  const std::string missing = (m_dir / "libnvrtc.so.13").string();
  Result<CompilerApi> api = load_compiler_files(missing, (k_toolkit_lib / "libnvJitLink.so.13").string());
  ASSERT_FALSE(api);
  EXPECT_EQ(api.error().message.rfind("cannot load " + missing + ": ", 0), 0u) << api.error().message;
  EXPECT_NE(api.error().message.find("No such file or directory"), std::string::npos) << api.error().message;
  Result<CompilerApi> linker = load_compiler_files((k_toolkit_lib / "libnvrtc.so.13").string(), missing);
  ASSERT_FALSE(linker);
  EXPECT_EQ(linker.error().message.rfind("cannot load " + missing + ": ", 0), 0u) << linker.error().message;
}

TEST_F(CompilerLoaderTest, ANamedFileWithoutTheSymbolsIsRefusedNamingEachMissing) {
  const std::string linker = (k_toolkit_lib / "libnvJitLink.so.13").string();
  Result<CompilerApi> api = load_compiler_files(linker, linker);   // nvJitLink as NVRTC
  ASSERT_FALSE(api);
  EXPECT_EQ(api.error().message.rfind("cannot bind " + linker + ": it lacks nvrtcVersion, nvrtcGetErrorString, ", 0), 0u)
      << api.error().message;
  EXPECT_NE(api.error().message.find(", nvrtcGetSupportedArchs"), std::string::npos) << api.error().message;
}

}  // namespace
}  // namespace kiln::jit
