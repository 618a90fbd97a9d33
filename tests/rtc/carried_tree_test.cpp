// A run-time compile of carried sources, with a compiler stand-in: a text that many paths name is
// decoded once (the memory a compile holds does not grow with the paths), what the tree writes is
// exactly the texts once per path, within the bound the package's size sets; a unit whose files would
// write more is refused before anything is decoded, written or compiled.
#include "format/package_reader.hpp"
#include "writer/package_writer.hpp"
#include "options/carried_rules.hpp"
#include "package_fixture.hpp"
#include "rtc/compiler_access.hpp"
#include "rtc/runtime_compiler.hpp"
#include "test_process.hpp"
#include "util/file_io.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace kiln::rtc {
namespace {

namespace fs = std::filesystem;

// Compiles anything into a test cubin; measures the tree it was given: the bytes of its files.
class TreeMeasuringCompiler final : public Compiler {
public:
  const CompilerIdentity& identity() const override { return m_identity; }
  CompileOutput compile(const CompileInput& input) override {
    ++compiles;
    const fs::path root = fs::path(input.name).parent_path().parent_path();   // <tree>/kernels/op.cu
    for (const auto& entry : fs::recursive_directory_iterator(root))
      if (entry.is_regular_file()) tree_bytes += entry.file_size();
    CompileOutput out;
    out.image = format::testing::cubin_of("jit:" + input.name, 90);
    for (const std::string& k : input.kernels) out.kernel_symbols.push_back("_fake_" + k);
    out.ok = true;
    return out;
  }
  int compiles = 0;
  std::uint64_t tree_bytes = 0;

private:
  CompilerIdentity m_identity{"13.0", "13.0"};
};

// This process's peak resident memory in KiB since reset_peak_memory() (VmHWM: getrusage's peak
// survives exec, and a child spawned by a test starts with its parent's).
long peak_memory_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}
void reset_peak_memory() { std::ofstream("/proc/self/clear_refs") << "5"; }

// `copies` headers that all hold `text`, and a small source that declares ops::scale.
format::PackageContents many_paths(const std::string& text, int copies) {
  format::PackageContents contents;
  contents.targets = {"sm_80"};
  contents.units = {format::PackageUnit{"kernels/op.cu", {}}};
  format::PackageCarriedUnit carried;
  carried.unit_source = "kernels/op.cu";
  carried.source = {"kernels/op.cu", "namespace ops { template <typename T> __global__ void scale(T* x) {} }\n"};
  for (int i = 0; i < copies; ++i) carried.headers.push_back({"include/copy" + std::to_string(i) + ".cuh", text});
  carried.include_dirs = {"include"};
  carried.kernel_templates = {"ops::scale"};
  carried.nvrtc_version = "13.0";
  contents.carried = {carried};
  return contents;
}

class CarriedTreeTest : public ::testing::Test {
protected:
  CarriedTreeTest() {
    const char* given_dir = kiln::test::child_role().empty() ? nullptr : std::getenv("KILN_TEST_CARRIED_DIR");
    const std::string given = given_dir ? given_dir : "";
    const std::string own = "kiln-carried-tree-" + std::to_string(kiln::test::process_id()) + "-" +
                            std::to_string(std::random_device{}());
    m_dir = !given.empty() ? fs::path(given) : fs::temp_directory_path() / own;
    fs::create_directories(m_dir / "tmp");
    kiln::test::set_variable("TMPDIR", (m_dir / "tmp").string());
    set_compiler_for_testing(m_compiler);
  }
  ~CarriedTreeTest() override {
    set_compiler_for_testing(nullptr);
    kiln::test::unset_variable("TMPDIR");
    std::error_code ignored;
    if (kiln::test::child_role().empty()) fs::remove_all(m_dir, ignored);
  }
  Result<Compiled> compile(const std::vector<std::byte>& bytes) {
    format::PackageReader reader;
    EXPECT_TRUE(reader.open(bytes, "app.kiln"));
    CompiledCache cache(store::CacheSettings{false, {}, 0});
    RuntimeCompiler compiler(CompilerSettings{}, cache);
    return compiler.package_kernel(reader, "app.kiln", "ops::scale<double>", "sm_90");
  }

  fs::path m_dir;
  std::shared_ptr<TreeMeasuringCompiler> m_compiler = std::make_shared<TreeMeasuringCompiler>();
};

