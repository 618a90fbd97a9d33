// What the scan must read and how many job slots compile beside it (build/scan_scope.hpp).
#include "build/scan_scope.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <fstream>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class ScanScope : public ::testing::Test {
protected:
  ScanScope() {
    std::string name = (fs::temp_directory_path() / "kiln-scope-XXXXXX").string();
    m_manifest.root = mkdtemp(name.data());
    // Host code in its own text, nothing asks it for names: the image decides.
    write("host.cu", "#include <cuda_runtime.h>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); }\n");
    // Device code only, with a template: the scan reads it (its instantiations are the scan's to name).
    write("device.cu", "template <int N> __global__ void d() {}\ntemplate __global__ void d<1>();\n");
    add("host.cu");
    add("device.cu");
  }
  ~ScanScope() override { fs::remove_all(m_manifest.root); }

  void write(const std::string& path, const std::string& text) { std::ofstream(m_manifest.root / path) << text; }
  manifest::SourceEntry& add(const std::string& path) {
    manifest::SourceEntry entry;
    entry.path = path;
    m_manifest.sources.push_back(entry);
    return m_manifest.sources.back();
  }

  std::set<std::string> left_to_the_image(bool strict, bool extra_sources) {
    plan::ProjectText project(m_manifest);
    return build::left_to_the_image(m_manifest, project, strict, extra_sources);
  }

  manifest::Manifest m_manifest;
};

TEST_F(ScanScope, ASourceWithHostCodeThatNothingAsksIsLeftToTheImage) {
  EXPECT_EQ(left_to_the_image(false, false), (std::set<std::string>{"host.cu"}));
}

TEST_F(ScanScope, StrictOrSourcesBesideTheManifestAskForNames) {
  EXPECT_TRUE(left_to_the_image(true, false).empty());
  EXPECT_TRUE(left_to_the_image(false, true).empty());
}

TEST_F(ScanScope, ASourceListedTwiceIsLeftOnlyIfNoEntryAsks) {
  add("host.cu").instantiations.push_back("k2<1>");
  EXPECT_TRUE(left_to_the_image(false, false).empty());
}

// Its headers' text counts as its own (plan/unit_text.hpp): host code in a header leaves the source
// unread as well.
TEST_F(ScanScope, HostCodeInAHeaderLeavesTheSourceToTheImage) {
  write("common.h", "#include <cstdio>\n");
  write("via_header.cu", "#include \"common.h\"\n__global__ void v() {}\n");
  add("via_header.cu");
  EXPECT_EQ(left_to_the_image(false, false), (std::set<std::string>{"host.cu", "via_header.cu"}));
}

// Device code only, with no template and no variable: NVRTC's image names all a parse would.
TEST_F(ScanScope, ADeviceOnlySourceWithNothingToNameIsLeftToTheImage) {
  write("plain.cu", "#include \"index.cuh\"\n__global__ void p(int* x) { x[index()] = 0; }\n");
  write("index.cuh", "__device__ inline int index() { return threadIdx.x; }\n");
  add("plain.cu");
  write("with_table.cu", "#include \"index.cuh\"\n__device__ int table[4];\n__global__ void t() { table[index()] = 1; }\n");
  add("with_table.cu");
  EXPECT_EQ(left_to_the_image(false, false), (std::set<std::string>{"host.cu", "plain.cu"}));
  m_manifest.carry_sources = true;   // the runtime finds a carried source by the kernels the scan names
  EXPECT_EQ(left_to_the_image(false, false), (std::set<std::string>{"host.cu"}));
}

TEST_F(ScanScope, AnUnreadableSourceIsScanned) {
  add("missing.cu");
  EXPECT_EQ(left_to_the_image(false, false), (std::set<std::string>{"host.cu"}));
}

TEST_F(ScanScope, SlotsBesideTheScan) {
  const std::set<std::string> unread{"host.cu"};
  // One file to parse (device.cu): one slot parses, the rest compile.
  EXPECT_EQ(build::slots_beside_the_scan(m_manifest, unread, 0, 4, false), 3);
  // Nothing to parse: no scan to overlap, the compiles start at once.
  EXPECT_EQ(build::slots_beside_the_scan(m_manifest, {"host.cu", "device.cu"}, 0, 4, false), 0);
  // More files to parse than slots: one slot at least compiles.
  EXPECT_EQ(build::slots_beside_the_scan(m_manifest, unread, 6, 4, false), 1);
  // One slot and something to parse: the scan has it.
  EXPECT_EQ(build::slots_beside_the_scan(m_manifest, unread, 0, 1, false), 0);
  // Under make's jobserver: none (the early compiles would take a token make did not lend).
  EXPECT_EQ(build::slots_beside_the_scan(m_manifest, unread, 0, 4, true), 0);
  // The manifest's host sources are parsed too.
  m_manifest.host_sources.push_back("app.cpp");
  EXPECT_EQ(build::slots_beside_the_scan(m_manifest, unread, 0, 4, false), 2);
}

}  // namespace
}  // namespace kiln::test
