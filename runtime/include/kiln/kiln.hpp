// Kiln runtime, C++ interface: RAII and exceptions over the C ABI in kiln.h (header-only, so it
// adds nothing to the library's ABI: a program built against this header talks only to kiln_*).
//
//   kiln::Package package = kiln::Package::open_file("app.kiln");   // or Package::open("app")
//   kiln::Kernel saxpy = package.kernel("saxpy");
//   saxpy.launch(blocks, 256, 0, stream, a, x, y, n);   // sizes checked against the package
//   package.kernel(kiln::name_of<float, kiln::value<256>>("block_sum"))   // "block_sum<float, 256>"
//       .launch(kiln::LaunchConfig{.grid = blocks, .block = 256, .cluster = {2, 1, 1}}, in, out, n);
//   kiln::Image image = package.image("saxpy");          // or the bytes, for another loader
//
// The parts: kiln/error.hpp (kiln::Error), kiln/kernel.hpp (Kernel, LaunchConfig, attributes and
// occupancy), kiln/name_of.hpp (kernel names from C++ types and values); this file the package.
// Programs compiled at run time and the cache's counters are kiln/program.hpp's, which a program that
// uses them includes itself (it includes this header).
//
// Every failure throws kiln::Error, which carries the kiln_status and the library's message.
// Lifetime: a Kernel is a non-owning view; it is valid as long as the Package it came from.
// Thread safety: as for the C ABI, every object may be used from many threads at once.
#ifndef KILN_KILN_HPP
#define KILN_KILN_HPP

#include "kiln/error.hpp"
#include "kiln/kernel.hpp"
#include "kiln/kiln.h"
#include "kiln/name_of.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#if __cplusplus >= 202002L
#  include <span>
#endif

#if defined(__GNUC__)
#  define KILN_CXX_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#  define KILN_CXX_ALWAYS_INLINE inline
#endif

namespace kiln {

// The version of the library actually loaded (KILN_VERSION encoding), which may differ from the header's.
inline std::uint32_t version() noexcept { return kiln_version(); }

// A __device__ / __constant__ variable in the current context.
struct Global {
  std::uint64_t device_pointer = 0;  // a CUdeviceptr
  std::size_t size = 0;              // bytes
};

// An image chosen for a kernel and a device, for another loader (kiln_package_select_image).
// Non-owning: everything it points to lives as long as the Package it came from.
struct Image {
  enum class Kind : std::uint32_t { cubin = KILN_IMAGE_CUBIN, ptx = KILN_IMAGE_PTX };
  const std::byte* data = nullptr;      // checked and decoded; 8-byte aligned
  std::size_t size = 0;                 // bytes; for PTX this counts the terminating NUL
  Kind kind = Kind::cubin;
  std::uint32_t compute_capability = 0; // the device it was chosen for: major * 10 + minor
  std::string_view target;              // "sm_90", "compute_75"
  std::string_view kernel_name;         // canonical
  std::string_view lowered_name;        // the symbol to look up in the image (NUL-terminated: .data())
  std::string_view description;         // "cubin sm_90 (exact match)"

#if __cplusplus >= 202002L
  std::span<const std::byte> bytes() const noexcept { return {data, size}; }
#endif

  static Image from_c(const kiln_image& i) {
    return Image{static_cast<const std::byte*>(i.data), i.size, static_cast<Kind>(i.kind), i.compute_capability,
                 i.target, i.kernel_name, i.lowered_name, i.description};
  }
};

// An open package. Move-only; destroying it unloads every image it loaded.
class Package {
public:
  Package() noexcept = default;
  // Takes ownership of a handle from the C interface.
  explicit Package(kiln_package* package) noexcept : m_package(package) {}
  ~Package() { kiln_package_destroy(m_package); }
  Package(Package&& other) noexcept : m_package(std::exchange(other.m_package, nullptr)) {}
  Package& operator=(Package&& other) noexcept {
    if (this != &other) {
      kiln_package_destroy(m_package);
      m_package = std::exchange(other.m_package, nullptr);
    }
    return *this;
  }
  Package(const Package&) = delete;
  Package& operator=(const Package&) = delete;

  // Maps the file read-only; images are decoded only when a device needs them.
  static Package open_file(const std::string& path) {
    kiln_package* p = nullptr;
    detail::check(kiln_package_open_file(path.c_str(), &p));
    return Package(p);
  }

  // Opens the package called `name` (no ".kiln"): embedded in a module of this process, else
  // <name>.kiln next to the executable or shared library that calls this, else in a directory of
  // $KILN_PACKAGE_PATH. Throws PACKAGE_NOT_FOUND listing every place looked. Always inlined, so that
  // the C call, and with it the "calling module", is in the caller's module, not wherever an
  // out-of-line copy of this function happened to be kept.
  KILN_CXX_ALWAYS_INLINE static Package open(const std::string& name) {
    kiln_package* p = nullptr;
    detail::check(kiln_package_open_named(name.c_str(), &p));
    return Package(p);
  }

