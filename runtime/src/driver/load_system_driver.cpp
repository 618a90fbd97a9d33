// load_system_driver(): open the driver library (platform/library.hpp), take every entry point
// through cuGetProcAddress_v2 with the ABI version it was written against, then cuInit. Nothing links against CUDA, so the runtime loads (and
// reports why it cannot run) on machines without a driver (cuda-platform-facts.md section 2.7).
#include "driver/system_driver.hpp"

#include "image/shared_object.hpp"
#include "platform/library.hpp"
#include "platform/text.hpp"
#include "util/path_variables.hpp"

#include <cstdlib>
#include <new>

namespace kiln::driver {
namespace {

// Closes the library on early failures; release() once the driver has run code worth keeping loaded.
struct LibraryCloser {
  void operator()(void* handle) const { platform::close_library(handle); }
};
using LibraryHandle = std::unique_ptr<void, LibraryCloser>;

// Takes entry points one by one and remembers the first that could not be had. The driver answers a
// missing symbol with CUDA_SUCCESS and a null pointer, so the pointer is checked, not only the result.
class Resolver {
public:
  explicit Resolver(PFN_cuGetProcAddress_v12000 get_proc_address) : m_get_proc_address(get_proc_address) {}

  // The templates only cast: one out-of-line lookup serves every entry point, so the 21 of them
  // cost a call each rather than an inlined copy of the bookkeeping.
  template <class Pointer>
  void get(const char* name, int version, Pointer& out) {
    if (void* pointer = required(name, version)) out = reinterpret_cast<Pointer>(pointer);
  }

  // For entry points the runtime can do without: a driver that lacks one leaves `out` null and is
  // not a failure (the DriverApi call that needs it says so).
  template <class Pointer>
  void get_optional(const char* name, int version, Pointer& out) {
    if (void* pointer = optional(name, version)) out = reinterpret_cast<Pointer>(pointer);
  }

  bool failed() const { return m_missing != nullptr; }
  CUresult result() const { return m_result; }
  std::string describe(PFN_cuGetErrorName_v6000 get_error_name) const {
    std::string why = "symbol not found";
    if (m_result != k_cuda_success) {
      why = "cuGetProcAddress failed with " + cuda_error_name(get_error_name, m_result);
    } else if (m_status == k_get_proc_address_version_not_sufficient) {
      why = "version not sufficient";
    }
    return std::string(m_missing) + " (ABI " + std::to_string(m_missing_version) + "): " + why;
  }

private:
  [[gnu::noinline]] void* required(const char* name, int version) {
    if (failed()) return nullptr;
    void* pointer = nullptr;
    int status = k_get_proc_address_success;
    m_result = m_get_proc_address(name, &pointer, version, k_get_proc_address_default, &status);
    if (m_result != k_cuda_success || pointer == nullptr) {
      m_missing = name;
      m_missing_version = version;
      m_status = status;
      return nullptr;
    }
    return pointer;
  }

  [[gnu::noinline]] void* optional(const char* name, int version) {
    if (failed()) return nullptr;
    void* pointer = nullptr;
    int status = k_get_proc_address_success;
    if (m_get_proc_address(name, &pointer, version, k_get_proc_address_default, &status) != k_cuda_success) {
      return nullptr;
    }
    return pointer;
  }

