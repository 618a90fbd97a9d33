// Which of a unit's images a device loads: select_image's rules over the unit's images, narrowed by
// KILN_FORCE_TARGET, with failures phrased for the user (package, kernel, device, what is held).
#pragma once

#include "core/device.hpp"
#include "util/result.hpp"
#include "driver/cuda_types.hpp"
#include "format/package_reader.hpp"
#include "select/select_image.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::core {

// Settings read from the environment when a package is opened (not on every call: getenv is not
// free and races with setenv).
struct RuntimeOptions {
  bool log = false;           // KILN_LOG set and not "0": one stderr line per image load
  std::string force_target;   // KILN_FORCE_TARGET: "", "ptx", "sass" or a target string

  static RuntimeOptions from_environment();
};

struct ImageChoice {
  std::uint32_t image = 0;     // index into IMAGES
  select::Rule rule = select::Rule::exact;
  select::Candidate candidate; // the image's target
  // "cubin sm_90 (exact match)": built when a log line or another loader asks, not on every load.
  std::string description() const { return select::describe(candidate, rule); }
};

// Who asks for an image, for failure messages only ("app.kiln: saxpy on device 0 (compute capability
// 9.0)"): kept as pieces so that the text is built only when the choice fails.
struct ImageRequester {
  std::string_view label;      // the package
  std::string_view subject;    // "kernel 'saxpy'", "variable 'table'"
  driver::CUdevice device = 0;
  // A kernel that only some images of its unit hold: only those are chosen from. Unset for a
  // variable or a whole unit.
  std::optional<std::uint32_t> kernel;
};

// Picks the image of `unit` for `device`; failures start with the requester. A forced
// kind ("ptx", "sass") only allows that kind; a forced target allows only that target (still subject
// to the rules: a forced sm_90 does not run on 8.0), and its absence is NO_IMAGE_FOR_DEVICE. For a
// kernel some images lack, the best image that holds it; none is NO_IMAGE_FOR_DEVICE naming the
// targets that hold it. The rest of the device's profile is asked (DeviceQuery::make_complete) only
// when no cubin of its exact architecture is a candidate, or for a failure's message.
Status choose_image(const format::PackageReader& reader, std::uint32_t unit, DeviceQuery& device,
                    std::string_view force_target, const ImageRequester& requester, ImageChoice& out);

}  // namespace kiln::core
