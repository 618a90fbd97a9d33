#include "core/compiled_kernels.hpp"

#include "core/kernel.hpp"
#include "core/package.hpp"
#include "format/names.hpp"
#include "core/compile_library.hpp"
#include "core/direct_hits.hpp"

namespace kiln::core {

CompiledKernels::~CompiledKernels() = default;

Status CompiledKernels::current_target(driver::CUdevice& device, std::string& target) {
  driver::DriverApi* driver = nullptr;
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
  driver::CUdevice device = 0;
  std::string target;
  KILN_TRY(current_target(device, target));
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
  const std::span<const std::byte> whole(*compiled->bytes);
  KILN_TRY(adopt(request, compiled->expression, device, target, compiled->bytes, whole, format::Checksums::check, out));
  return {};
}

Status CompiledKernels::adopt(const std::pair<std::string, std::string>& request, const std::string& expression,
                              driver::CUdevice device, const std::string& target, std::shared_ptr<const void> owner,
                              std::span<const std::byte> compiled, format::Checksums checksums, Kernel*& out) {
  Entry entry;
  entry.owner = std::move(owner);
  std::string label = m_owner.label() + " (" + expression + " compiled at run time for " + target + ")";
  KILN_TRY(Package::open_compiled(compiled, std::move(label), m_owner.options(), checksums, entry.package));
  entry.package->report_errors_to(&m_owner);
  const char* canonical = nullptr;
  KILN_TRY(entry.package->get_own_kernel_on(device, expression, entry.kernel, canonical));
  out = m_requests[request] = entry.kernel;
  m_entries.emplace(std::make_pair(expression, target), std::move(entry));
  return {};
}

Kernel* CompiledKernels::compiled_before(std::string_view name) {
  if (m_owner.reader().carried_unit_count() == 0 || !direct_hits_enabled()) return nullptr;
  // A target that cannot be had yet is left to get(), which says why in its order.
  driver::CUdevice device = 0;
  std::string target;
  if (!current_target(device, target).ok()) return nullptr;
  return direct(format::normalize_name(name), device, target);
}

Kernel* CompiledKernels::direct(const std::string& normalized, driver::CUdevice device, const std::string& target) {
  std::lock_guard lock(m_mutex);
  const auto request = std::make_pair(normalized, target);
  if (auto found = m_requests.find(request); found != m_requests.end()) {
    count_memory_hit();
    return found->second;
  }
  const std::optional<DirectHit> hit = find_direct_hit(m_owner.reader(), normalized, target);
  if (!hit) return nullptr;
  const std::string& expression = hit->record.expression;
  if (auto found = m_entries.find(std::make_pair(expression, target)); found != m_entries.end()) {
    count_memory_hit();   // another spelling of a kernel this package holds already
    return m_requests[request] = found->second.kernel;
  }
  Kernel* kernel = nullptr;
  // A package the loader cannot use is the compile library's to judge (it writes the record again).
  // The store checked the record's bytes, the package among them, against the checksum it was
  // written with: its own checksums would hash the same bytes again.
  if (!adopt(request, expression, device, target, hit->entry.file, hit->record.package,
             format::Checksums::verified_by_caller, kernel).ok())
    return nullptr;
  count_direct_hit(expression, target, hit->entry.payload.size());
  return kernel;
}

}  // namespace kiln::core
