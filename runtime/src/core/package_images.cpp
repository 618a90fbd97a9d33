// Package's images for other loaders (kiln_package_select_image): the choice get_kernel would make,
// through the same choose_image and KILN_FORCE_TARGET, with the image checked and decoded but not
// handed to the driver.
#include "core/package.hpp"
#include "util/printable.hpp"

#include <algorithm>
#include <cstdio>

namespace kiln::core {

namespace {

// The newest CUDA version this runtime knows (cuDriverGetVersion form): its constants are cuda.h 13.0's.
constexpr int k_newest_known_driver = 13000;

}  // namespace

Status Package::select_image(std::uint32_t index, int ordinal, SelectedImage& out) {
  driver::DriverApi* driver = nullptr;
  KILN_TRY(acquire_driver_once(driver));
  driver::CUdevice device = 0;
  if (Status s = device_for_ordinal(*driver, ordinal, device); !s.ok()) {
    const std::string kernel(m_reader.kernel(index).canonical_name);
    return fail(s.error().status, m_label + ": kernel '" + kernel + "': " + error_text(s.error()));
  }
  DeviceQuery query;
  KILN_TRY(DeviceQuery::of(devices(), *driver, device, query));
  return select_for(index, query, out);
}

Status Package::select_image_for_arch(std::uint32_t index, std::uint32_t arch, int driver_version,
                                      SelectedImage& out) {
  const auto refuse = [&](const std::string& why) {
    return fail(KILN_STATUS_INVALID_ARGUMENT,
                m_label + ": kernel '" + std::string(m_reader.kernel(index).canonical_name) + "': " + why);
  };
  if (arch < 10 || arch > 999) {
    return refuse("compute capability " + std::to_string(arch) + " is not major * 10 + minor (90 for 9.0)");
  }
  if (driver_version < 0 || (driver_version > 0 && driver_version < 1000)) {
    return refuse("driver version " + std::to_string(driver_version) +
                  " is not in cuDriverGetVersion form (13000 for CUDA 13.0) or 0");
  }
  if (driver_version == 0) {
    // A driver new enough for the package: the newest this runtime knows, or the CUDA version of the
    // NVRTC that built the package (its PTX ISA), whichever is newer.
    const int built_with = select::parse_cuda_version(m_reader.metadata_value("nvrtc.version").value_or(""))
                               .value_or(0);
    driver_version = std::max(k_newest_known_driver, built_with);
  }
  select::DeviceProfile profile;
  profile.arch = static_cast<std::uint16_t>(arch);
  profile.max_ptx_version = select::max_ptx_version_for_driver(driver_version);
  DeviceQuery query(profile);
  return select_for(index, query, out);
}

Status Package::kernel_coverage(std::size_t index, std::uint32_t arch, int driver_version, Coverage& out) {
  if (index >= m_reader.kernel_count()) {
    return fail(KILN_STATUS_INVALID_ARGUMENT, m_label + ": kernel index " + std::to_string(index) +
                                                  " is out of range (the package holds " +
                                                  std::to_string(m_reader.kernel_count()) + " kernels)");
  }
  SelectedImage image;
  const Status chosen = select_image_for_arch(static_cast<std::uint32_t>(index), arch, driver_version, image);
  if (chosen.ok()) {
    out = image.kind == format::TargetKind::sass ? Coverage::cubin : Coverage::ptx;
    return {};
  }
  if (chosen.error().status != KILN_STATUS_NO_IMAGE_FOR_DEVICE) return chosen;
  KILN_TRY(m_own.checked_index());   // the carried sources' tables
  const std::uint32_t unit = m_reader.kernel(static_cast<std::uint32_t>(index)).unit;
  out = m_reader.find_carried_unit(unit) ? Coverage::runtime_compile : Coverage::none;
  return {};
}

Status Package::select_for(std::uint32_t index, DeviceQuery& device, SelectedImage& out) {
  if (index >= m_reader.kernel_count()) {
    return fail(KILN_STATUS_INTERNAL_ERROR, m_label + ": kernel " + std::to_string(index) + " out of range");
  }
  KILN_TRY(m_own.checked_kernel(index));
  const format::KernelView kernel = m_reader.kernel(index);
  ImageChoice choice;
  const ImageFile* file = nullptr;
  KILN_TRY(choose(kernel.unit, device, ImageRequester{m_label, kernel.canonical_name, device.device(), index}, file,
                  choice));
  std::span<const std::byte> bytes;
  KILN_TRY(file->images->bytes(choice.image, bytes));
  const format::TargetView target = file->reader.target(file->reader.image(choice.image).target);
  // Names in STRINGS are NUL-terminated (the reader checked), so their views are C strings.
  out.bytes = bytes;
  out.kind = target.target.kind;
  out.arch = device.profile().arch;
  out.target = target.name.data();
  out.kernel_name = kernel.canonical_name.data();
  out.lowered_name = kernel.lowered_name.data();
  out.description = keep(choice.description());
  if (m_options.log) {
    const std::string line = "kiln: " + m_label + ": " + std::string(kernel.canonical_name) + " on " +
                             device.describe() + ": " + out.description;
    std::fprintf(stderr, "%s, selected for another loader\n", printable(line).c_str());  // one call: lines do not interleave
  }
  return {};
}

const char* Package::keep(std::string text) {
  std::lock_guard lock(m_kept_mutex);
  return m_kept.insert(std::move(text)).first->c_str();
}

}  // namespace kiln::core