TEST_F(CarriedTreeTest, ATextManyPathsNameIsDecodedOnceAndWrittenWithinTheBound) {
  // 4 MiB that do not compress, named by 12 headers: a compile that decoded it once per path would
  // hold 48 MiB more than one that decodes it once.
  std::string text(std::size_t{4} << 20, '\0');
  std::mt19937_64 random(7);
  for (char& c : text) c = static_cast<char>('a' + random() % 26);
  constexpr int k_copies = 12;
  if (kiln::test::child_role() == "compile") {
    // A process of its own, so that its peak memory is this compile's.
    Result<std::vector<std::byte>> bytes = read_binary_file(m_dir / "many.kiln");
    reset_peak_memory();
    const long before = peak_memory_kib();
    const Result<Compiled> outcome = compile(*bytes);
    const long grown = peak_memory_kib() - before;
    std::ofstream(m_dir / "report") << (outcome.ok() ? "compiled" : error_text(outcome.error())) << "\n"
                                    << grown << " " << m_compiler->tree_bytes << "\n";
    kiln::test::exit_child(0);
  }
  const std::vector<std::byte> bytes = format::testing::write_ok(many_paths(text, k_copies));
  ASSERT_TRUE(write_file_atomically(m_dir / "many.kiln", bytes));
  kiln::test::set_variable("KILN_TEST_CARRIED_DIR", m_dir.string());
  kiln::test::ChildProcess child = kiln::test::ChildProcess::start(
      "CarriedTreeTest.ATextManyPathsNameIsDecodedOnceAndWrittenWithinTheBound", "compile");
  ASSERT_EQ(child.wait(), 0);
  kiln::test::unset_variable("KILN_TEST_CARRIED_DIR");
  std::ifstream report(m_dir / "report");
  std::string result;
  long grown_kib = -1;
  std::uint64_t tree_bytes = 0;
  std::getline(report, result);
  report >> grown_kib >> tree_bytes;
  EXPECT_EQ(result, "compiled");
#if !defined(__SANITIZE_THREAD__)
  // (Under ThreadSanitizer the shadow of every byte touched counts in the peak too: the default and
  // ASan builds hold the bound.)
  EXPECT_GE(grown_kib, 4 * 1024) << "the text decoded once is measured";
  EXPECT_LT(grown_kib, 16 * 1024) << "KiB the compile added to the process's peak: one copy of the text is 4096";
#else
  (void)grown_kib;
#endif
  const std::uint64_t source_size = many_paths(text, 0).carried[0].source.text.size();
  EXPECT_EQ(tree_bytes, k_copies * text.size() + source_size) << "each path written once, nothing more";
  EXPECT_LE(tree_bytes, options::max_carried_tree_bytes(bytes.size()));
  EXPECT_TRUE(fs::is_empty(m_dir / "tmp")) << "the tree is removed";
}

TEST_F(CarriedTreeTest, FilesBeyondTheBoundAreRefusedBeforeAnythingIsDecodedWrittenOrCompiled) {
  // 1 MiB of one repeated line compresses to a few hundred bytes; 64 paths would write 64 MiB from a
  // package of a few KiB, which may write 1024 times its size.
  std::string text;
  while (text.size() < (std::size_t{1} << 20)) text += "// the same line\n";
  const std::vector<std::byte> bytes = format::testing::write_ok(many_paths(text, 64));
  ASSERT_LT(bytes.size(), std::size_t{64} << 10);
  const Result<Compiled> outcome = compile(bytes);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().status, KILN_STATUS_CORRUPT);
  const std::string& message = outcome.error().message;
  EXPECT_NE(message.find("app.kiln: cannot compile 'ops::scale<double>' at run time from kernels/op.cu: its "
                         "carried files would write " +
                         std::to_string(64 * text.size() + many_paths(text, 0).carried[0].source.text.size()) +
                         " bytes, more than a run-time compile from a " + std::to_string(bytes.size()) +
                         "-byte package may write (" + std::to_string(options::max_carried_tree_bytes(bytes.size())) +
                         ")"),
            std::string::npos)
      << message;
  EXPECT_EQ(m_compiler->compiles, 0);
  EXPECT_TRUE(fs::is_empty(m_dir / "tmp"));
}

}  // namespace
}  // namespace kiln::rtc
