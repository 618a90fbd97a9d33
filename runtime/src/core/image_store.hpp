// The checked, decoded bytes of each image, produced once and kept as long as the package: the
// driver (cuLibraryLoadData) and other loaders (kiln_package_select_image hands the bytes to CuPy or
// cuda.core) may keep pointing into them. Safe to use from many threads at once.
#pragma once

#include "core/package_source.hpp"
#include "util/result.hpp"
#include "format/package_reader.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace kiln::core {

// "kernels/ops.cu [sm_90]": an image as messages name it.
std::string image_name(const format::PackageReader& reader, std::uint32_t image);

class ImageStore {
public:
  ImageStore(const format::PackageReader& reader, const PackageSource& source, std::string label);

  // The bytes of `image`: read from the file if the package is one (PackageSource::fetch), its
  // checksum checked, decoded if compressed, and checked as an image the driver can read
  // (format::check_image), on the first call; later calls return the same span. A raw image is a
  // view into the package's bytes unless its address is not 8-byte aligned (a borrowed buffer), when
  // it is copied: ELF loaders want aligned cubins. A failure is kept and returned again (the bytes
  // will not change) except OUT_OF_MEMORY, which a later call retries.
  Status bytes(std::uint32_t image, std::span<const std::byte>& out);

private:
  struct Slot {
    std::mutex mutex;                       // held while the image is checked and decoded
    std::atomic<bool> ready{false};         // `view` is set; published with release
    std::span<const std::byte> view;
    std::vector<std::byte> owned;           // decoded or realigned bytes, when `view` points here
    Status failure;                         // under `mutex`: the kept failure, if any
  };
  Status produce(std::uint32_t image, Slot& slot) const;

  const format::PackageReader& m_reader;
  const PackageSource& m_source;
  std::string m_label;
  std::unique_ptr<Slot[]> m_slots;          // one per image; never reallocated (the mutexes do not move)
  std::size_t m_slot_count = 0;
};

}  // namespace kiln::core