  // Opens bytes in memory. KILN_OPEN_COPY copies them; KILN_OPEN_BORROW uses them in place, and
  // they must then outlive the package (e.g. a package embedded in the executable).
  static Package open_memory(const void* data, std::size_t size, std::uint32_t flags = KILN_OPEN_COPY,
                             const char* label = nullptr) {
    kiln_package* p = nullptr;
    detail::check(kiln_package_open_memory(data, size, flags, label, &p));
    return Package(p);
  }

  kiln_package* get() const noexcept { return m_package; }
  kiln_package* release() noexcept { return std::exchange(m_package, nullptr); }
  explicit operator bool() const noexcept { return m_package != nullptr; }

  // Finds a kernel by any recorded name and makes it launchable on the current device (loading its
  // image on first use). Throws KERNEL_NOT_FOUND with the nearest names when there is no such kernel.
  Kernel kernel(const std::string& name) const {
    kiln_kernel* k = nullptr;
    detail::check(kiln_package_get_kernel(m_package, name.c_str(), &k));
    return Kernel(k);
  }

  // The index of the kernel with any recorded name (for kiln_package_kernel_name). No driver needed.
  std::size_t find_kernel(const std::string& name) const {
    std::size_t index = 0;
    detail::check(kiln_package_find_kernel(m_package, name.c_str(), &index));
    return index;
  }

  // The image kernel(name) would load on CUDA device `device` (KILN_CURRENT_DEVICE: the current
  // context's device, else device 0), checked and decoded but not loaded, for another loader.
  Image image(const std::string& name, int device = KILN_CURRENT_DEVICE) const {
    kiln_image out{};
    out.struct_size = sizeof(out);
    detail::check(kiln_package_select_image(m_package, name.c_str(), device, &out));
    return Image::from_c(out);
  }

  // The same choice for a device of `compute_capability` (90 for 9.0) with a driver of
  // `driver_version` (13000 for CUDA 13.0; 0: new enough for the package). No driver needed.
  Image image_for_arch(const std::string& name, std::uint32_t compute_capability, int driver_version = 0) const {
    kiln_image out{};
    out.struct_size = sizeof(out);
    detail::check(
        kiln_package_select_image_for_arch(m_package, name.c_str(), compute_capability, driver_version, &out));
    return Image::from_c(out);
  }

  // How kernel `name` runs on a device of `compute_capability` with a driver of `driver_version`
  // (0: new enough): from a cubin, from PTX, compiled at run time from carried sources, or not at all.
  kiln_coverage coverage(const std::string& name, std::uint32_t compute_capability, int driver_version = 0) const {
    kiln_coverage out = KILN_COVERAGE_NONE;
    detail::check(kiln_package_kernel_coverage(m_package, find_kernel(name), compute_capability, driver_version, &out));
    return out;
  }

  // The address and size of a device variable in the current context.
  Global global(const std::string& name) const {
    Global g;
    detail::check(kiln_package_get_global(m_package, name.c_str(), &g.device_pointer, &g.size));
    return g;
  }

  // Loads every image and kernel for the current device now, so later calls load nothing.
  void preload() const { detail::check(kiln_package_preload(m_package)); }

  // Canonical kernel names, in the package's order (sorted by lowered name). No driver needed.
  // Throws kiln::Error (KILN_STATUS_CORRUPT) when a record is damaged or cannot be read, which a
  // package whose index is read by pages finds only here (docs/runtime.md, "Large indexes").
  std::vector<std::string> kernel_names() const {
    std::vector<std::string> out;
    const std::size_t n = kiln_package_kernel_count(m_package);
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.emplace_back(text_or_throw(kiln_package_kernel_name(m_package, i)));
    return out;
  }

  // Target strings the package was built for ("sm_90a", "compute_75"). No driver needed. Throws as
  // kernel_names() does.
  std::vector<std::string> targets() const {
    std::vector<std::string> out;
    const std::size_t n = kiln_package_target_count(m_package);
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.emplace_back(text_or_throw(kiln_package_target(m_package, i)));
    return out;
  }

private:
  // A string from kiln_package_kernel_name or kiln_package_target for an index in range: NULL only
  // when its record failed its checks.
  const char* text_or_throw(const char* text) const {
    if (text == nullptr) throw kiln::Error(KILN_STATUS_CORRUPT, kiln_package_last_error(m_package));
    return text;
  }

  kiln_package* m_package = nullptr;
};

}  // namespace kiln

#endif  // KILN_KILN_HPP
