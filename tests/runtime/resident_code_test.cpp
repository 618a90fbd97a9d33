// libkiln.so maps its code and read-only data in when it is loaded (runtime/src/api/
// resident_code_linux.cpp), so that a first open or kernel request does not fault them in: after
// dlopen every page of its read-only mappings is in this process's page tables (smaps' Rss equals
// the mapping's Size). Without that, only the pages its constructors and the relocations touched are.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

namespace {

struct Mapping {
  std::string line;   // the mapping's header line in smaps, for messages
  bool writable = false;
  long size_kb = -1;
  long rss_kb = -1;
};

// The mappings of `file` in /proc/self/smaps.
std::vector<Mapping> mappings_of(const std::string& file) {
  std::ifstream smaps("/proc/self/smaps");
  std::vector<Mapping> found;
  Mapping* current = nullptr;
  for (std::string line; std::getline(smaps, line);) {
    std::istringstream fields(line);
    std::string first, permissions;
    fields >> first;
    if (first.find('-') != std::string::npos && first.back() != ':') {   // "start-end perms offset dev inode path"
      fields >> permissions;
      std::string offset, device, inode, path;
      fields >> offset >> device >> inode >> path;
      current = nullptr;
      if (path == file) {
        found.push_back(Mapping{line, permissions.find('w') != std::string::npos});
        current = &found.back();
      }
    } else if (current != nullptr && (first == "Size:" || first == "Rss:")) {
      long kb = -1;
      fields >> kb;
      (first == "Size:" ? current->size_kb : current->rss_kb) = kb;
    }
  }
  return found;
}

// Whether this kernel populates mappings on request (Linux 5.14): asked of one anonymous page; a
// kernel without MADV_POPULATE_READ refuses it for any mapping.
bool kernel_populates() {
  const long page = sysconf(_SC_PAGESIZE);
  void* region = mmap(nullptr, static_cast<std::size_t>(page), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return false;
  const bool populated = madvise(region, static_cast<std::size_t>(page), MADV_POPULATE_READ) == 0;
  munmap(region, static_cast<std::size_t>(page));
  return populated;
}

TEST(ResidentCode, LibkilnsReadOnlyPagesAreMappedWhenItIsLoaded) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_READ (Linux 5.14)";
  const std::string library = KILN_TEST_LIBRARY;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  char resolved[4096];
  ASSERT_NE(realpath(library.c_str(), resolved), nullptr) << library;
  const std::vector<Mapping> mappings = mappings_of(resolved);
  ASSERT_FALSE(mappings.empty()) << "no mapping of " << resolved << " in /proc/self/smaps";
  int read_only = 0;
  for (const Mapping& mapping : mappings) {
    if (mapping.writable) continue;
    ++read_only;
    ASSERT_GT(mapping.size_kb, 0) << mapping.line;
    EXPECT_EQ(mapping.rss_kb, mapping.size_kb) << "not all of this mapping is resident after dlopen: " << mapping.line;
  }
  // Its headers, its code and its read-only data (the linker's usual layout; a change that merges
  // them still leaves the code).
  EXPECT_GE(read_only, 2) << "expected libkiln's code and read-only data among its mappings";
  dlclose(handle);
}

// What libkiln writes of its own in each process that loads it: its relocated pointers, a few flags
// and caches. Each page of it costs a page fault (copy-on-write or zero-fill) the first time it is
// written, most of them at dlopen. Build-time state linked in by mistake shows here: the signal
// cleanup's table of 16 paths (platform/posix/signal_cleanup.cpp), 64 KiB that a constructor wrote
// at every load, made it 17 pages.
TEST(ResidentCode, LibkilnWritesFewPagesOfItsOwn) {
#if defined(KILN_TEST_SANITIZED)
  GTEST_SKIP() << "a sanitizer's build adds its own data around every global";
#endif
  const std::string library = KILN_TEST_LIBRARY;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(library.c_str(), resolved), nullptr) << library;
  struct Found {
    std::string file;
    bool seen = false;
    std::size_t writable = 0;   // the memory size of its writable segments
  } found{resolved};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        Found& wanted = *static_cast<Found*>(data);
        char path[PATH_MAX];
        if (info->dlpi_name == nullptr || realpath(info->dlpi_name, path) == nullptr || wanted.file != path) return 0;
        wanted.seen = true;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[i];
          if (segment.p_type == PT_LOAD && (segment.p_flags & PF_W) != 0) wanted.writable += segment.p_memsz;
        }
        return 1;
      },
      &found);
  ASSERT_TRUE(found.seen) << resolved << " is not among the loaded objects";
  EXPECT_GT(found.writable, 0u);
  EXPECT_LE(found.writable, std::size_t{8} << 10) << "bytes that libkiln writes in every process that loads it";
  dlclose(handle);
}

}  // namespace
