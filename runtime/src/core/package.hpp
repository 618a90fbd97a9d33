// An open package: its bytes, the reader over them, and everything loaded from it (libraries per
// image, kernels per index, device attributes). This is what a kiln_package handle points to.
// Every member function is safe to call from many threads at once, except destruction.
#pragma once

#include "core/compiled_kernels.hpp"
#include "core/device.hpp"
#include "core/driver_access.hpp"
#include "core/image_choice.hpp"
#include "core/image_file.hpp"
#include "core/image_store.hpp"
#include "core/library_cache.hpp"
#include "core/package_source.hpp"
#include "core/split_companions.hpp"
#include "util/once.hpp"
#include "util/result.hpp"
#include "format/package_reader.hpp"
#include "platform/shared_mutex.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kiln::core {

class Kernel;

// The library a unit loaded for a device, and which image of which file it came from.
struct UnitLibrary {
  driver::CUlibrary library = nullptr;
  const ImageFile* file = nullptr;   // the package's own file, or a split companion
  std::uint32_t image = 0;           // in file's IMAGES
  DeviceQuery device;                // the device it was chosen for (messages describe it)
};

// The image chosen for a kernel on a device, handed to a loader other than Kiln's (CuPy, cuda.core,
// cuModuleLoadData). Every pointer lives as long as the package.
struct SelectedImage {
  std::span<const std::byte> bytes;    // checked and decoded; PTX ends in its NUL
  format::TargetKind kind = format::TargetKind::sass;
  std::uint16_t arch = 0;              // the device's compute capability, major * 10 + minor
  const char* target = nullptr;        // "sm_90"
  const char* kernel_name = nullptr;   // canonical
  const char* lowered_name = nullptr;  // the symbol to look up in the image
  const char* description = nullptr;   // "cubin sm_90 (exact match)"
};

// How a kernel runs on a device (kiln_coverage).
enum class Coverage { cubin, ptx, runtime_compile, none };

class Package {
public:
  // Open and check the header and index; no image is read and no driver is touched.
  static Status open_file(const char* path, std::unique_ptr<Package>& out);
  static Status open_memory(const void* data, std::size_t size, bool copy, const char* label,
                            std::unique_ptr<Package>& out);
  // A package compiled at run time for another (CompiledKernels), in bytes the caller keeps alive:
  // opened with that package's options rather than the environment's again, and with the content
  // checksums computed or not as `checksums` says (a direct record's were checked by the store).
  static Status open_compiled(std::span<const std::byte> bytes, std::string label, const RuntimeOptions& options,
                              format::Checksums checksums, std::unique_ptr<Package>& out);
  ~Package();  // unloads every library this package loaded
  Package(const Package&) = delete;
  Package& operator=(const Package&) = delete;

  const format::PackageReader& reader() const { return m_reader; }
  // What using kernel `index` trusts, and the whole index, checked (at first use for a file whose
  // index is read by pages; a no-op otherwise: image_file.hpp).
  Status checked_kernel(std::uint32_t index) const { return m_own.checked_kernel(index); }
  Status checked_index() const { return m_own.checked_index(); }
  // The loader of the file's index pages when its index is read by pages, else null (diagnostics).
  const format::IndexPageLoader* index_pages() const { return m_own.index_pages.get(); }
  const std::string& label() const { return m_label; }
  const RuntimeOptions& options() const { return m_options; }

  // The index of the kernel with any recorded name; KERNEL_NOT_FOUND lists the nearest. No driver.
  Status find_kernel(std::string_view name, std::uint32_t& index) const;
  // Finds a kernel by any recorded name and resolves it on the current device; a kernel the package
  // lacks, or has no image of for the device, is compiled at run time when the package carries its
  // sources (compiled_kernels.hpp).
  Status get_kernel(std::string_view name, Kernel*& out);
  // Kernels this process found in packages' own images (kiln_cache_get_stats' package_hits).
  static std::uint64_t package_hits();
  // get_kernel from the package's own images alone, counting nothing; `canonical` is the kernel's
  // name once it is found.
  Status get_own_kernel(std::string_view name, Kernel*& out, const char*& canonical);
  // The same on `device`, which the caller found current (a kernel compiled at run time is adopted
  // for the device its target was asked of): the driver is not asked again.
  Status get_own_kernel_on(driver::CUdevice device, std::string_view name, Kernel*& out, const char*& canonical);