  PFN_cuGetProcAddress_v12000 m_get_proc_address;
  CUresult m_result = k_cuda_success;
  const char* m_missing = nullptr;
  int m_missing_version = 0;
  int m_status = k_get_proc_address_success;
};

// The ABI version is pasted into the pointer type's name, so a version that disagrees with the
// member's PFN_<name>_v<ABI> type does not compile.
#define KILN_RESOLVE(resolver, member, name, version) \
  (resolver).get<PFN_##name##_v##version>(#name, version, member)
#define KILN_RESOLVE_OPTIONAL(resolver, member, name, version) \
  (resolver).get_optional<PFN_##name##_v##version>(#name, version, member)

void resolve_all(Resolver& resolver, EntryPoints& entry) {
  KILN_RESOLVE(resolver, entry.get_error_name, cuGetErrorName, 6000);  // first: it names the other errors
  KILN_RESOLVE(resolver, entry.init, cuInit, 2000);
  KILN_RESOLVE(resolver, entry.driver_get_version, cuDriverGetVersion, 2020);
  KILN_RESOLVE(resolver, entry.device_get_count, cuDeviceGetCount, 2000);
  KILN_RESOLVE(resolver, entry.device_get, cuDeviceGet, 2000);
  KILN_RESOLVE(resolver, entry.device_get_attribute, cuDeviceGetAttribute, 2000);
  KILN_RESOLVE(resolver, entry.ctx_get_current, cuCtxGetCurrent, 4000);
  KILN_RESOLVE(resolver, entry.ctx_set_current, cuCtxSetCurrent, 4000);
  KILN_RESOLVE(resolver, entry.ctx_get_device, cuCtxGetDevice, 2000);  // not _v13000, which takes a context
  KILN_RESOLVE(resolver, entry.primary_ctx_retain, cuDevicePrimaryCtxRetain, 7000);
  KILN_RESOLVE(resolver, entry.library_load_data, cuLibraryLoadData, 12000);
  KILN_RESOLVE(resolver, entry.library_unload, cuLibraryUnload, 12000);
  KILN_RESOLVE(resolver, entry.library_get_kernel, cuLibraryGetKernel, 12000);
  KILN_RESOLVE(resolver, entry.library_get_global, cuLibraryGetGlobal, 12000);
  KILN_RESOLVE(resolver, entry.kernel_get_function, cuKernelGetFunction, 12000);
  KILN_RESOLVE(resolver, entry.kernel_set_attribute, cuKernelSetAttribute, 12000);
  KILN_RESOLVE(resolver, entry.launch_kernel, cuLaunchKernel, 4000);  // legacy default stream, not _ptsz
  // Optional: launch attributes, kernel attributes and occupancy (kiln_kernel_launch_ex and friends).
  KILN_RESOLVE_OPTIONAL(resolver, entry.launch_kernel_ex, cuLaunchKernelEx, 11060);  // not _ptsz
  KILN_RESOLVE_OPTIONAL(resolver, entry.kernel_get_attribute, cuKernelGetAttribute, 12000);
  KILN_RESOLVE_OPTIONAL(resolver, entry.occupancy_max_active_blocks, cuOccupancyMaxActiveBlocksPerMultiprocessor,
                        6050);
  KILN_RESOLVE_OPTIONAL(resolver, entry.occupancy_max_potential_block_size, cuOccupancyMaxPotentialBlockSize, 6050);
}

#undef KILN_RESOLVE
#undef KILN_RESOLVE_OPTIONAL

std::string older_than_12_message(const std::string& path) {
  return "the NVIDIA driver is older than CUDA 12.0 (" + path + " has no cuGetProcAddress_v2); install a newer driver";
}

std::string stub_message(const std::string& path) {
  return "only the CUDA toolkit's stub libcuda.so was found (" + path + "); install the NVIDIA driver";
}

std::string init_failure_message(CUresult result, const std::string& name, const std::string& path) {
  const std::string cause = " (cuInit: " + name + ", " + path + ")";
  switch (result) {
  case k_cuda_error_no_device: {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");  // the usual reason when a GPU is present
    return "no CUDA device" + cause +
           (visible != nullptr ? "; CUDA_VISIBLE_DEVICES is \"" + std::string(visible) + "\"" : std::string());
  }
  case k_cuda_error_system_driver_mismatch:
    return "the NVIDIA driver library does not match the loaded kernel module" + cause;
  case k_cuda_error_compat_not_supported_on_device:
    return "the CUDA forward-compatibility driver does not support this device" + cause;
  default:
    return "the NVIDIA driver failed to initialize" + cause;
  }
}

DriverLoad load(DriverLoadFailure failure, std::string message, CUresult init_result = k_cuda_success) {
  DriverLoad result;
  result.failure = failure;
  result.init_result = init_result;
  result.message = std::move(message);
  return result;
}

// The library to open: $KILN_LIBCUDA, or the system's driver (libcuda.so.1, the SONAME, not the dev
// symlink; nvcuda.dll from System32). An empty value counts as unset: dlopen("") would hand back
// the main program.
std::string requested_library(bool& overridden) {
  const char* from_env = platform::environment("KILN_LIBCUDA");
  overridden = from_env != nullptr && from_env[0] != '\0';
  return overridden ? from_env : platform::driver_library_name();
}

// The driver's library opened, or why not.
struct OpenedDriver {
  platform::OpenedLibrary library;
  bool too_old = false;   // a library of this machine that lacks cuGetProcAddress_v2: older than CUDA 12.0
};

// The override, a file the user named: by absolute path only, and loaded only if its bytes show a
// library of this machine that exports cuGetProcAddress_v2 (its constructors never run otherwise).
OpenedDriver open_override(const std::string& requested) {
  OpenedDriver opened;
  if (const Status rooted = check_rooted_path("KILN_LIBCUDA", requested); !rooted) {
    opened.library.error = rooted.error().message;
    return opened;
  }
  const auto check = [&opened](std::span<const std::byte> file) {
    const image::SharedObjectCheck checked = image::check_shared_object(file, "cuGetProcAddress_v2");
    opened.too_old = checked.lacks_entry_point;
    return image::loading_refusal(checked);
  };
  opened.library = platform::open_checked_library(requested, check);
  return opened;
}

DriverLoad load_or_throw() {
  bool overridden = false;
  const std::string requested = requested_library(overridden);

  // The override is a file the user named; the driver itself comes from the system's own place only.
  const OpenedDriver opened =
      overridden ? open_override(requested) : OpenedDriver{platform::open_system_library(requested), false};
  LibraryHandle library(opened.library.handle);
  if (!library && opened.too_old) return load(DriverLoadFailure::too_old, older_than_12_message(requested));
  if (!library) {
    return load(DriverLoadFailure::no_library, "no NVIDIA driver: " + requested + " cannot be opened" +
                                                   (overridden ? " (KILN_LIBCUDA)" : "") + ": " + opened.library.error);
  }
  // The file it was loaded from, for messages only: asking the loader (dlinfo) cost a first open
  // 7.5 us on an H200's host, so a driver that binds is never asked.
  const auto path = [&library, &requested] { return platform::library_file(library.get(), requested); };

  // cuGetProcAddress_v2 (5 arguments) came with CUDA 12.0, as did the library API the runtime needs, so
  // its absence is the version check.
  void* get_proc_address = platform::library_symbol(library.get(), "cuGetProcAddress_v2");
  if (get_proc_address == nullptr) return load(DriverLoadFailure::too_old, older_than_12_message(path()));

  Resolver resolver(reinterpret_cast<PFN_cuGetProcAddress_v12000>(get_proc_address));
  EntryPoints entry;
  resolve_all(resolver, entry);
  if (resolver.result() == k_cuda_error_stub_library) {
    return load(DriverLoadFailure::stub_library, stub_message(path()));
  }
  if (resolver.failed()) {
    return load(DriverLoadFailure::too_old, "the NVIDIA driver " + path() + " lacks " +
                                                resolver.describe(entry.get_error_name) +
                                                "; install a driver for CUDA 12.0 or newer");
  }

  const CUresult init_result = entry.init(0);
  if (init_result == k_cuda_error_stub_library) {
    return load(DriverLoadFailure::stub_library, stub_message(path()), init_result);
  }
  // From here libcuda may have started threads and registered exit handlers, even if cuInit failed:
  // keep it loaded for the rest of the process (see ~SystemDriver).
  void* kept = library.release();
  if (init_result != k_cuda_success) {
    return load(DriverLoadFailure::init_failed,
                init_failure_message(init_result, cuda_error_name(entry.get_error_name, init_result),
                                     platform::library_file(kept, requested)),
                init_result);
  }
  DriverLoad result = load(DriverLoadFailure::none, "loaded the NVIDIA driver " + requested);
  result.driver = make_system_driver(kept, entry);
  return result;
}

}  // namespace

bool system_driver_in_process() {
  bool overridden = false;
  const std::string requested = requested_library(overridden);
  return platform::library_loaded(requested);
}

DriverLoad load_system_driver() {
  try {
    return load_or_throw();
  } catch (const std::bad_alloc&) {
    // Fits std::string's inline buffer, so building this result does not allocate.
    return load(DriverLoadFailure::init_failed, "out of memory", k_cuda_error_out_of_memory);
  }
}

}  // namespace kiln::driver
