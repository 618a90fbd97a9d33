// Shared by the tests of indexes read by pages (index_pages_test.cpp, paged_answers_test.cpp): a
// package large enough to be read by pages, a file to open it from with KILN_INDEX_PAGES set, and
// byte-level edits that reach the tables' rules (every checksum made right again).
#pragma once

#include "runtime_fixture.hpp"

#include "format/index_pages.hpp"
#include "format/layout.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace kiln::core {
class Package;
}

namespace kiln::testing {

inline constexpr std::uint32_t k_paged_kernels = 2000;   // an index of about 180 KiB: dozens of pages

// "ops::tile<3, 1234>": kernel i of paged_package.
std::string tile_name(std::uint32_t i);

// k_paged_kernels kernels "ops::tile<i % 7, i>" with parameters (8, 4) in units of 100
// ("unit_<i / 100>.cu"), each unit with an sm_90 cubin and compute_90 PTX.
PackageSpec paged_spec();
// paged_spec() written, with index pages of `page_size` bytes (the writer's, or laid out again).
Bytes paged_package(std::uint32_t page_size = format::k_index_page_size);

// The KERNELS index of the kernel named `name` in `bytes`, opened whole (KERNELS is sorted by lowered
// name, not in writing order).
std::uint32_t index_in(const Bytes& bytes, const std::string& name);

// Record `i` of a record section of `bytes`, changed by `edit`, every checksum made right again.
template <class Record>
void edit_record(Bytes& bytes, format::SectionKind kind, std::uint32_t i, const std::function<void(Record&)>& edit);

class PagedFileTest : public RuntimeTest {
protected:
  void SetUp() override;
  void TearDown() override;
  // KILN_INDEX_PAGES: "0" reads every index whole, "1" every one by pages.
  static void reading(const char* value);
  void write(const Bytes& bytes) const;
  kiln::Package open_path() const;
  // What opening the file whole says (KILN_INDEX_PAGES=0), which must be CORRUPT; reading by pages again after.
  std::string refused_whole() const;
  static const core::Package& core_of(const kiln::Package& package);
  static const format::IndexPageLoader* pages_of(const kiln::Package& package);

  std::filesystem::path m_path;
};

}  // namespace kiln::testing
