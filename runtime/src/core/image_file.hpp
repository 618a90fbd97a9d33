// One package file as the loader uses it: its bytes, the checked index over them, the images
// decoded from it and the libraries loaded from those. A package is one such file, plus, when it is
// the main file of a split package, the companions beside it (split_companions.hpp).
#pragma once

#include "core/image_store.hpp"
#include "core/library_cache.hpp"
#include "core/package_source.hpp"
#include "util/result.hpp"
#include "format/package_reader.hpp"

#include <memory>
#include <string>

namespace kiln::core {

struct ImageFile {
  PackageSource source;                   // first: the reader points into it
  std::unique_ptr<format::IndexPageLoader> index_pages;   // a deferred index's (source.index_deferred())
  format::PackageReader reader;
  std::string label;                      // the path, or what names a package in memory
  std::unique_ptr<ImageStore> images;     // before libraries, which load from it
  std::unique_ptr<LibraryCache> libraries;

  // Checks the bytes `source` holds as a package (or, for a deferred index, its header, TOC,
  // INDEX_PAGES and METADATA, which a split package's companions are found by: the rest is checked
  // at first use) and makes the stores over them. `log`: KILN_LOG. `checksums`: whether the content
  // checksums are computed (a file's, always) or the caller has checked the same bytes (a direct
  // record's package, format::Checksums).
  Status open(bool log, format::Checksums checksums = format::Checksums::check);
  // What using kernel `index` trusts, checked (a deferred index; else nothing to do).
  Status checked_kernel(std::uint32_t index) const { return reader.kernel_checked(index) ? Status{} : check_kernel(index); }
  // What handing out the kernel that `name` found trusts (format::PackageReader::check_name).
  // Inline: every lookup asks.
  Status checked_name(const format::NameHit& hit, std::string_view name) const {
    return reader.name_checked(hit.record) ? Status{} : check_name(hit, name);
  }
  // The whole index checked, as a file opened whole is at open (once).
  Status checked_index() const;

private:
  Status check_kernel(std::uint32_t index) const;
  Status check_name(const format::NameHit& hit, std::string_view name) const;
};

}  // namespace kiln::core
