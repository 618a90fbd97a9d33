#include "core/compiled_kernels.hpp"

#include "core/kernel.hpp"
#include "core/package.hpp"
#include "format/names.hpp"
#include "core/compile_library.hpp"
#include "core/direct_hits.hpp"

namespace kiln::core {

CompiledKernels::~CompiledKernels() = default;

Status CompiledKernels::target_of_current_device(std::string& target) {
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  KILN_TRY(m_owner.current(driver, device));
  std::uint16_t arch = 0;
  KILN_TRY(m_owner.devices().arch(*driver, device, arch));
  target = "sm_" + std::to_string(arch);
  return {};
}

Status CompiledKernels::get(std::string_view name, const Status& miss, Kernel*& out) {
  const format::PackageReader& reader = m_owner.reader();
  if (reader.carried_unit_count() == 0) return miss;
  if ((out = compiled_before(name))) return {};
  CompileLibrary* compiler = nullptr;
  if (Status found = compile_library(compiler); !found.ok()) {
    return fail(miss.error().status, error_text(miss.error()) + " (" + m_owner.label() + " carries sources to compile it at run time, but " +
                               error_text(found.error()) + ")");
  }
  // A name no carried source declares is a plain miss: it needs no driver to say so.
  if (Status declared = compiler->check_declared(reader.bytes(), m_owner.label(), name); !declared.ok()) {
    return fail(miss.error().status, error_text(miss.error()) + "; " + error_text(declared.error()));
  }
  if (!compiler->enabled()) {
    return fail(miss.error().status, error_text(miss.error()) + " (" + m_owner.label() +
                               " carries sources to compile it at run time, but KILN_JIT=0 turns that off)");
  }
  std::string target;
  KILN_TRY(target_of_current_device(target));
  const std::string normalized = format::normalize_name(name);

  std::lock_guard lock(m_mutex);
  const auto request = std::make_pair(normalized, target);
  if (auto found = m_requests.find(request); found != m_requests.end()) {
    count_memory_hit();
    out = found->second;
    return {};
  }
  Result<CompiledPackage> compiled = compiler->package_kernel(reader.bytes(), m_owner.label(), name, target);
  if (!compiled) {
    // No source declares the kernel, or no compiler can compile it: the miss is still the news, said first.
    const Error& why = compiled.error();
    if (why.status == KILN_STATUS_KERNEL_NOT_FOUND)
      return fail(miss.error().status, error_text(miss.error()) + "; " + error_text(why));
    if (why.status == KILN_STATUS_NO_COMPILER)
      return fail(KILN_STATUS_NO_COMPILER, error_text(miss.error()) + "; " + error_text(why));
    return std::move(compiled).error();
  }
  const auto expression_and_target = std::make_pair(compiled->expression, target);
  if (auto found = m_entries.find(expression_and_target); found != m_entries.end()) {   // another spelling of it
    out = m_requests[request] = found->second.kernel;
    return {};
  }
  KILN_TRY(adopt(request, compiled->expression, target, compiled->bytes, out));
  return {};
}

Status CompiledKernels::adopt(const std::pair<std::string, std::string>& request, const std::string& expression,
                              const std::string& target, std::shared_ptr<const std::vector<std::byte>> bytes,
                              Kernel*& out) {
  Entry entry;
  entry.bytes = std::move(bytes);
  const std::string label = m_owner.label() + " (" + expression + " compiled at run time for " + target + ")";
  KILN_TRY(Package::open_memory(entry.bytes->data(), entry.bytes->size(), /*copy=*/false, label.c_str(), entry.package));
  entry.package->report_errors_to(&m_owner);
  const char* canonical = nullptr;
  KILN_TRY(entry.package->get_own_kernel(expression, entry.kernel, canonical));
  out = m_requests[request] = entry.kernel;
  m_entries.emplace(std::make_pair(expression, target), std::move(entry));
  return {};
}

Kernel* CompiledKernels::compiled_before(std::string_view name) {
  if (m_owner.reader().carried_unit_count() == 0 || !direct_hits_enabled()) return nullptr;
  // A target that cannot be had yet is left to get(), which says why in its order.
  std::string target;
  if (!target_of_current_device(target).ok()) return nullptr;
  return direct(format::normalize_name(name), target);
}

Kernel* CompiledKernels::direct(const std::string& normalized, const std::string& target) {
  std::lock_guard lock(m_mutex);
  const auto request = std::make_pair(normalized, target);
  if (auto found = m_requests.find(request); found != m_requests.end()) {
    count_memory_hit();
    return found->second;
  }
  const std::optional<store::DirectRecord> record = find_direct_record(m_owner.reader(), normalized, target);
  if (!record) return nullptr;
  if (auto found = m_entries.find(std::make_pair(record->expression, target)); found != m_entries.end()) {
    count_memory_hit();   // another spelling of a kernel this package holds already
    return m_requests[request] = found->second.kernel;
  }
  std::shared_ptr<const std::vector<std::byte>> bytes = read_direct_entry(*record);
  Kernel* kernel = nullptr;
  // An entry the loader cannot use is the compile library's to judge (it replaces a damaged one).
  if (!bytes || !adopt(request, record->expression, target, bytes, kernel).ok()) return nullptr;
  count_direct_hit(record->expression, target, bytes->size());
  return kernel;
}

}  // namespace kiln::core
