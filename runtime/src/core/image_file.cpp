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
  }
  return KILN_STATUS_CORRUPT;
}

Status ImageFile::open(bool log) {
  const format::ReadError error = reader.open(source.bytes(), label);
  if (error) return fail(status_of(error.code), error.message);
  images = std::make_unique<ImageStore>(reader, source, label);
  libraries = std::make_unique<LibraryCache>(reader, *images, label, log);
  return {};
}

}  // namespace kiln::core
