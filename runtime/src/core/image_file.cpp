#include "core/image_file.hpp"

namespace kiln::core {

Status ImageFile::open(bool log, format::Checksums checksums) {
  KILN_TRY(source.index_deferred() ? reader.open_deferred(source.bytes(), label)
                                   : reader.open(source.bytes(), label, checksums));
  if (source.index_deferred()) {
    index_pages = std::make_unique<format::IndexPageLoader>(
        reader.index_pages(), source.bytes(),
        [this](std::uint64_t offset, std::uint64_t size) { return source.read_index_page(offset, size); },
        [this] { return source.check_unchanged(); });
    reader.use_pages(index_pages.get());
    KILN_TRY(reader.check_metadata());
  }
  images = std::make_unique<ImageStore>(reader, source, label);
  libraries = std::make_unique<LibraryCache>(reader, *images, label, log);
  return {};
}

Status ImageFile::check_kernel(std::uint32_t index) const { return reader.check_kernel(index); }

Status ImageFile::check_name(const format::NameHit& hit, std::string_view name) const { return reader.check_name(hit, name); }

Status ImageFile::checked_index() const { return reader.check_all(); }

}  // namespace kiln::core
