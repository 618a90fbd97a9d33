#include "core/package.hpp"

#include "core/kernel.hpp"
#include "driver/driver_api.hpp"
#include "core/nearest_names.hpp"
#include "rtc/runtime_compiler.hpp"

namespace kiln::core {

namespace {

constexpr std::size_t k_nearest = 3;

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

}  // namespace

Package::Package(std::string label) : m_label(std::move(label)), m_options(RuntimeOptions::from_environment()) {}

Package::~Package() {
  // Only a package that acquired a driver can have loaded anything.
  if (m_driver.driver) m_libraries->unload_all(*m_driver.driver);
}

Status Package::open_file(const char* path, std::unique_ptr<Package>& out) {
  std::unique_ptr<Package> package(new Package(path));
  KILN_TRY(package->m_source.read_file(path));
  KILN_TRY(package->open_reader());
  out = std::move(package);
  return {};
}

Status Package::open_memory(const void* data, std::size_t size, bool copy, const char* label,
                            std::unique_ptr<Package>& out) {
  std::unique_ptr<Package> package(new Package(label ? label : "<memory>"));
  if (copy) {
    package->m_source.copy(data, size);
  } else {
    package->m_source.borrow(data, size);
  }
  KILN_TRY(package->open_reader());
  out = std::move(package);
  return {};
}

Status Package::open_reader() {
  const format::ReadError error = m_reader.open(m_source.bytes(), m_label);
  if (error) return fail(status_of(error.code), error.message);
  m_images = std::make_unique<ImageStore>(m_reader, m_source, m_label);
  m_libraries = std::make_unique<LibraryCache>(m_reader, *m_images, m_label, m_options.log);
  m_kernels.resize(m_reader.kernel_count());
  m_compiled = std::make_unique<CompiledKernels>(*this);
  // A program that already uses CUDA has libcuda loaded: bind to it now rather than on the first
  // kernel request, whose latency is what users feel. With no driver in the process nothing is
  // loaded here, so opening still works on machines without one; a failure is kept for later.
  if (driver::system_driver_in_process()) {
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
  std::call_once(m_driver_once, [this] { m_driver = acquire_driver(); });
  if (!m_driver.driver) return m_driver.failure;
  out = m_driver.driver.get();
  return {};
}

Status Package::current(driver::DriverApi*& driver, driver::CUdevice& device) {
  KILN_TRY(acquire_driver_once(driver));
  return current_device(*driver, device);
}

std::string Package::jit_log_suffix(std::uint32_t image) const {
  const std::string& log = m_libraries->jit_log(image);
  return log.empty() ? std::string() : "\nJIT log:\n" + log;
}

std::string Package::image_name(std::uint32_t image) const { return m_libraries->image_name(image); }

Status Package::library_for(driver::DriverApi& driver, std::uint32_t unit, driver::CUdevice device,
                            std::string_view subject, UnitLibrary& out, std::optional<std::uint32_t> kernel) {
  KILN_TRY(m_devices.profile(driver, device, out.profile));
  ImageChoice choice;
  KILN_TRY(choose_image(m_reader, unit, out.profile, m_options.force_target,
                        ImageRequester{m_label, subject, device, kernel}, choice));
  LoadRequest request;
  request.image = choice.image;
  request.subject = subject;
  request.device = device;
  request.profile = out.profile;
  request.description = choice.description;
  KILN_TRY(m_libraries->load(driver, request, out.library));
  out.image = choice.image;
  return {};
}

Kernel* Package::kernel_at(std::uint32_t index) {
  {
    std::shared_lock lock(m_kernels_mutex);
    if (Kernel* k = m_kernels[index].get()) return k;
  }
  std::unique_lock lock(m_kernels_mutex);
  if (!m_kernels[index]) m_kernels[index] = std::make_unique<Kernel>(*this, index);
  return m_kernels[index].get();
}

Status Package::find_kernel(std::string_view name, std::uint32_t& index) const {
  const std::optional<std::uint32_t> found = m_reader.find_kernel(name);
  if (!found) {
    const std::string nearest = nearest_kernel_names(m_reader, name, k_nearest);
    return fail(KILN_STATUS_KERNEL_NOT_FOUND,
                "no kernel '" + std::string(name) + "' in " + m_label +
                    (nearest.empty() ? std::string(", which holds no kernels") : "; nearest: " + nearest));
  }
  index = *found;
  return {};
}

Status Package::get_own_kernel(std::string_view name, Kernel*& out, const char*& canonical) {
  std::uint32_t index = 0;
  KILN_TRY(find_kernel(name, index));
  Kernel* kernel = kernel_at(index);
  canonical = kernel->name();
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  KILN_TRY(current(driver, device));
  driver::CUkernel unused = nullptr;
  KILN_TRY(kernel->resolve(*driver, device, unused));
  out = kernel;
  return {};
}

Status Package::get_kernel(std::string_view name, Kernel*& out) {
  const char* canonical = nullptr;
  Status own = get_own_kernel(name, out, canonical);
  if (own.ok()) {
    ++rtc::RuntimeCompiler::process().cache().counters().package_hits;
    return {};
  }
  if (own.code == KILN_STATUS_KERNEL_NOT_FOUND) return m_compiled->get(name, own, out);
  if (own.code == KILN_STATUS_NO_IMAGE_FOR_DEVICE && canonical) return m_compiled->get(canonical, own, out);
  return own;
}

Status Package::get_global(std::string_view name, driver::CUdeviceptr& pointer, std::size_t& size) {
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
                                              ") is not available in image " + image_name(unit.image) +
                                              ": cuLibraryGetGlobal: " + describe_result(*driver, r) +
                                              jit_log_suffix(unit.image));
  }
  return {};
}

Status Package::preload() {
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
