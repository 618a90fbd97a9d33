#include "core/image_choice.hpp"

#include "core/device.hpp"

#include <cstdlib>
#include <optional>
#include <vector>

namespace kiln::core {

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string held_targets(const format::PackageReader& reader, const format::UnitView& unit) {
  std::string held;
  for (std::uint32_t i = 0; i < unit.image_count; ++i) {
    const format::ImageView image = reader.image(unit.first_image + i);
    held += (held.empty() ? "" : ", ") + std::string(reader.target(image.target).name);
  }
  return held.empty() ? std::string("no images") : held;
}

}  // namespace

RuntimeOptions RuntimeOptions::from_environment() {
  RuntimeOptions options;
  const std::string log = env("KILN_LOG");
  options.log = !log.empty() && log != "0";
  options.force_target = env("KILN_FORCE_TARGET");
  return options;
}

Status choose_image(const format::PackageReader& reader, std::uint32_t unit_index, DeviceQuery& device,
                    std::string_view force_target, const ImageRequester& requester, ImageChoice& out) {
  const format::UnitView unit = reader.unit(unit_index);
  const auto prefix = [&] {  // for messages only: not on the fast path
    return std::string(requester.label) + ": " + std::string(requester.subject) + " on " + device.describe() + ": ";
  };

  std::optional<format::TargetKind> forced_kind;
  std::optional<format::Target> forced_target;
  if (force_target == "ptx") {
    forced_kind = format::TargetKind::ptx;
  } else if (force_target == "sass") {
    forced_kind = format::TargetKind::sass;
  } else if (!force_target.empty()) {
    forced_target = format::parse_target(force_target);
    if (!forced_target) {
      return fail(KILN_STATUS_NO_IMAGE_FOR_DEVICE, prefix() + "KILN_FORCE_TARGET=" + std::string(force_target) +
                                                       " is not 'ptx', 'sass' or a target such as sm_90 or compute_75");
    }
  }

  // A kernel in every image (nearly all) takes the unit's choice; one that some images lack
  // chooses among those that hold it.
  const bool partial = requester.kernel && !reader.kernel_in_every_image(*requester.kernel);
  // Candidates in image order; `images[i]` is the IMAGES index of candidate i. On the stack for a
  // unit of up to k_inline images (Kiln's default targets are 13): a first load allocates nothing here.
  constexpr std::uint32_t k_inline = 32;
  select::Candidate inline_candidates[k_inline];
  std::uint32_t inline_images[k_inline];
  std::vector<select::Candidate> heap_candidates;
  std::vector<std::uint32_t> heap_images;
  if (unit.image_count > k_inline) {
    heap_candidates.resize(unit.image_count);
    heap_images.resize(unit.image_count);
  }
  select::Candidate* candidates = unit.image_count > k_inline ? heap_candidates.data() : inline_candidates;
  std::uint32_t* images = unit.image_count > k_inline ? heap_images.data() : inline_images;
  std::size_t count = 0;
  bool exact_cubin = false;   // a cubin of the device's own architecture: the choice needs nothing more
  for (std::uint32_t i = 0; i < unit.image_count; ++i) {
    const format::ImageView image = reader.image(unit.first_image + i);
    const format::Target target = reader.target(image.target).target;
    if (forced_target && !(target == *forced_target)) continue;
    if (partial && !reader.kernel_in_target(*requester.kernel, image.target)) continue;
    exact_cubin = exact_cubin || (target.kind == format::TargetKind::sass && target.arch == device.profile().arch);
    candidates[count] = select::Candidate{target, image.ptx_version};
    images[count] = image.index;
    ++count;
  }
  if (!device.complete() && (!exact_cubin || forced_kind == format::TargetKind::ptx)) KILN_TRY(device.make_complete());
  const std::span<const select::Candidate> held(candidates, count);
  if (partial && held.empty() && reader.kernel_in_other_file(*requester.kernel)) {
    return fail(KILN_STATUS_NO_IMAGE_FOR_DEVICE,
                prefix() + "no image of this file holds this kernel (its images are in another file of the split package)");
  }
  if (partial && held.empty()) {
    std::string held_by;
    for (const std::uint32_t t : reader.kernel_targets(*requester.kernel))
      held_by += (held_by.empty() ? "" : ", ") + std::string(reader.target(t).name);
    return fail(KILN_STATUS_NO_IMAGE_FOR_DEVICE,
                prefix() + "only the " + held_by + (held_by.find(',') == std::string::npos ? " image holds" : " images hold") +
                    " this kernel (its source builds it for some targets only: __CUDA_ARCH__, or a toolkit "
                    "kernel versioned per SM)" +
                    (force_target.empty() ? "" : ", and KILN_FORCE_TARGET=" + std::string(force_target) + " allows none of them"));
  }
  if (forced_target && held.empty()) {
    return fail(KILN_STATUS_NO_IMAGE_FOR_DEVICE, prefix() + "KILN_FORCE_TARGET=" + std::string(force_target) + " but " +
                                                     std::string(unit.source) + " has no image for it (it holds " +
                                                     held_targets(reader, unit) + ")");
  }

  const select::Selection selection = select::select_image(device.profile(), held, forced_kind);
  if (!selection.choice && partial) {
    std::string held_by;
    for (const select::Candidate& c : held) held_by += (held_by.empty() ? "" : ", ") + c.target.name();
    return fail(KILN_STATUS_NO_IMAGE_FOR_DEVICE,
                prefix() + "no image this device can load holds this kernel (its source builds it for some targets "
                           "only); the images that hold it are " + held_by + ": " + selection.failure.reason);
  }
  if (!selection.choice) {
    // With a forced value the reason lists only what the force left, so say so first.
    const std::string forced = force_target.empty() ? "" : "with KILN_FORCE_TARGET=" + std::string(force_target) + ", ";
    return fail(KILN_STATUS_NO_IMAGE_FOR_DEVICE, prefix() + forced + selection.failure.reason);
  }
  out.image = images[selection.choice->index];
  out.rule = selection.choice->rule;
  out.candidate = held[selection.choice->index];
  return {};
}

}  // namespace kiln::core
