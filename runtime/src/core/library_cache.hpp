// One CUlibrary per image, loaded at most once and shared by every kernel of the image's unit and
// every device that chose the same image (libraries are context-independent). Loads of different
// images proceed in parallel; concurrent requests for one image wait for the single load.
#pragma once

#include "core/device.hpp"
#include "core/image_choice.hpp"
#include "core/image_store.hpp"
#include "util/result.hpp"
#include "driver/driver_api.hpp"
#include "format/package_reader.hpp"
#include "select/select_image.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

// Who asked for an image, for messages and the KILN_LOG line.
struct LoadRequest {
  std::uint32_t image = 0;           // index into IMAGES
  std::string_view subject;          // "block_sum<float, 256>", "variable 'table'"
  DeviceQuery* device = nullptr;     // described in a failure's message and the log line
  const ImageChoice* choice = nullptr;   // its description() is the log line's
};

class LibraryCache {
public:
  // `images` gives the bytes to load and must outlive the cache.
  LibraryCache(const format::PackageReader& reader, ImageStore& images, std::string label, bool log);

  // The library of `request.image`, loading it on first use: the image's checked, decoded bytes
  // (ImageStore), then cuLibraryLoadData. Failures are not cached, so a later call tries again.
  Status load(driver::DriverApi& driver, const LoadRequest& request, driver::CUlibrary& out);

  // The driver's JIT log from loading `image` ("" if none). A PTX image that fails to compile still
  // loads "successfully"; the error surfaces at cuLibraryGetKernel, and this log says why.
  // Call only after load() returned the image's library.
  const std::string& jit_log(std::uint32_t image) const;

  std::string image_name(std::uint32_t image) const;    // "kernels/ops.cu [sm_90]"

  // Unloads every loaded library; the cache is empty afterwards. Not safe against concurrent load().
  void unload_all(driver::DriverApi& driver);

private:
  struct Slot {
    std::mutex mutex;                                   // held for the whole load of this image
    std::atomic<driver::CUlibrary> library{nullptr};    // published after the load
    std::string jit_log;                                // written once, before `library` is published
  };
  Status load_locked(driver::DriverApi& driver, const LoadRequest& request, Slot& slot);

  const format::PackageReader& m_reader;
  ImageStore& m_images;
  std::string m_label;
  bool m_log;
  std::unique_ptr<Slot[]> m_slots;   // one per image; never reallocated (the mutexes do not move)
  std::size_t m_slot_count = 0;
};

}  // namespace kiln::core
