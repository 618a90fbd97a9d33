// RuntimeCompiler::program with a compiler stand-in: a program compiles once, then comes from memory,
// then (in a new process: a new cache on the same directory) from disk; a header read from disk that
// changes compiles again, a copy of the project elsewhere does not; a failure carries the log.
#include "format/package_reader.hpp"
#include "package_fixture.hpp"
#include "rtc/compiler_access.hpp"
#include "rtc/runtime_compiler.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace kiln::rtc {
namespace {

namespace fs = std::filesystem;

// Compiles anything into a test cubin whose text names the program and its expressions; reports as
// opened every "#include" target found under the -I directories; fails on "#error".
class StandInCompiler final : public Compiler {
public:
  const CompilerIdentity& identity() const override { return m_identity; }
  CompileOutput compile(const CompileInput& input) override {
    ++compiles;
    CompileOutput out;
    if (input.source.find("#error") != std::string::npos) {
      out.log = input.name + "(1): error: #error directive: stop";
      return out;
    }
    for (const std::string& option : input.options) {
      if (option.rfind("-I", 0) != 0) continue;
      for (const auto& entry : fs::directory_iterator(option.substr(2))) out.headers.push_back(entry.path().string());
    }
    out.headers_unknown = headers_unknown;
    out.image = format::testing::cubin_of("jit:" + input.name, 90);
    for (const std::string& k : input.kernels) out.kernel_symbols.push_back("_fake_" + k);
    for (const std::string& v : input.variables) out.variable_symbols.push_back(v);
    out.ok = true;
    return out;
  }
  int compiles = 0;
  bool headers_unknown = false;   // as NVRTC's compile does when its time trace cannot be read

private:
  CompilerIdentity m_identity{"13.0", "13.0"};
};

class ProgramCompileTest : public ::testing::Test {
protected:
  ProgramCompileTest() {
    m_root = fs::temp_directory_path() /
             ("kiln-program-test-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    write(m_root / "project" / "include" / "lib.cuh", "#define N 4\n");
    set_compiler_for_testing(m_compiler);
  }
  ~ProgramCompileTest() override {
    set_compiler_for_testing(nullptr);
    std::error_code ignored;
    fs::remove_all(m_root, ignored);
  }
  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  ProgramRequest request(const fs::path& project) const {
    ProgramRequest r;
    r.name = "prog.cu";
    r.source = "#include \"lib.cuh\"\ntemplate <int M> __global__ void fill(int* out) { *out = N * M; }\n";
    r.include_dirs = {(project / "include").string()};
    r.kernels = {"fill<2>", "fill<3>"};
    r.globals = {"table"};
    return r;
  }
  store::CacheSettings on_disk() const { return store::CacheSettings{true, m_root / "cache", 0}; }

  fs::path m_root;
  std::shared_ptr<StandInCompiler> m_compiler = std::make_shared<StandInCompiler>();
};

TEST_F(ProgramCompileTest, CompilesOnceThenMemoryThenDisk) {
  CompiledCache cache(on_disk());
  RuntimeCompiler compiler(CompilerSettings{}, cache);
  Result<Compiled> first = compiler.program(request(m_root / "project"), "sm_90");
  ASSERT_TRUE(first.ok()) << error_text(first.error());
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(*first->package));
  EXPECT_TRUE(reader.find_kernel("fill<2>"));
  EXPECT_TRUE(reader.find_kernel("fill<3>"));
  EXPECT_TRUE(reader.find_variable("table"));
  EXPECT_EQ(reader.metadata_value("compiled.at"), "run time");

  Result<Compiled> again = compiler.program(request(m_root / "project"), "sm_90");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->source, Source::memory);

  CompiledCache next_process(on_disk());
  RuntimeCompiler later(CompilerSettings{}, next_process);
  Result<Compiled> from_disk = later.program(request(m_root / "project"), "sm_90");
  ASSERT_TRUE(from_disk.ok());
  EXPECT_EQ(from_disk->source, Source::disk);
  EXPECT_EQ(*from_disk->package, *first->package);
  EXPECT_EQ(m_compiler->compiles, 1);
  EXPECT_EQ(cache.counters().compiles, 1u);
  EXPECT_EQ(next_process.counters().disk_hits, 1u);
}

TEST_F(ProgramCompileTest, AChangedHeaderCompilesAgain) {
  CompiledCache cache(on_disk());
  RuntimeCompiler compiler(CompilerSettings{}, cache);
  ASSERT_TRUE(compiler.program(request(m_root / "project"), "sm_90").ok());
  write(m_root / "project" / "include" / "lib.cuh", "#define N 15\n");
  Result<Compiled> changed = compiler.program(request(m_root / "project"), "sm_90");
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->source, Source::produced) << "a stale kernel";
  EXPECT_EQ(m_compiler->compiles, 2);
}

