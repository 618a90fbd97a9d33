#include "core/package.hpp"

#include "core/kernel.hpp"
#include "core/nearest_names.hpp"
#include "driver/driver_api.hpp"

#include <atomic>

namespace kiln::core {

namespace {

constexpr std::size_t k_nearest = 3;

// A counter of its own, not the run-time compiler's: making that reads the cache's settings from the
// environment and builds paths (half of a first get_kernel's instructions), which a hit never needs.
std::atomic<std::uint64_t> g_package_hits{0};

}  // namespace

Package::Package(std::string label, RuntimeOptions options)
    : m_reader(m_own.reader), m_label(std::move(label)), m_options(std::move(options)) {
  m_own.label = m_label;
}

Package::~Package() {
  // Only a package that acquired a driver can have loaded anything.
  if (m_driver.driver) {
    if (m_own.libraries) m_own.libraries->unload_all(*m_driver.driver);
    if (m_companions) m_companions->unload_all(*m_driver.driver);
  }
  if (m_kernels) {
    for (std::uint32_t i = 0; i < m_reader.kernel_count(); ++i) delete m_kernels[i].load(std::memory_order_relaxed);
  }
}

Status Package::open_file(const char* path, std::unique_ptr<Package>& out) {
  std::unique_ptr<Package> package(new Package(path, RuntimeOptions::from_environment()));
  KILN_TRY(package->m_own.source.read_file(path));
  KILN_TRY(package->open_reader(path));
  out = std::move(package);
  return {};
}

Status Package::open_memory(const void* data, std::size_t size, bool copy, const char* label,
                            std::unique_ptr<Package>& out) {
  std::unique_ptr<Package> package(new Package(label ? label : "<memory>", RuntimeOptions::from_environment()));
  if (copy) {
    package->m_own.source.copy(data, size);
  } else {
    package->m_own.source.borrow(data, size);
  }
  KILN_TRY(package->open_reader({}));
  out = std::move(package);
  return {};
}

Status Package::open_compiled(std::span<const std::byte> bytes, std::string label, const RuntimeOptions& options,
                              format::Checksums checksums, std::unique_ptr<Package>& out) {
  std::unique_ptr<Package> package(new Package(std::move(label), options));
  package->m_own.source.borrow(bytes.data(), bytes.size());
  KILN_TRY(package->open_reader({}, checksums));
  out = std::move(package);
  return {};
}

Status Package::open_reader(std::string_view path, format::Checksums checksums) {
  KILN_TRY(m_own.open(m_options.log, checksums));
  KILN_TRY(SplitCompanions::of(m_reader, m_label, path, m_options.log, m_companions));
  m_kernels = std::make_unique<std::atomic<Kernel*>[]>(m_reader.kernel_count());
  m_compiled = std::make_unique<CompiledKernels>(*this);
  // A program that already uses CUDA has libcuda loaded: bind to it now rather than on the first
  // kernel request, whose latency is what users feel. With no driver in the process nothing is
  // loaded here, so opening still works on machines without one; a failure is kept for later.
  // Once the process has bound libcuda, it is loaded: asking the loader again would cost a walk of
  // its list of objects, 10-50 us in a Python process.
  if (system_driver_bound() || driver::system_driver_in_process()) {
    driver::DriverApi* ignored = nullptr;
    (void)acquire_driver_once(ignored);
  }
  return {};
}

void Package::record_error(const std::string& message) const {
  {
    std::lock_guard lock(m_errors_mutex);
    m_errors[std::this_thread::get_id()] = message;
  }
  if (m_error_parent) m_error_parent->record_error(message);
}

const char* Package::last_error() const {
  std::lock_guard lock(m_errors_mutex);
  auto it = m_errors.find(std::this_thread::get_id());
  // Nodes of an unordered_map do not move on rehash, and only this thread writes its own entry.
  return it == m_errors.end() ? "" : it->second.c_str();
}

Status Package::acquire_driver_once(driver::DriverApi*& out) {
  m_driver_once.run([this] {
    m_driver = acquire_driver();
    if (m_driver.driver) m_driver.devices->bind(*m_driver.driver);   // once per process
  });
  if (!m_driver.driver) return m_driver.failure;
  out = m_driver.driver.get();
  return {};
}

Status Package::current(driver::DriverApi*& driver, driver::CUdevice& device) {
  KILN_TRY(acquire_driver_once(driver));
  return current_device(*driver, device);
}

std::string Package::jit_log_suffix(const UnitLibrary& loaded) {
  const std::string& log = loaded.file->libraries->jit_log(loaded.image);
  return log.empty() ? std::string() : "\nJIT log:\n" + log;
}

std::string Package::image_name(const UnitLibrary& loaded) {
  return loaded.file->libraries->image_name(loaded.image);
}

Status Package::choose(std::uint32_t unit, DeviceQuery& device, const ImageRequester& requester,
                       const ImageFile*& file, ImageChoice& out) {
  file = &m_own;
  if (!m_companions) return choose_image(m_reader, unit, device, m_options.force_target, requester, out);
  const ImageFile* companion = nullptr;
  const std::uint16_t arch = device.profile().arch;
  KILN_TRY(m_companions->for_arch(arch, companion));
  Status from_companion;
  if (companion) {
    ImageRequester asked = requester;
    asked.label = companion->label;
    from_companion = choose_image(companion->reader, unit, device, m_options.force_target, asked, out);
    if (from_companion.ok()) {
      file = companion;
      return {};
    }
    if (from_companion.error().status != KILN_STATUS_NO_IMAGE_FOR_DEVICE) return from_companion;
  }
  const Status own = choose_image(m_reader, unit, device, m_options.force_target, requester, out);
  if (own.ok() || own.error().status != KILN_STATUS_NO_IMAGE_FOR_DEVICE) return own;
  return fail(own.error().status, error_text(own.error()) + (companion ? "; and " + error_text(from_companion.error()) : m_companions->missing_hint(arch)));
}

Status Package::library_for(driver::DriverApi& driver, std::uint32_t unit, driver::CUdevice device,
                            std::string_view subject, UnitLibrary& out, std::optional<std::uint32_t> kernel) {
  KILN_TRY(DeviceQuery::of(devices(), driver, device, out.device));
  if (m_options.log) KILN_TRY(out.device.make_complete());   // the log line describes the device whole
  ImageChoice choice;
  KILN_TRY(choose(unit, out.device, ImageRequester{m_label, subject, device, kernel}, out.file, choice));
  LoadRequest request;
  request.image = choice.image;
  request.subject = subject;
  request.device = &out.device;
  request.choice = &choice;
  KILN_TRY(out.file->libraries->load(driver, request, out.library));
  out.image = choice.image;
  return {};
}

Kernel* Package::kernel_at(std::uint32_t index) {
  if (Kernel* k = m_kernels[index].load(std::memory_order_acquire)) return k;
  std::lock_guard lock(m_kernels_mutex);
  Kernel* k = m_kernels[index].load(std::memory_order_relaxed);
  if (!k) {
    k = new Kernel(*this, index);
    m_kernels[index].store(k, std::memory_order_release);
  }
  return k;
}

Status Package::find_kernel(std::string_view name, std::uint32_t& index) const {
  const std::optional<format::NameHit> found = m_reader.find_name(name);
  if (!found) {
    // A deferred index may have missed it through a page it could not read or a damaged record:
    // the whole index is checked before a name is called missing (and the nearest are listed).
    KILN_TRY(m_own.checked_index());
    const std::string nearest = nearest_kernel_names(m_reader, name, k_nearest);
    return fail(KILN_STATUS_KERNEL_NOT_FOUND,
                "no kernel '" + std::string(name) + "' in " + m_label +
                    (nearest.empty() ? std::string(", which holds no kernels") : "; nearest: " + nearest));
  }
  KILN_TRY(m_own.checked_name(*found, name));
  index = found->kernel;
  return {};
}

std::uint64_t Package::package_hits() { return g_package_hits.load(std::memory_order_relaxed); }

Status Package::get_own_kernel(std::string_view name, Kernel*& out, const char*& canonical) {
  return own_kernel(name, nullptr, out, canonical);
}

Status Package::get_own_kernel_on(driver::CUdevice device, std::string_view name, Kernel*& out,
                                  const char*& canonical) {
  return own_kernel(name, &device, out, canonical);
}

Status Package::own_kernel(std::string_view name, const driver::CUdevice* known_device, Kernel*& out,
                           const char*& canonical) {
  std::uint32_t index = 0;
  KILN_TRY(find_kernel(name, index));
  Kernel* kernel = kernel_at(index);
  canonical = kernel->name();
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  if (known_device) {
    KILN_TRY(acquire_driver_once(driver));
    device = *known_device;
  } else {
    KILN_TRY(current(driver, device));
  }
  driver::CUkernel unused = nullptr;
  KILN_TRY(kernel->resolve(*driver, device, unused));
  out = kernel;
  return {};
}

Status Package::get_kernel(std::string_view name, Kernel*& out) {
  // A name the index does not find, compiled at run time earlier: the direct record is keyed by the
  // TOC's checksum, which the open checked and which covers every byte of the index, so the whole
  // index need not be read and checked again to answer it (a package's largest cost on a miss).
  if (!m_reader.find_name(name) && (out = m_compiled->compiled_before(name))) return {};
  const char* canonical = nullptr;
  Status own = get_own_kernel(name, out, canonical);
  if (own.ok()) {
    g_package_hits.fetch_add(1, std::memory_order_relaxed);
    return {};
  }
  if (own.error().status != KILN_STATUS_KERNEL_NOT_FOUND && (own.error().status != KILN_STATUS_NO_IMAGE_FOR_DEVICE || !canonical)) return own;
  KILN_TRY(m_own.checked_index());   // the carried sources' tables
  return m_compiled->get(own.error().status == KILN_STATUS_KERNEL_NOT_FOUND ? name : std::string_view(canonical), own, out);
}

Status Package::get_global(std::string_view name, driver::CUdeviceptr& pointer, std::size_t& size) {
  KILN_TRY(m_own.checked_index());   // variables are not checked one by one
  const std::optional<std::uint32_t> index = m_reader.find_variable(name);
  if (!index) {
    const std::string nearest = nearest_variable_names(m_reader, name, k_nearest);
    return fail(KILN_STATUS_VARIABLE_NOT_FOUND,
                "no variable '" + std::string(name) + "' in " + m_label +
                    (nearest.empty() ? std::string(", which holds no variables") : "; nearest: " + nearest));
  }
  const format::VariableView variable = m_reader.variable(*index);
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  KILN_TRY(current(driver, device));
  const std::string subject = "variable '" + std::string(variable.name) + "'";
  UnitLibrary unit;
  KILN_TRY(library_for(*driver, variable.unit, device, subject, unit));
  const driver::CUresult r = driver->library_get_global(&pointer, &size, unit.library, variable.lowered_name.data());
  if (r != driver::k_cuda_success) {
    return fail(KILN_STATUS_DRIVER_ERROR, m_label + ": " + subject + " (" + std::string(variable.lowered_name) +
                                              ") is not available in image " + image_name(unit) +
                                              ": cuLibraryGetGlobal: " + describe_result(*driver, r) +
                                              jit_log_suffix(unit));
  }
  return {};
}

Status Package::preload() {
  KILN_TRY(m_own.checked_index());
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  KILN_TRY(current(driver, device));
  for (std::uint32_t unit = 0; unit < m_reader.unit_count(); ++unit) {
    UnitLibrary loaded;
    KILN_TRY(library_for(*driver, unit, device, "unit " + std::string(m_reader.unit(unit).source), loaded));
  }
  for (std::uint32_t index = 0; index < m_reader.kernel_count(); ++index) {
    KILN_TRY(kernel_at(index)->load_function(*driver, device));
  }
  return {};
}

}  // namespace kiln::core
