#include "core/program_package.hpp"

#include "core/device.hpp"
#include "core/driver_access.hpp"

namespace kiln::core {

namespace {

Status target_of_current_device(std::string& target) {
  DriverAccess access = acquire_driver();
  if (!access.driver) return access.failure;
  driver::CUdevice device = 0;
  KILN_TRY(current_device(*access.driver, device));
  std::uint16_t arch = 0;
  KILN_TRY(access.devices->arch(*access.driver, device, arch));
  target = "sm_" + std::to_string(arch);
  return {};
}

}  // namespace

Status compile_program(const ProgramRequest& request, std::unique_ptr<Package>& out) {
  CompileLibrary* compiler = nullptr;
  if (Status found = compile_library(compiler); !found.ok()) return fail(found.error().status, request.name + ": " + error_text(found.error()));
  if (!compiler->enabled())
    return fail(KILN_STATUS_NO_COMPILER, request.name + ": run-time compilation is off (KILN_JIT=0)");
  std::string target;
  KILN_TRY(target_of_current_device(target));
  Result<CompiledPackage> compiled = compiler->program(request, target);
  if (!compiled) return std::move(compiled).error();
  const std::string label = request.name + " (compiled at run time for " + target + ")";
  return Package::open_memory(compiled->bytes->data(), compiled->bytes->size(), /*copy=*/true, label.c_str(), out);
}

}  // namespace kiln::core
