#include "core/library_cache.hpp"
#include "util/printable.hpp"

#include "core/driver_access.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace kiln::core {

LibraryCache::LibraryCache(const format::PackageReader& reader, ImageStore& images, std::string label, bool log)
    : m_reader(reader), m_images(images), m_label(std::move(label)), m_log(log),
      m_slots(std::make_unique<Slot[]>(reader.image_count())), m_slot_count(reader.image_count()) {}

std::string LibraryCache::image_name(std::uint32_t image) const { return core::image_name(m_reader, image); }

Status LibraryCache::load(driver::DriverApi& driver, const LoadRequest& request, driver::CUlibrary& out) {
  if (request.image >= m_slot_count) {
    return fail(KILN_STATUS_INTERNAL_ERROR, m_label + ": image " + std::to_string(request.image) + " out of range");
  }
  Slot& slot = m_slots[request.image];
  // Double-checked: after the first load every caller takes only this acquire load.
  if (driver::CUlibrary library = slot.library.load(std::memory_order_acquire)) {
    out = library;
    return {};
  }
  std::lock_guard lock(slot.mutex);
  if (driver::CUlibrary library = slot.library.load(std::memory_order_relaxed)) {
    out = library;
    return {};
  }
  KILN_TRY(load_locked(driver, request, slot));
  out = slot.library.load(std::memory_order_relaxed);
  return {};
}

Status LibraryCache::load_locked(driver::DriverApi& driver, const LoadRequest& request, Slot& slot) {
  // Timed only for the log line.
  const auto start = m_log ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  // The store's bytes live as long as the package, so as long as the library: a raw image goes to
  // the driver straight from the package's mapping or buffer.
  std::span<const std::byte> image;
  KILN_TRY(m_images.bytes(request.image, image));

  driver::CUlibrary library = nullptr;
  std::string jit_log;
  // Only PTX goes through the JIT, so only PTX is given a buffer for its log: a cubin's load takes no
  // options, as a bare cuLibraryLoadData does. (Measured on an H200: this alone does not close the
  // 8-19 us by which this call is slower than the floor's; see bench/runtime_load.)
  const bool through_jit = request.choice == nullptr || request.choice->rule == select::Rule::ptx;
  const driver::CUresult r = driver.library_load_data(&library, image.data(), through_jit ? &jit_log : nullptr);
  while (!jit_log.empty() && (jit_log.back() == '\n' || jit_log.back() == '\0')) jit_log.pop_back();
  if (r != driver::k_cuda_success || !library) {
    std::string message = m_label + ": loading " + image_name(request.image) + " for " +
                          std::string(request.subject) + " on " + request.device->describe() +
                          " failed: cuLibraryLoadData: " +
                          (r != driver::k_cuda_success ? describe_result(driver, r) : std::string("no library returned"));
    if (!jit_log.empty()) message += "\nJIT log:\n" + jit_log;
    return fail(KILN_STATUS_DRIVER_ERROR, message);
  }
  slot.jit_log = std::move(jit_log);
  slot.library.store(library, std::memory_order_release);

  if (m_log) {
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const std::string line = "kiln: " + m_label + ": " + std::string(request.subject) + " on " +
                             request.device->describe() + ": " +
                             request.choice->description();
    // One fprintf per line, so lines from concurrent loads do not interleave.
    std::fprintf(stderr, "%s, loaded in %.2f ms\n", printable(line).c_str(), ms);
  }
  return {};
}

const std::string& LibraryCache::jit_log(std::uint32_t image) const {
  static const std::string none;
  return image < m_slot_count ? m_slots[image].jit_log : none;
}

void LibraryCache::unload_all(driver::DriverApi& driver) {
  for (std::size_t i = 0; i < m_slot_count; ++i) {
    Slot& slot = m_slots[i];
    if (driver::CUlibrary library = slot.library.exchange(nullptr)) {
      driver.library_unload(library);  // nothing to report to: destroy() cannot fail
    }
  }
}

}  // namespace kiln::core
