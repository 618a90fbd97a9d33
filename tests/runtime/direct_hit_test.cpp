// A kernel compiled at run time by one process, asked for by the next, through libkiln.so as a program
// uses it (the fake libcuda of tests/driver, the toolkit's real NVRTC and nvJitLink): the loader
// answers from the direct record (core/direct_hits.hpp) without loading the compile library beside
// it, and counts the hit; and what must not be answered from the record is not: KILN_JIT=0 and
// KILN_CACHE=0 behave as without records; another NVRTC at the recorded path or earlier on the search
// path, a package whose carried header changed, a record cut short and a record whose package is
// damaged (each stored again as a sound store entry, so only their own checks can refuse them) go to
// the compile library, after which the next process hits again; and a hit reads the record alone,
// which carries the compiled package. Each lookup is a process of its own (this program again, as a
// child).
#include "format/layout.hpp"
#include "kiln/compile.h"
#include "kiln/kiln.h"
#include "store/direct_record.hpp"
#include "store/entry_format.hpp"
#include "test_process.hpp"
#include "writer/package_writer.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <thread>

namespace kiln {
namespace {

namespace fs = std::filesystem;

// extern "C": its symbol is its name, the one kernel the fake libcuda hands out.
const char* k_source = R"(#include "common.cuh"
extern "C" __global__ void probe(int* x) {
  if (x) x[0] = index_of() * FACTOR;
}
)";

constexpr const char* k_role = "lookup";
constexpr const char* k_dir_variable = "KILN_TEST_DIRECT_DIR";

// What a child's lookup of `probe` saw.
struct Lookup {
  int status = -1;
  bool library_loaded = false;
  std::uint64_t cache_hits = 0, compiles = 0;
  std::string message;
};

class DirectHitTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fs::exists("/usr/local/cuda/lib64/libnvrtc.so.13"))
      GTEST_SKIP() << "no NVRTC in /usr/local/cuda: the run-time compile tests need the toolkit";
    if (test::child_role() == k_role) {   // the variables are the parent's
      m_dir = std::getenv(k_dir_variable);
      play_lookup();
    }
    settle(KILN_TEST_JIT_LIBRARY);
    test::set_variable("CUDA_PATH", "/usr/local/cuda");
    test::set_variable("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
    m_dir = fs::temp_directory_path() /
            ("kiln-direct-hit-" + std::to_string(test::process_id()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
    test::set_variable(k_dir_variable, m_dir.string());
    write_package("threadIdx.x");
  }
  void TearDown() override {
    for (const char* name : {k_dir_variable, "KILN_JIT", "KILN_CACHE", "KILN_NVRTC", "KILN_NVJITLINK", "CUDA_PATH",
                             "KILN_LIBCUDA", "KILN_JIT_LIBRARY"})
      test::unset_variable(name);
    std::error_code ignored;
    if (!m_dir.empty()) fs::remove_all(m_dir, ignored);
  }

  // Waits until `path` has stood unchanged long enough for a record to trust its times (a compile
  // library linked just before the tests ran would otherwise leave no record).
  static void settle(const fs::path& path) {
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(path);
    const auto needed = std::chrono::milliseconds(2100);
    if (age < needed) std::this_thread::sleep_for(needed - age);
  }

  // A package that lacks `probe` and carries its source, with a header whose index_of() returns `index`.
  void write_package(const std::string& index) {
    format::PackageContents contents;
    contents.targets = {"sm_80"};
    contents.units = {format::PackageUnit{"kernels/probe.cu", {}}};
    format::PackageCarriedUnit carried;
    carried.unit_source = "kernels/probe.cu";
    carried.source = {"kernels/probe.cu", k_source};
    carried.headers = {{"include/common.cuh", "#pragma once\n__device__ inline int index_of() { return " + index + "; }\n"}};
    carried.include_dirs = {"include"};
    carried.options = {"-DFACTOR=3"};
    carried.kernel_templates = {"probe"};
    carried.nvrtc_version = "13.0";
    contents.carried = {carried};
    const Result<std::vector<std::byte>> written = format::write_package(contents);
    ASSERT_TRUE(written.ok()) << written.error().message;
    std::ofstream(m_dir / "carried.kiln", std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));
  }

  // The child's part: `probe` from the package, through the cache in the test's directory.
  [[noreturn]] void play_lookup() {
    test::set_variable("KILN_CACHE_DIR", (m_dir / "cache").string());
    Lookup seen;
    kiln_package* package = nullptr;
    kiln_kernel* kernel = nullptr;
    seen.status = kiln_package_open_file((m_dir / "carried.kiln").c_str(), &package);
    if (seen.status == KILN_STATUS_SUCCESS) {
      seen.status = kiln_package_get_kernel(package, "probe", &kernel);
      if (seen.status != KILN_STATUS_SUCCESS) seen.message = kiln_package_last_error(package);
    } else {
      seen.message = kiln_last_error();
    }
    kiln_cache_stats stats{};
    stats.struct_size = sizeof stats;
    kiln_cache_get_stats(&stats);
    // The compile library is the file beside libkiln.so.0, or KILN_JIT_LIBRARY's: loaded or not, as
    // the dynamic loader knows.
    const char* named = std::getenv("KILN_JIT_LIBRARY");
    const bool loaded = dlopen(named != nullptr ? named : KILN_TEST_JIT_LIBRARY, RTLD_NOW | RTLD_NOLOAD) != nullptr;
    std::ofstream(m_dir / "lookup") << seen.status << " " << loaded << " " << stats.cache_hits << " "
                                    << stats.compiles << "\n"
                                    << seen.message;
    kiln_package_destroy(package);
    test::exit_child(0);
  }

  // One child's lookup, with the variables as this process has them.
  Lookup lookup() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    test::ChildProcess child =
        test::ChildProcess::start(std::string(info->test_suite_name()) + "." + info->name(), k_role);
    EXPECT_EQ(child.wait(), 0);
    Lookup seen;
    std::ifstream report(m_dir / "lookup");
    report >> seen.status >> seen.library_loaded >> seen.cache_hits >> seen.compiles;
    report.ignore(1);
    seen.message.assign(std::istreambuf_iterator<char>(report), {});
    std::error_code ignored;
    fs::remove(m_dir / "lookup", ignored);
    return seen;
  }

  // How rewrite_entries stores an edited payload.
  enum class StoreChecksum { remade, kept };

  // Every entry of the cache whose payload `pick` chooses, its payload changed by `edit` and stored
  // again: as a sound entry (its header and checksum made for the new payload), or, with
  // StoreChecksum::kept, under the header it had (`edit` must keep the size), so only the store's
  // checksum can see the change. How many it changed.
  int rewrite_entries(const std::function<bool(const std::string& payload)>& pick,
                      const std::function<std::string(const std::string& payload)>& edit,
                      StoreChecksum checksum = StoreChecksum::remade) {
    int changed = 0;
    for (const fs::directory_entry& file : fs::recursive_directory_iterator(m_dir / "cache")) {
      if (!file.is_regular_file() || file.path().parent_path().filename().string().size() != 2) continue;
      std::ifstream in(file.path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      in.close();
      const std::string key = file.path().filename().string();
      const std::optional<std::span<const std::byte>> payload = store::decode_entry(std::as_bytes(std::span(text)), key);
      if (!payload) continue;
      const std::string old(reinterpret_cast<const char*>(payload->data()), payload->size());
      if (!pick(old)) continue;
      const std::string edited = edit(old);
      std::vector<std::byte> entry;
      if (checksum == StoreChecksum::remade) {
        entry = store::encode_entry(key, std::as_bytes(std::span(edited)));
      } else {
        EXPECT_EQ(edited.size(), old.size()) << "an edit under the kept header keeps the size";
        const auto header = static_cast<std::size_t>(payload->data() - reinterpret_cast<const std::byte*>(text.data()));
        const std::string file_bytes = text.substr(0, header) + edited;
        const auto bytes = std::as_bytes(std::span(file_bytes));
        entry.assign(bytes.begin(), bytes.end());
      }
      std::ofstream(file.path(), std::ios::binary | std::ios::trunc)
          .write(reinterpret_cast<const char*>(entry.data()), static_cast<std::streamsize>(entry.size()));
      ++changed;
    }
    return changed;
  }

  // After a lookup that could not use the record: the compile library answered and wrote it again,
  // and the next lookup takes it.
  void expect_compile_library_then_hit(const char* why) {
    const Lookup refused = lookup();
    ASSERT_EQ(refused.status, KILN_STATUS_SUCCESS) << refused.message;
    EXPECT_TRUE(refused.library_loaded) << why;
    const Lookup again = lookup();
    ASSERT_EQ(again.status, KILN_STATUS_SUCCESS) << again.message;
    EXPECT_FALSE(again.library_loaded) << why << ": the record written again answers";
  }

  fs::path m_dir;
};

