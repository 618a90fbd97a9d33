#include "core/image_file.hpp"

namespace kiln::core {

kiln_status status_of(format::ReadErrorCode code) {
  switch (code) {
    case format::ReadErrorCode::none: return KILN_STATUS_SUCCESS;
    case format::ReadErrorCode::not_a_package: return KILN_STATUS_NOT_A_PACKAGE;
    case format::ReadErrorCode::unsupported_version: return KILN_STATUS_UNSUPPORTED_VERSION;
    case format::ReadErrorCode::truncated: return KILN_STATUS_TRUNCATED;
    case format::ReadErrorCode::corrupt: return KILN_STATUS_CORRUPT;
    case format::ReadErrorCode::image_corrupt: return KILN_STATUS_IMAGE_CORRUPT;
    case format::ReadErrorCode::io: return KILN_STATUS_IO_ERROR;
  }
  return KILN_STATUS_CORRUPT;
}

Status ImageFile::open(bool log) {
  const format::ReadError error =
      source.index_deferred() ? reader.open_deferred(source.bytes(), label) : reader.open(source.bytes(), label);
  if (error) return fail(status_of(error.code), error.message);
  if (source.index_deferred()) {
    index_pages = std::make_unique<format::IndexPageLoader>(
        reader.index_pages(), source.bytes(),
        [this](std::uint64_t offset, std::uint64_t size) { return source.read_index_page(offset, size); },
        [this] { return source.changed_since_open(); });
    reader.use_pages(index_pages.get());
    if (const format::ReadError checked = reader.check_metadata()) return fail(status_of(checked.code), checked.message);
  }
  images = std::make_unique<ImageStore>(reader, source, label);
  libraries = std::make_unique<LibraryCache>(reader, *images, label, log);
  return {};
}

Status ImageFile::check_kernel(std::uint32_t index) const {
  const format::ReadError error = reader.check_kernel(index);
  return error ? fail(status_of(error.code), error.message) : Status{};
}

Status ImageFile::check_name(const format::NameHit& hit, std::string_view name) const {
  const format::ReadError error = reader.check_name(hit, name);
  return error ? fail(status_of(error.code), error.message) : Status{};
}

Status ImageFile::checked_index() const {
  const format::ReadError error = reader.check_all();
  return error ? fail(status_of(error.code), error.message) : Status{};
}

}  // namespace kiln::core
