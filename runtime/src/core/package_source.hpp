// The bytes of an open package: a read-only private mapping of a file, a copy of the caller's
// buffer, or the caller's buffer itself. The reader's views point into these bytes, so they stay
// put (no reallocation, no remapping) for the package's lifetime.
#pragma once

#include "core/status.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace kiln::core {

class PackageSource {
public:
  PackageSource() = default;
  ~PackageSource();
  PackageSource(const PackageSource&) = delete;
  PackageSource& operator=(const PackageSource&) = delete;

  // Maps `path` with mmap(PROT_READ, MAP_PRIVATE). An empty file is TRUNCATED (there is no header to
  // map); a directory, a missing file or a non-regular file is IO_ERROR.
  Status map_file(const char* path);
  // Copies `size` bytes: the caller may free its buffer as soon as this returns.
  void copy(const void* data, std::size_t size);
  // Uses the caller's bytes in place; they must outlive this object.
  void borrow(const void* data, std::size_t size);

  std::span<const std::byte> bytes() const { return m_view; }

private:
  void* m_map = nullptr;  // non-null: munmap on destruction
  std::size_t m_map_size = 0;
  std::vector<std::byte> m_copy;
  std::span<const std::byte> m_view;
};

}  // namespace kiln::core
