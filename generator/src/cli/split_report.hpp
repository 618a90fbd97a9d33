// kiln inspect --device on the main file of a split package: the runtime loads a device's cubins
// from the companion of its major (docs/split-packages.md), so the report takes each kernel's choice
// from that file where it has one, as the runtime does, and says which file it is and whether it
// is installed.
#pragma once

#include "select/select_image.hpp"

#include <nlohmann/json.hpp>

namespace kiln::cli {

// Adds "device_file" to report["split"] ({"path", "installed", "problem"}) and, for every kernel the
// companion has an image for, replaces its "loads" with the companion's (with "file"). A report of a
// file that is not a split's main file, or with no companion for the device's major, is unchanged.
void add_companion_loads(nlohmann::json& report, const select::DeviceProfile& device);

}  // namespace kiln::cli