// A compile that cannot tell the headers it read (NVRTC's time trace unreadable) is used and never
// cached: a record of no headers would be a hit however the headers changed.
TEST_F(ProgramCompileTest, AProgramWhoseHeadersAreUnknownIsNotCached) {
  m_compiler->headers_unknown = true;
  CompiledCache cache(on_disk());
  RuntimeCompiler compiler(CompilerSettings{}, cache);
  Result<Compiled> first = compiler.program(request(m_root / "project"), "sm_90");
  ASSERT_TRUE(first.ok()) << error_text(first.error());
  EXPECT_EQ(first->source, Source::produced);
  EXPECT_FALSE(first->package->empty()) << "the compile is used";
  Result<Compiled> again = compiler.program(request(m_root / "project"), "sm_90");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->source, Source::produced) << "not kept, not even in memory";
  EXPECT_EQ(m_compiler->compiles, 2);
  CompiledCache next_process(on_disk());
  RuntimeCompiler later(CompilerSettings{}, next_process);
  ASSERT_TRUE(later.program(request(m_root / "project"), "sm_90").ok());
  EXPECT_EQ(m_compiler->compiles, 3) << "a later process found it cached";
}

TEST_F(ProgramCompileTest, ACopyOfTheProjectElsewhereHits) {
  CompiledCache cache(on_disk());
  RuntimeCompiler compiler(CompilerSettings{}, cache);
  ASSERT_TRUE(compiler.program(request(m_root / "project"), "sm_90").ok());
  fs::create_directories(m_root / "moved");
  fs::copy(m_root / "project", m_root / "moved" / "project", fs::copy_options::recursive);
  CompiledCache next_process(on_disk());
  RuntimeCompiler later(CompilerSettings{}, next_process);
  Result<Compiled> moved = later.program(request(m_root / "moved" / "project"), "sm_90");
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->source, Source::disk);
  EXPECT_EQ(m_compiler->compiles, 1);
}

// The store checksums its entries, so a damaged record would have to be written whole; one that
// is a header record by its first line but does not decode is still a miss, compiled and replaced.
TEST_F(ProgramCompileTest, AHeaderRecordThatDoesNotDecodeIsAMissAndIsReplaced) {
  {
    CompiledCache cache(on_disk());
    RuntimeCompiler compiler(CompilerSettings{}, cache);
    ASSERT_TRUE(compiler.program(request(m_root / "project"), "sm_90").ok());
  }
  const std::string request_key = program_request_key(request(m_root / "project"), "sm_90", CompilerIdentity{"13.0", "13.0"});
  store::LocalStore store(m_root / "cache", 0);
  ASSERT_TRUE(store.get(request_key)) << "the record is stored under the request's key";
  store.put(request_key, bytes_of("kiln-headers 2\nnot a record\n"));

  CompiledCache second(on_disk());
  Result<Compiled> recompiled = RuntimeCompiler(CompilerSettings{}, second).program(request(m_root / "project"), "sm_90");
  ASSERT_TRUE(recompiled.ok()) << error_text(recompiled.error());
  EXPECT_EQ(recompiled->source, Source::produced);
  EXPECT_EQ(m_compiler->compiles, 2);
  CompiledCache third(on_disk());
  EXPECT_EQ(RuntimeCompiler(CompilerSettings{}, third).program(request(m_root / "project"), "sm_90").value().source,
            Source::disk) << "the record was replaced";
}

TEST_F(ProgramCompileTest, AnotherTargetIsAnotherCompile) {
  CompiledCache cache(on_disk());
  RuntimeCompiler compiler(CompilerSettings{}, cache);
  ASSERT_TRUE(compiler.program(request(m_root / "project"), "sm_90").ok());
  ASSERT_TRUE(compiler.program(request(m_root / "project"), "sm_80").ok());
  EXPECT_EQ(m_compiler->compiles, 2);
}

TEST_F(ProgramCompileTest, ACompileErrorCarriesTheLogAndIsNotCached) {
  CompiledCache cache(on_disk());
  RuntimeCompiler compiler(CompilerSettings{}, cache);
  ProgramRequest broken = request(m_root / "project");
  broken.source = "#error stop\n";
  Result<Compiled> failed = compiler.program(broken, "sm_90");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().status, KILN_STATUS_COMPILE_FAILED);
  const std::string text = error_text(failed.error());   // as the loader reports it
  EXPECT_NE(text.find("prog.cu: compiling for sm_90 at run time failed"), std::string::npos) << text;
  EXPECT_NE(failed.error().log.find("#error directive: stop"), std::string::npos) << text;   // NVRTC's log
  Result<Compiled> again = compiler.program(broken, "sm_90");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().status, KILN_STATUS_COMPILE_FAILED);
  EXPECT_EQ(m_compiler->compiles, 2);
  EXPECT_EQ(cache.counters().compile_failures, 2u);
}

TEST_F(ProgramCompileTest, NoCompilerSaysWhy) {
  set_compiler_for_testing(nullptr, "no usable NVRTC and nvJitLink; looked at: ...");
  CompiledCache cache(on_disk());
  RuntimeCompiler compiler(CompilerSettings{}, cache);
  Result<Compiled> outcome = compiler.program(request(m_root / "project"), "sm_90");
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().status, KILN_STATUS_NO_COMPILER);
  EXPECT_NE(outcome.error().message.find(
                "prog.cu: cannot compile at run time: no usable NVRTC and nvJitLink; looked at: ..."),
            std::string::npos) << outcome.error().message;
}

}  // namespace
}  // namespace kiln::rtc