  // The image get_kernel would load for kernel `index` on CUDA device `ordinal` (-1: the current
  // context's device, else device 0; no context is created), checked and decoded but not loaded.
  Status select_image(std::uint32_t index, int ordinal, SelectedImage& out);
  // The same choice for a device of compute capability `arch` (not integrated) whose driver is
  // `driver_version` (0: new enough for the package). Needs no driver.
  Status select_image_for_arch(std::uint32_t index, std::uint32_t arch, int driver_version, SelectedImage& out);
  // How kernel `index` runs on a device of `arch` with `driver_version`: select_image_for_arch's
  // choice, or without one, run-time compilation when its unit's sources are carried.
  Status kernel_coverage(std::size_t index, std::uint32_t arch, int driver_version, Coverage& out);
  // The address and size of a variable in the current context.
  Status get_global(std::string_view name, driver::CUdeviceptr& pointer, std::size_t& size);
  // Loads every unit's image and every kernel for the current device.
  Status preload();

  // The per-thread message of this package's last failure ("" if none). The pointer stays valid until
  // the same thread records another failure on this package.
  // Const: the last error is not part of what the package holds (kiln_package_find_kernel takes a
  // const package and still records its failure).
  void record_error(const std::string& message) const;
  const char* last_error() const;
  // A package compiled at run time for another: its failures are that package's too.
  void report_errors_to(const Package* parent) { m_error_parent = parent; }

  // For kernels: the driver (acquired on the first call), the current device, and the library a
  // unit loaded for a device (choosing and loading the image on first use).
  Status current(driver::DriverApi*& driver, driver::CUdevice& device);
  // `kernel`: the kernel that asks, whose images may be fewer than the unit's.
  Status library_for(driver::DriverApi& driver, std::uint32_t unit, driver::CUdevice device,
                     std::string_view subject, UnitLibrary& out, std::optional<std::uint32_t> kernel = std::nullopt);
  // What is known of the driver's devices (the process's, shared by every package). Only once the
  // driver is acquired (current() succeeded, or a kernel resolved).
  DeviceCache& devices() { return *m_driver.devices; }
  // The driver, once acquired: a kernel that resolved has it.
  driver::DriverApi* acquired_driver() { return m_driver.driver.get(); }
  static std::string image_name(const UnitLibrary& loaded);   // "kernels/ops.cu [sm_90]", and the file if a companion's
  // "\nJIT log:\n..." from loading the image, or "" (see LibraryCache::jit_log).
  static std::string jit_log_suffix(const UnitLibrary& loaded);

private:
  Package(std::string label, RuntimeOptions options);
  // path: empty for a package in memory.
  Status open_reader(std::string_view path, format::Checksums checksums = format::Checksums::check);
  Status acquire_driver_once(driver::DriverApi*& out);
  // get_own_kernel's work on `known_device`, or (null) on the current device, asked of the driver.
  Status own_kernel(std::string_view name, const driver::CUdevice* known_device, Kernel*& out, const char*& canonical);
  Kernel* kernel_at(std::uint32_t index);
  // select_image's shared end: choose among the unit's images, then check and decode the one chosen.
  Status select_for(std::uint32_t index, DeviceQuery& device, SelectedImage& out);
  // choose_image over this file and, for a split package, the companion of the device's major:
  // its cubins first (a cubin runs only on its own major, and beats PTX), then this file's PTX.
  Status choose(std::uint32_t unit, DeviceQuery& device, const ImageRequester& requester, const ImageFile*& file,
                ImageChoice& out);
  // A copy of `text` that lives as long as the package (descriptions handed out through the C ABI).
  const char* keep(std::string text);

  ImageFile m_own;                        // the file opened
  format::PackageReader& m_reader;        // m_own.reader, by the name most of the code uses
  std::string m_label;
  RuntimeOptions m_options;
  std::unique_ptr<SplitCompanions> m_companions;   // a split package's main file only

  Once m_driver_once;   // takes m_driver once (util/once.hpp: no system call on a first request)
  DriverAccess m_driver;

  // One slot per KERNELS record, filled on first use under m_kernels_mutex and read without it; the
  // package deletes what they point to.
  std::mutex m_kernels_mutex;
  std::unique_ptr<std::atomic<Kernel*>[]> m_kernels;

  std::mutex m_kept_mutex;
  std::unordered_set<std::string> m_kept;  // node-based: the strings never move

  std::unique_ptr<CompiledKernels> m_compiled;   // created with the reader

  const Package* m_error_parent = nullptr;
  mutable std::mutex m_errors_mutex;
  mutable std::unordered_map<std::thread::id, std::string> m_errors;
};

}  // namespace kiln::core
