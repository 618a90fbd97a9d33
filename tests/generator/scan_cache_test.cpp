// The scan cache on a real store: hits while the source, the flags and every header are unchanged,
// misses otherwise, never trusts a damaged entry, and survives writers racing.
#include "format/checksum.hpp"
#include "scan/scan_cache.hpp"
#include "store/entry_format.hpp"
#include "store/local_store.hpp"
#include "util/hasher.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>

namespace kiln::scan {
namespace {

namespace fs = std::filesystem;

class ScanCacheTest : public ::testing::Test {
protected:
  ScanCacheTest() {
    static std::atomic<unsigned> counter{0};
    m_root = fs::temp_directory_path() /
             ("kiln-scan-cache-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
              std::to_string(std::random_device{}()));
    fs::create_directories(m_root / "project");
    write("project/k.cu", "#include \"k.cuh\"\n__global__ void k(float* x) { x[0] = twice(x[0]); }\n");
    write("project/k.cuh", "__device__ inline float twice(float x) { return x + x; }\n");
  }
  ~ScanCacheTest() override {
    std::error_code ignored;
    fs::remove_all(m_root, ignored);
  }

  void write(const std::string& relative, const std::string& text) const {
    std::ofstream(m_root / relative, std::ios::binary | std::ios::trunc) << text;
  }
  std::string read(const fs::path& path) const {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  ScanInput input() const {
    ScanInput in;
    in.file = "k.cu";
    in.directory = m_root / "project";
    in.include_dirs = {"include"};
    in.defines = {"N=4"};
    in.cuda_root = "/opt/cuda";
    return in;
  }

  // What a scan of k.cu would say, with the header's hash as it is on disk now.
  ScanResult result() const {
    ScanResult r;
    Kernel k;
    k.qualified_name = "k";
    k.location = {"k.cu", 2, 17};
    r.kernels.push_back(k);
    const std::string header = read(m_root / "project/k.cuh");
    r.headers.push_back({"k.cuh", format::checksum(std::as_bytes(std::span(header.data(), header.size())))});
    return r;
  }

  // The store's entry files (not its counters, tag or temporary files).
  std::vector<fs::path> entries() const {
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(cache_dir()))
      if (e.is_regular_file() && store::valid_key(e.path().filename().string())) found.push_back(e.path());
    return found;
  }
  fs::path cache_dir() const { return m_root / "cache"; }

  fs::path m_root;
  mutable std::unique_ptr<store::LocalStore> m_store;

