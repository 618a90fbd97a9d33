// A device named on the command line ("sm_89", "8.9", "89") as the profile image selection takes.
#pragma once

#include "format/package_reader.hpp"
#include "select/select_image.hpp"
#include "util/result.hpp"

#include <string>

namespace kiln::cli {

// `driver` is a CUDA version ("13.0"); empty means the version of the NVRTC that built the package,
// i.e. a driver that accepts all of its PTX.
Result<select::DeviceProfile> parse_device_spec(const std::string& device, bool integrated, const std::string& driver,
                                                const format::PackageReader& package);

}  // namespace kiln::cli
