// Opening a package by name (kiln_package_open_named): the places a package called `name` may be,
// in order, and one message that lists every place looked when it is in none of them.
//
//   1. a package embedded in a loaded module (EmbeddedRegistry), preferring the calling module's;
//   2. `<name>.kiln` in the directory of the module that called (executable or shared library);
//   3. `<dir>/<name>.kiln` for each directory of $KILN_PACKAGE_PATH (colon-separated), in order.
//
// The first file that exists is opened, and its failure, if any, is the result: a damaged package is
// reported rather than silently passed over for one further down the list.
#pragma once

#include "core/package.hpp"
#include "util/result.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

// `caller` is an address in the calling module (the return address of the C entry point).
Status open_named(std::string_view name, const void* caller, std::unique_ptr<Package>& out);

// A package name, not a path: "saxpy", never "dir/saxpy" or "saxpy.kiln". `function` (the C entry
// point) starts the message.
Status check_package_name(std::string_view name, std::string_view function);

// The directories of a KILN_PACKAGE_PATH value (separated by ':', ';' on Windows), in order, without
// empty entries.
std::vector<std::string> split_package_path(std::string_view value);

}  // namespace kiln::core