  store::Store& store() const {
    if (!m_store) m_store = std::make_unique<store::LocalStore>(cache_dir(), 0);
    return *m_store;
  }
};

TEST_F(ScanCacheTest, StoredResultIsFoundAgain) {
  const ScanCache cache(store());
  EXPECT_FALSE(cache.lookup(input()));
  cache.store(input(), result());
  const std::optional<ScanResult> hit = ScanCache(store()).lookup(input());
  ASSERT_TRUE(hit);
  ASSERT_EQ(hit->kernels.size(), 1u);
  EXPECT_EQ(hit->kernels[0].qualified_name, "k");
  EXPECT_EQ(hit->headers.size(), 1u);
}

TEST_F(ScanCacheTest, AChangedHeaderMisses) {
  ScanCache(store()).store(input(), result());
  write("project/k.cuh", "__device__ inline float twice(float x) { return 2 * x; }\n");
  EXPECT_FALSE(ScanCache(store()).lookup(input()));
  std::error_code ec;
  fs::remove(m_root / "project/k.cuh", ec);
  EXPECT_FALSE(ScanCache(store()).lookup(input())) << "a header that is gone";
}

TEST_F(ScanCacheTest, TheSourceAndEveryFlagAreInTheKey) {
  ScanCache(store()).store(input(), result());
  const ScanCache cache(store());
  ScanInput in = input();
  in.defines = {"N=5"};
  EXPECT_FALSE(cache.lookup(in));
  in = input();
  in.include_dirs = {"include", "more"};
  EXPECT_FALSE(cache.lookup(in));
  in = input();
  in.language_standard = "c++20";
  EXPECT_FALSE(cache.lookup(in));
  in = input();
  fs::create_directories(m_root / "cuda-13.1");
  write("cuda-13.1/version.json", "{\"cuda\": {\"version\": \"13.1.0\"}}\n");
  in.cuda_root = m_root / "cuda-13.1";
  EXPECT_FALSE(cache.lookup(in)) << "another toolkit (its version.json)";
  in = input();
  in.role = ScanInput::Role::host;
  EXPECT_FALSE(cache.lookup(in));
  EXPECT_TRUE(cache.lookup(input()));
  write("project/k.cu", "__global__ void k(float* x) { x[0] = 1; }\n");
  EXPECT_FALSE(cache.lookup(input()));
}

// clang's headers are the parse's input too: another resource directory (here through the variable)
// is another key, and the same one hits again.
TEST_F(ScanCacheTest, AnotherClangResourceDirectoryMisses) {
  ASSERT_EQ(std::getenv("KILN_CLANG_RESOURCE_DIR"), nullptr) << "the test expects the built-in directory";
  ScanCache(store()).store(input(), result());
  const ScanCache cache(store());
  setenv("KILN_CLANG_RESOURCE_DIR", (m_root / "other-clang").c_str(), 1);
  const bool hit_with_another = cache.lookup(input()).has_value();
  unsetenv("KILN_CLANG_RESOURCE_DIR");
  EXPECT_FALSE(hit_with_another);
  EXPECT_TRUE(cache.lookup(input()));
}

// Nothing in the key or the entry says where the tree lies: a copy at another depth, with its build
// directory elsewhere, hits; paths under the roots come back under the copy's.
TEST_F(ScanCacheTest, ACopyOfTheTreeElsewhereWithAnotherBuildDirectoryHits) {
  fs::create_directories(m_root / "build/gen");
  ScanInput in = input();
  in.build_dir = m_root / "build";
  in.include_dirs = {"include", (m_root / "build/gen").string()};
  ScanResult r = result();
  r.headers.push_back({(m_root / "build/gen/config.h").string(), 7});
  write("build/gen/config.h", "#define N 4\n");
  r.headers.back().content_hash = format::checksum(std::as_bytes(std::span(std::string_view("#define N 4\n"))));
  r.kernels[0].location.file = (m_root / "project/k.cu").string();
  ScanCache(store()).store(in, r);

  const fs::path copy = m_root / "elsewhere/deeper/project", build = m_root / "build-2";
  fs::create_directories(copy);
  fs::copy(m_root / "project", copy, fs::copy_options::recursive);
  fs::create_directories(build / "gen");
  fs::copy_file(m_root / "build/gen/config.h", build / "gen/config.h");
  ScanInput there = in;
  there.directory = copy;
  there.build_dir = build;
  there.include_dirs = {"include", (build / "gen").string()};
  const std::optional<ScanResult> hit = ScanCache(store()).lookup(there);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->headers.at(1).path, (build / "gen/config.h").string());
  EXPECT_EQ(hit->kernels.at(0).location.file, (copy / "k.cu").string());
  write("build-2/gen/config.h", "#define N 5\n");
  EXPECT_FALSE(ScanCache(store()).lookup(there)) << "headers are checked where they are now";
}

TEST_F(ScanCacheTest, FailedScansAreNotStored) {
  ScanResult failed = result();
  failed.diagnostics.push_back({Diagnostic::Severity::error, {"k.cu", 1, 1}, "expected ';'"});
  ScanCache(store()).store(input(), failed);
  EXPECT_FALSE(ScanCache(store()).lookup(input()));
}

TEST_F(ScanCacheTest, EntryNamesItsKeyAndWhatWentIntoIt) {
  ScanCache(store()).store(input(), result());
  const std::vector<fs::path> files = entries();
  ASSERT_EQ(files.size(), 1u);
  const std::string text = read(files[0]);
  EXPECT_EQ(text.rfind("kiln-store 1 " + files[0].filename().string() + " ", 0), 0u) << text;
  EXPECT_NE(text.find("\nkiln-scan-cache 2\ninputs:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  define: N=4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  file: k.cu\n"), std::string::npos) << text;
}

TEST_F(ScanCacheTest, DamagedOrMisnamedEntriesMiss) {
  ScanCache(store()).store(input(), result());
  const fs::path entry = entries().at(0);
  const std::string good = read(entry);
  std::string damaged = good;
  damaged[damaged.size() - 5] ^= 0x20;  // inside the JSON payload: the checksum catches it
  write(entry.lexically_relative(m_root).string(), damaged);
  EXPECT_FALSE(ScanCache(store()).lookup(input()));
  write(entry.lexically_relative(m_root).string(), good.substr(0, good.size() / 2));
  EXPECT_FALSE(ScanCache(store()).lookup(input()));
  write(entry.lexically_relative(m_root).string(), good);
  EXPECT_TRUE(ScanCache(store()).lookup(input()));
}

TEST_F(ScanCacheTest, ParallelWritersLeaveOneValidEntry) {
  // Eight processes store the same key at once while this one reads. The entry exists before they
  // start, so every read must find a whole entry: a torn one fails its checksum and reads as a miss.
  ScanCache(store()).store(input(), result());
  ASSERT_TRUE(ScanCache(store()).lookup(input()));
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (int round = 0; round < 20; ++round) ScanCache(store()).store(input(), result());
      _exit(0);
    }
    children.push_back(pid);
  }
  int valid_reads = 0;
  for (int round = 0; round < 50; ++round)
    if (ScanCache(store()).lookup(input())) ++valid_reads;
  for (const pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_TRUE(ScanCache(store()).lookup(input()));
  EXPECT_EQ(entries().size(), 1u) << "temporary files are renamed or removed";
  EXPECT_EQ(valid_reads, 50) << "a read found a torn or missing entry while writers replaced it";
}

