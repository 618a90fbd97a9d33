// libkiln.so on Linux only (not the static archive, nor the tests that link the entry points, whose
// code is the program's): maps the library's code and read-only data into the process when the
// library is loaded. bench/runtime_load links it too, so that its static copy of the core is mapped
// in as libkiln.so's is (case (d) times what case (a) runs).
//
// Why: a first open and a first kernel request run code from all over the library, and each first
// touch of a 64 KB window of it is a page fault (the kernel maps the window's pages from the page
// cache at once). An open touched all seven windows of libkiln's 456 KB of code; mapping them here
// took 18 us off a first open of 85 us on a build machine, and 28-75 us off one from Python on an
// H200's host (bench/results/runtime-load.md, "The library's code"). Mapping the pages here costs
// about as many faults, once, in dlopen, where a program already waits for the library: the latency
// moves out of the first request, which is what users feel.
//
// MADV_POPULATE_READ (Linux 5.14) faults the pages in without writing them, as reads would; an
// older kernel refuses it with EINVAL and the pages come in on first use, as before. Nothing is
// reported: this only changes when the faults happen.
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

// This object's own ELF header, defined by the linker (GNU ld, gold and lld) in every object it
// links: libkiln.so's, or the benchmark program's that links this file.
extern "C" const ElfW(Ehdr) __ehdr_start;

namespace {

void map_own_code_in() {
  const ElfW(Ehdr)& header = __ehdr_start;
  const auto* start = reinterpret_cast<const char*>(&header);
  const auto* segments = reinterpret_cast<const ElfW(Phdr)*>(start + header.e_phoff);
  // The header lies at the start of the first loadable segment (file offset 0), so that segment's
  // address says where the object was loaded.
  const ElfW(Phdr)* first = nullptr;
  for (int i = 0; i < header.e_phnum; ++i) {
    if (segments[i].p_type == PT_LOAD) {
      first = &segments[i];
      break;
    }
  }
  if (first == nullptr || first->p_offset != 0) return;
  const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(start) - first->p_vaddr;
  const long page_size = sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return;
  const auto page = static_cast<std::uintptr_t>(page_size);
  for (int i = 0; i < header.e_phnum; ++i) {
    const ElfW(Phdr)& segment = segments[i];
    // Not the writable segment: its relocated part is written at load already, and populating the
    // rest (.bss) would allocate pages a program may never write.
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_W) != 0) continue;
    const std::uintptr_t begin = (base + segment.p_vaddr) & ~(page - 1);
    const std::uintptr_t end = base + segment.p_vaddr + segment.p_filesz;
    (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_READ);
  }
}

__attribute__((constructor)) void kiln_map_code_in_at_load() { map_own_code_in(); }

}  // namespace
