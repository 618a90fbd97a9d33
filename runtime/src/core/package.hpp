// An open package: its bytes, the reader over them, and everything loaded from it (libraries per
// image, kernels per index, device attributes). This is what a kiln_package handle points to.
// Every member function is safe to call from many threads at once, except destruction.
#pragma once

#include "core/device.hpp"
#include "core/driver_access.hpp"
#include "core/image_choice.hpp"
#include "core/library_cache.hpp"
#include "core/package_source.hpp"
#include "core/status.hpp"
#include "format/package_reader.hpp"

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

namespace kiln::core {

class Kernel;

// The library a unit loaded for a device, and which image it came from.
struct UnitLibrary {
  driver::CUlibrary library = nullptr;
  std::uint32_t image = 0;
  select::DeviceProfile profile;
};

class Package {
public:
  // Open and check the header and index; no image is read and no driver is touched.
  static Status open_file(const char* path, std::unique_ptr<Package>& out);
  static Status open_memory(const void* data, std::size_t size, bool copy, const char* label,
                            std::unique_ptr<Package>& out);
  ~Package();  // unloads every library this package loaded
  Package(const Package&) = delete;
  Package& operator=(const Package&) = delete;

  const format::PackageReader& reader() const { return m_reader; }
  const std::string& label() const { return m_label; }

  // Finds a kernel by any recorded name and resolves it on the current device.
  Status get_kernel(std::string_view name, Kernel*& out);
  // The address and size of a variable in the current context.
  Status get_global(std::string_view name, driver::CUdeviceptr& pointer, std::size_t& size);
  // Loads every unit's image and every kernel for the current device.
  Status preload();

  // The per-thread message of this package's last failure ("" if none). The pointer stays valid until
  // the same thread records another failure on this package.
  void record_error(const std::string& message);
  const char* last_error() const;

  // For kernels: the driver (acquired on the first call), the current device, and the library a
  // unit loaded for a device (choosing and loading the image on first use).
  Status current(driver::DriverApi*& driver, driver::CUdevice& device);
  Status library_for(driver::DriverApi& driver, std::uint32_t unit, driver::CUdevice device,
                     std::string_view subject, UnitLibrary& out);
  DeviceCache& devices() { return m_devices; }
  std::string image_name(std::uint32_t image) const;   // "kernels/ops.cu [sm_90]"
  // "\nJIT log:\n..." from loading `image`, or "" (see LibraryCache::jit_log).
  std::string jit_log_suffix(std::uint32_t image) const;

private:
  Package(std::string label);
  Status open_reader();
  Status acquire_driver_once(driver::DriverApi*& out);
  Kernel* kernel_at(std::uint32_t index);

  PackageSource m_source;                 // first: the reader points into it
  format::PackageReader m_reader;
  std::string m_label;
  RuntimeOptions m_options;
  std::unique_ptr<LibraryCache> m_libraries;

  std::once_flag m_driver_once;
  DriverAccess m_driver;                  // written once under m_driver_once

  DeviceCache m_devices;

  std::shared_mutex m_kernels_mutex;
  std::vector<std::unique_ptr<Kernel>> m_kernels;  // one slot per KERNELS record, filled on first use

  mutable std::mutex m_errors_mutex;
  std::unordered_map<std::thread::id, std::string> m_errors;
};

}  // namespace kiln::core