bool is_record(const std::string& payload) { return payload.starts_with(store::k_direct_record_magic); }

TEST_F(DirectHitTest, AKernelAnotherProcessCompiledIsAHitWithoutTheCompileLibrary) {
  const Lookup first = lookup();
  ASSERT_EQ(first.status, KILN_STATUS_SUCCESS) << first.message;
  EXPECT_TRUE(first.library_loaded);
  EXPECT_EQ(first.compiles, 1u);

  const Lookup second = lookup();
  ASSERT_EQ(second.status, KILN_STATUS_SUCCESS) << second.message;
  EXPECT_FALSE(second.library_loaded) << "the loader answered from the direct record";
  EXPECT_EQ(second.cache_hits, 1u) << "kiln_cache_get_stats counts the loader's hit";
  EXPECT_EQ(second.compiles, 0u);
}

TEST_F(DirectHitTest, KilnJitZeroRefusesAsWithoutRecords) {
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  test::set_variable("KILN_JIT", "0");
  const Lookup off = lookup();
  EXPECT_EQ(off.status, KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_NE(off.message.find("KILN_JIT=0 turns that off"), std::string::npos) << off.message;
  EXPECT_EQ(off.cache_hits, 0u);
}

TEST_F(DirectHitTest, KilnCacheZeroCompilesAsWithoutRecords) {
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  test::set_variable("KILN_CACHE", "0");
  const Lookup off = lookup();
  ASSERT_EQ(off.status, KILN_STATUS_SUCCESS) << off.message;
  EXPECT_TRUE(off.library_loaded);
  EXPECT_EQ(off.cache_hits, 0u);
  EXPECT_EQ(off.compiles, 1u) << "the cache is off: memory only, as before";
}

TEST_F(DirectHitTest, AnotherNvrtcAtTheRecordedPathGoesToTheCompileLibrary) {
  // KILN_NVRTC names a link to the toolkit's NVRTC; the record holds the file it leads to.
  const fs::path lib = "/usr/local/cuda/lib64";
  if (!fs::exists(lib / "libnvrtc.alt.so.13")) GTEST_SKIP() << "needs a second NVRTC (the toolkit's libnvrtc.alt.so.13)";
  fs::create_directories(m_dir / "nvrtc");
  const fs::path nvrtc = m_dir / "nvrtc" / "libnvrtc.so.13";
  fs::create_symlink(lib / "libnvrtc.so.13", nvrtc);
  test::set_variable("KILN_NVRTC", nvrtc.string());
  test::set_variable("KILN_NVJITLINK", (lib / "libnvJitLink.so.13").string());
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  const Lookup same = lookup();
  ASSERT_EQ(same.status, KILN_STATUS_SUCCESS) << same.message;
  EXPECT_FALSE(same.library_loaded) << "the same NVRTC: a direct hit";

  fs::remove(nvrtc);
  fs::create_symlink(lib / "libnvrtc.alt.so.13", nvrtc);
  const Lookup other = lookup();
  ASSERT_EQ(other.status, KILN_STATUS_SUCCESS) << other.message;
  EXPECT_TRUE(other.library_loaded) << "another file at the recorded path: the compile library decides";
}

TEST_F(DirectHitTest, ALibraryAddedEarlierOnTheSearchPathIsSeen) {
  // $CUDA_PATH/lib holds the toolkit's libraries; lib64, which the search tries first, holds nothing.
  const fs::path lib = "/usr/local/cuda/lib64";
  if (!fs::exists(lib / "libnvrtc.alt.so.13")) GTEST_SKIP() << "needs a second NVRTC (the toolkit's libnvrtc.alt.so.13)";
  const fs::path root = m_dir / "cuda";
  fs::create_directories(root / "lib");
  fs::create_symlink(lib / "libnvrtc.so.13", root / "lib" / "libnvrtc.so.13");
  fs::create_symlink(lib / "libnvJitLink.so.13", root / "lib" / "libnvJitLink.so.13");
  test::set_variable("CUDA_PATH", root.string());
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  const Lookup same = lookup();
  ASSERT_EQ(same.status, KILN_STATUS_SUCCESS) << same.message;
  EXPECT_FALSE(same.library_loaded) << "nothing changed on the search path: a direct hit";

  fs::create_directories(root / "lib64");
  fs::create_symlink(lib / "libnvrtc.alt.so.13", root / "lib64" / "libnvrtc.so.13");
  const Lookup other = lookup();
  ASSERT_EQ(other.status, KILN_STATUS_SUCCESS) << other.message;
  EXPECT_TRUE(other.library_loaded) << "the search now finds another NVRTC first: the compile library decides";
}

TEST_F(DirectHitTest, APackageWhoseCarriedHeaderChangedIsCompiledAgain) {
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  write_package("threadIdx.x + 1");
  const Lookup changed = lookup();
  ASSERT_EQ(changed.status, KILN_STATUS_SUCCESS) << changed.message;
  EXPECT_TRUE(changed.library_loaded);
  EXPECT_EQ(changed.compiles, 1u) << "never the entry of the header as it was";
}

TEST_F(DirectHitTest, ARecordAnswersOnlyForTheCompileLibraryThatWroteIt) {
  // A copy of the compile library, named by KILN_JIT_LIBRARY; its times settle before it compiles
  // (a file changed within two seconds is not trusted by its times, so no record would be written).
  const fs::path copy = m_dir / "libkiln_jit.so.0";
  fs::copy_file(KILN_TEST_JIT_LIBRARY, copy);
  test::set_variable("KILN_JIT_LIBRARY", copy.string());
  settle(copy);
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  const Lookup same = lookup();
  ASSERT_EQ(same.status, KILN_STATUS_SUCCESS) << same.message;
  EXPECT_FALSE(same.library_loaded) << "the library that wrote the record, unchanged: a direct hit";

  // The library beside libkiln (KILN_JIT_LIBRARY unset) is another query: the copy's record, whose
  // files are all unchanged, does not answer for it.
  test::unset_variable("KILN_JIT_LIBRARY");
  const Lookup beside = lookup();
  ASSERT_EQ(beside.status, KILN_STATUS_SUCCESS) << beside.message;
  EXPECT_TRUE(beside.library_loaded);

  // Another build of the copy at the same path (a byte appended: it still loads).
  test::set_variable("KILN_JIT_LIBRARY", copy.string());
  std::ofstream(copy, std::ios::binary | std::ios::app).put('\0');
  const Lookup rebuilt = lookup();
  ASSERT_EQ(rebuilt.status, KILN_STATUS_SUCCESS) << rebuilt.message;
  EXPECT_TRUE(rebuilt.library_loaded) << "another compile library: it decides, not the old one's record";
}

TEST_F(DirectHitTest, ARecordCutShortGoesToTheCompileLibrary) {
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  ASSERT_FALSE(lookup().library_loaded);
  ASSERT_EQ(rewrite_entries(is_record, [](const std::string& record) { return record.substr(0, record.size() - 1); }), 1);
  expect_compile_library_then_hit("a record cut short");
}

TEST_F(DirectHitTest, ARecordWhosePackageIsDamagedGoesToTheCompileLibrary) {
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  ASSERT_FALSE(lookup().library_loaded);
  // A byte of the table of contents of the compiled package the record carries changed: the store's
  // checksum is made anew, so only the package's own checks can refuse it.
  ASSERT_EQ(rewrite_entries(is_record, [](std::string record) {
              const std::optional<store::DirectRecord> decoded = store::decode_direct_record(std::as_bytes(std::span(record)));
              if (!decoded) return record;   // not a record: the count below says so
              const auto at = static_cast<std::size_t>(decoded->package.data() - reinterpret_cast<const std::byte*>(record.data()));
              format::FileHeader header;
              std::memcpy(&header, record.data() + at, sizeof header);
              record.at(at + header.toc_offset + 4) ^= 0x5a;
              return record;
            }), 1);
  expect_compile_library_then_hit("a damaged package");
}

TEST_F(DirectHitTest, ARecordWhosePackageChangedUnderTheStoresChecksumGoesToTheCompileLibrary) {
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  ASSERT_FALSE(lookup().library_loaded);
  // The loader does not hash the record's package again (the store's checksum covers the record
  // whole): so a byte of the package's image bytes, changed under the store's checksum, must still
  // be seen, by the store.
  ASSERT_EQ(rewrite_entries(is_record, [](std::string record) {
              const std::optional<store::DirectRecord> decoded = store::decode_direct_record(std::as_bytes(std::span(record)));
              if (!decoded) return record;   // not a record: the test fails below
              const auto at = static_cast<std::size_t>(decoded->package.data() - reinterpret_cast<const std::byte*>(record.data()));
              format::FileHeader header;
              std::memcpy(&header, record.data() + at, sizeof header);
              bool flipped = false;
              for (std::uint32_t i = 0; i < header.section_count; ++i) {
                format::TocEntry entry;
                std::memcpy(&entry, record.data() + at + header.toc_offset + i * sizeof entry, sizeof entry);
                if (entry.kind != static_cast<std::uint32_t>(format::SectionKind::blobs)) continue;
                record.at(at + entry.offset + entry.size / 2) ^= 0x01;   // inside the image bytes
                flipped = true;
              }
              EXPECT_TRUE(flipped) << "the compiled package has a BLOBS section";
              return record;
            }, StoreChecksum::kept), 1);
  expect_compile_library_then_hit("a package changed under the store's checksum");
}

TEST_F(DirectHitTest, AHitReadsTheRecordAlone) {
  ASSERT_EQ(lookup().status, KILN_STATUS_SUCCESS);
  // The compiled package's own entry removed: the record carries the package, and the loader reads
  // nothing else (one file per hit).
  const auto is_package = [](const std::string& payload) { return payload.starts_with("\x89KILN"); };
  ASSERT_EQ(rewrite_entries(is_package, [](const std::string&) { return std::string("not a package"); }), 1);
  const Lookup hit = lookup();
  ASSERT_EQ(hit.status, KILN_STATUS_SUCCESS) << hit.message;
  EXPECT_FALSE(hit.library_loaded) << "the record answers without the entry it names";
  EXPECT_EQ(hit.cache_hits, 1u);
}

}  // namespace
}  // namespace kiln
