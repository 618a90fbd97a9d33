// kiln_package_find_kernel and kiln_package_select_image*: a kernel's index, and the image chosen for
// it, for loaders other than Kiln's.
#include "api/abi_guard.hpp"

#include <cstddef>
#include <cstring>

using kiln::api::from_handle;
using kiln::api::guarded;
using kiln::api::null_argument;
using kiln::Status;

namespace {

// The size of kiln_image as Kiln 0.2 introduced it, frozen: fields are only ever appended, so a caller
// built against a later header passes a larger struct_size and only this prefix is written, and a
// later Kiln still takes this size from callers built against this header.
constexpr std::size_t k_image_size_v1 = offsetof(kiln_image, description) + sizeof(kiln_image::description);
static_assert(k_image_size_v1 == sizeof(kiln_image), "kiln_image grew: fill new fields only if struct_size holds them");

// Checks `out` and clears every field after struct_size, so that they are 0/NULL after a failure.
Status prepare(const char* function, kiln_image* out) {
  if (!out) return null_argument(function, "out");
  if (out->struct_size < k_image_size_v1) {
    return kiln::fail(KILN_STATUS_INVALID_ARGUMENT,
                            std::string(function) + ": out->struct_size is " + std::to_string(out->struct_size) +
                                ", less than sizeof(kiln_image) (" + std::to_string(k_image_size_v1) +
                                "): set it to sizeof(kiln_image)");
  }
  const std::size_t skip = sizeof(out->struct_size);
  std::memset(reinterpret_cast<unsigned char*>(out) + skip, 0, k_image_size_v1 - skip);
  return {};
}

void fill(const kiln::core::SelectedImage& image, kiln_image* out) {
  out->data = image.bytes.data();
  out->size = image.bytes.size();
  out->kind = image.kind == kiln::format::TargetKind::ptx ? KILN_IMAGE_PTX : KILN_IMAGE_CUBIN;
  out->compute_capability = image.arch;
  out->target = image.target;
  out->kernel_name = image.kernel_name;
  out->lowered_name = image.lowered_name;
  out->description = image.description;
}

// What both select entry points share: check `out` (clearing it) and the arguments, find the kernel,
// let `choose` pick its image, and fill `out`.
template <class Choose>
kiln_status select_into(kiln_package* package, const char* function, const char* kernel_name, kiln_image* out,
                        Choose&& choose) noexcept {
  kiln::core::Package* p = from_handle(package);
  return guarded(p, function, [&]() -> Status {
    KILN_TRY(prepare(function, out));
    if (!p) return null_argument(function, "package");
    if (!kernel_name) return null_argument(function, "kernel_name");
    std::uint32_t index = 0;
    KILN_TRY(p->find_kernel(kernel_name, index));
    kiln::core::SelectedImage image;
    KILN_TRY(choose(*p, index, image));
    fill(image, out);
    return {};
  });
}

}  // namespace

extern "C" {

KILN_API kiln_status kiln_package_find_kernel(const kiln_package* package, const char* name, size_t* index) {
  if (index) *index = 0;
  const kiln::core::Package* p = from_handle(package);
  return guarded(p, "kiln_package_find_kernel", [&]() -> Status {
    if (!package) return null_argument("kiln_package_find_kernel", "package");
    if (!name) return null_argument("kiln_package_find_kernel", "name");
    if (!index) return null_argument("kiln_package_find_kernel", "index");
    std::uint32_t found = 0;
    KILN_TRY(p->find_kernel(name, found));
    *index = found;
    return {};
  });
}

KILN_API kiln_status kiln_package_select_image(kiln_package* package, const char* kernel_name, int device,
                                               kiln_image* out) {
  return select_into(package, "kiln_package_select_image", kernel_name, out,
                     [&](kiln::core::Package& p, std::uint32_t index, kiln::core::SelectedImage& image) {
                       return p.select_image(index, device, image);
                     });
}

KILN_API kiln_status kiln_package_select_image_for_arch(kiln_package* package, const char* kernel_name,
                                                        uint32_t compute_capability, int driver_version,
                                                        kiln_image* out) {
  return select_into(package, "kiln_package_select_image_for_arch", kernel_name, out,
                     [&](kiln::core::Package& p, std::uint32_t index, kiln::core::SelectedImage& image) {
                       return p.select_image_for_arch(index, compute_capability, driver_version, image);
                     });
}

}  // extern "C"