TEST_F(ScanCacheTest, ScanGoesThroughTheScannerOnceThenHits) {
  // The real scanner on a two-line source: the second scan is a hit, and so sees the same kernels.
  const ScanCache cache(store());
  ScanInput in = input();
  in.include_dirs = {};
  in.cuda_root.clear();
  const ScanResult first = cache.scan(in);
  ASSERT_TRUE(first.ok()) << (first.diagnostics.empty() ? "" : first.diagnostics[0].message);
  ASSERT_EQ(first.kernels.size(), 1u);
  ASSERT_TRUE(cache.lookup(in));
  EXPECT_EQ(cache.scan(in).kernels.size(), 1u);
  write("project/k.cuh", "__device__ inline float twice(float x) { return 2 * x; }\n");
  EXPECT_FALSE(ScanCache(store()).lookup(in));
}

TEST_F(ScanCacheTest, ResolutionsAreCachedByTheirRequests) {
  const ScanCache cache(store());
  const std::vector<RuntimeRequest> requests = {{RuntimeRequest::What::kernel, "k<float>", {"app.cpp", 3, 5}}};
  EXPECT_FALSE(cache.lookup_resolution(input(), result(), requests));
  // k is no template: nothing resolves, and that answer is cached too.
  const Resolution resolution = cache.resolve(input(), result(), requests);
  EXPECT_TRUE(resolution.instantiations.empty());
  EXPECT_TRUE(cache.lookup_resolution(input(), result(), requests));
  std::vector<RuntimeRequest> moved = requests;
  moved[0].location.line = 4;
  EXPECT_FALSE(cache.lookup_resolution(input(), result(), moved));
}

TEST(Hasher, FieldsAreDelimitedAndDumped) {
  Hasher a, b, c;
  a.add("x", "ab");
  a.add("y", "c");
  b.add("x", "a");
  b.add("y", "bc");
  c.add("x", "ab");
  c.add("y", "c");
  EXPECT_NE(a.hex_digest(), b.hex_digest());
  EXPECT_EQ(a.hex_digest(), c.hex_digest());
  EXPECT_EQ(a.hex_digest().size(), 32u);
  EXPECT_EQ(a.dump(), "x: ab\ny: c\n");
}

}  // namespace
}  // namespace kiln::scan
