#include "index_pages_fixture.hpp"

#include "test_process.hpp"

#include "api/abi_guard.hpp"
#include "core/package.hpp"
#include "writer/package_contents.hpp"
#include "format/package_reader.hpp"
#include "writer/package_writer.hpp"
#include "package_fixture.hpp"

#include <cstring>
#include <fstream>

namespace kiln::testing {

std::string tile_name(std::uint32_t i) { return "ops::tile<" + std::to_string(i % 7) + ", " + std::to_string(i) + ">"; }

PackageSpec paged_spec() {
  PackageSpec spec;
  for (std::uint32_t u = 0; u * 100 < k_paged_kernels; ++u) spec.units.push_back({"unit_" + std::to_string(u) + ".cu", {"sm_90", "compute_90"}});
  for (std::uint32_t i = 0; i < k_paged_kernels; ++i) {
    spec.kernels.push_back(KernelSpec(tile_name(i), "unit_" + std::to_string(i / 100) + ".cu", {8, 4})
                               .with_lowered("_ZN3ops4tileILi" + std::to_string(i % 7) + "ELi" + std::to_string(i) + "EEEvPfi"));
  }
  return spec;
}

Bytes paged_package(std::uint32_t page_size) {
  const Bytes bytes = build_package(paged_spec());
  return page_size == format::k_index_page_size ? bytes : format::testing::with_index_page_size(bytes, page_size);
}

std::uint32_t index_in(const Bytes& bytes, const std::string& name) {
  format::PackageReader reader;
  EXPECT_TRUE(reader.open(bytes));
  return reader.find_kernel(name).value_or(UINT32_MAX);
}

template <class Record>
void edit_record(Bytes& bytes, format::SectionKind kind, std::uint32_t i, const std::function<void(Record&)>& edit) {
  Record record = format::testing::get_record<Record>(bytes, kind, i);
  edit(record);
  format::testing::set_record(bytes, kind, i, record);
  format::testing::reseal(bytes);
}

template void edit_record(Bytes&, format::SectionKind, std::uint32_t, const std::function<void(format::KernelRecord&)>&);
template void edit_record(Bytes&, format::SectionKind, std::uint32_t, const std::function<void(format::NameRecord&)>&);
template void edit_record(Bytes&, format::SectionKind, std::uint32_t, const std::function<void(format::TargetRecord&)>&);
template void edit_record(Bytes&, format::SectionKind, std::uint32_t, const std::function<void(format::KernelTargetRecord&)>&);
template void edit_record(Bytes&, format::SectionKind, std::uint32_t, const std::function<void(format::MetadataRecord&)>&);
template void edit_record(Bytes&, format::SectionKind, std::uint32_t, const std::function<void(format::ImageRecord&)>&);

void PagedFileTest::SetUp() {
  RuntimeTest::SetUp();
  m_path = std::filesystem::temp_directory_path() / ("kiln_index_pages_" + std::to_string(kiln::test::process_id()) + ".kiln");
  reading("1");
}

void PagedFileTest::TearDown() {
  kiln::test::unset_variable("KILN_INDEX_PAGES");
  std::filesystem::remove(m_path);
  RuntimeTest::TearDown();
}

void PagedFileTest::reading(const char* value) { kiln::test::set_variable("KILN_INDEX_PAGES", value); }

void PagedFileTest::write(const Bytes& bytes) const {
  std::ofstream(m_path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

kiln::Package PagedFileTest::open_path() const { return kiln::Package::open_file(m_path.string()); }

std::string PagedFileTest::refused_whole() const {
  reading("0");
  std::string message = error_of([&] { open_path(); }, KILN_STATUS_CORRUPT);
  reading("1");
  return message;
}

const core::Package& PagedFileTest::core_of(const kiln::Package& package) { return *api::from_handle(package.get()); }

const format::IndexPageLoader* PagedFileTest::pages_of(const kiln::Package& package) { return core_of(package).index_pages(); }

}  // namespace kiln::testing
